"""memory (see SPEC)."""
