"""Recorded ACP sessions checked against the schema and the requirements judged on the wire."""
