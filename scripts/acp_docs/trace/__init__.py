"""Recorded ACP sessions checked against the schema and wire rules."""
