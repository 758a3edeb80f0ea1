"""Reading contributors' files: text, JSON, YAML and the file tree."""
