"""What the prompt_suggestions RFD needs that cannot be data: its wire checks and scenarios."""
