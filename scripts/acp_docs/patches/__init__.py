"""Replacements of third-party internals, each pinned to the versions it fits."""
