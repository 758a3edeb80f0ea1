"""The upstream ACP docs tree (Mintlify), checked in place: `acp-docs check --upstream DIR`."""
