"""The checkout and its configuration: mkdocs.yml read safely and vetted by allowlist."""
