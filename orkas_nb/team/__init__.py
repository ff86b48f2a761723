"""team (see SPEC)."""
