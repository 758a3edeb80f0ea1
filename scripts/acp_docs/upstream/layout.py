"""Where an upstream tree keeps its site, and how much of it is walked: facts every reader of
the tree shares, in a module that imports nothing."""

DOCS = "docs"
NAV_FILE = "docs/docs.json"
PAGE_SUFFIXES = (".mdx", ".md")
MAX_FILES = 20_000
"""The most files a tree may hold under `docs/`; past it, the rest is a finding, not read."""
NOT_WALKED = frozenset({".git", "node_modules"})
"""Folders no walk enters."""
