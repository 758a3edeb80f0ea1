"""Tooling for ACP RFDs: schema changes as data, validated examples, RFD lint and the site."""

import sys

# A check never writes into the checkout it checks: Python bytecode goes to the
# cache folder outside it (so later runs start fast), or is not written at all.
sys.dont_write_bytecode = True

from acp_docs.core.cachedir import cache_dir  # noqa: E402

__version__ = "0.1.0"

_PYCACHE = cache_dir("pycache")
if _PYCACHE is not None and sys.pycache_prefix is None:
    sys.pycache_prefix = str(_PYCACHE)
if sys.pycache_prefix is not None:
    sys.dont_write_bytecode = False
