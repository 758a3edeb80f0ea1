"""What a pull request may publish: allowlists for config, pages and files."""
