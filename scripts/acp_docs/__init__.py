"""Tooling for the ACP prompt_suggestions RFD: schema, examples, RFD lint and site hooks."""

__version__ = "0.1.0"
