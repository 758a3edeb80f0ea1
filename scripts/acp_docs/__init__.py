"""Tooling for ACP RFDs: schema changes as data, validated examples, RFD lint and the site."""

import sys

__version__ = "0.1.0"

# A check never writes into the checkout it checks, Python bytecode included.
sys.dont_write_bytecode = True
