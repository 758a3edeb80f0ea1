"""Tooling for ACP RFDs: schema changes as data, validated examples, RFD lint and the site."""

import sys

# A check never writes into the checkout it checks, and compiled code is never
# read from the shared cache folder: this package's bytecode is what `make setup`
# compiled beside it, or none.
sys.dont_write_bytecode = True

__version__ = "0.1.0"
