"""One ``%%agent`` cell, from what the user typed to the run: the magics and their arguments,
the input transformer, ``{var}`` interpolation, the ``Agent`` configurable, preparing and
driving the turn. Importing this package imports none of its modules (``%load_ext`` stays light)."""
