"""Tools for RFD authors: a new RFD, the upstream export."""
