"""The prompt_suggestions schema: its source, the generated fragments, and the merge."""
