"""Tooling for ACP RFDs: schema changes as data, validated examples, RFD lint and the site."""

__version__ = "0.1.0"
