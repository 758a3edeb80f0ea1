"""The checks of an RFD pull request and the run that gathers them."""
