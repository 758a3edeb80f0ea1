"""The `acp-docs` command line."""
