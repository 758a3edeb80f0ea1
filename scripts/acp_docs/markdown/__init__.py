"""Markdown as the site renders it: code blocks, parts, block map, prose, limits."""
