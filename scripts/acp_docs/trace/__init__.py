"""Recorded ACP sessions checked against the schema and the requirements judged on the wire."""

SETTLE = 0.5
"""Seconds of the Agent's quiet after which nothing it sent is still on its way: the default
of `acp-docs trace --settle` and of `acp-docs conform --settle`."""
