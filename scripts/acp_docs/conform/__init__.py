"""`acp-docs conform`: a live Agent driven through the RFDs' requirements, and its verdict."""
