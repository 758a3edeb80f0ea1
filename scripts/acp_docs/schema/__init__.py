"""RFD schema changes: their sources, the generated fragments, the merge and the reference."""
