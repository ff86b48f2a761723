"""connectors (see SPEC)."""
