"""RFDs: their front matter, sections and lint rules."""
