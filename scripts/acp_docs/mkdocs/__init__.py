"""The MkDocs plugin and what the site build generates."""
