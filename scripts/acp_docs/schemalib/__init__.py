"""JSON Schema by library: jsonschema-rs decides; python-jsonschema checks and explains."""
