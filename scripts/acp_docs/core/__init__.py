"""Findings, errors, the protocol table, the repository and the tool runner."""
