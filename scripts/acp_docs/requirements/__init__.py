"""An RFD's requirements as data: read, bound to the RFD's sentences, and judged on the wire."""
