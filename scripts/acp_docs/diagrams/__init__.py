"""Mermaid diagrams drawn at build time by the pinned Mermaid, published as static SVG."""
