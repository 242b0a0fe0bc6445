"""The REST API: one blueprint per resource."""
