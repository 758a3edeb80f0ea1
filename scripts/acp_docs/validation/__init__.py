"""Payloads checked against the merged schemas: validators, dispatch, words."""
