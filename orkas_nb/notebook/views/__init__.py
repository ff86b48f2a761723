"""The views of a run, siblings behind one :class:`~.renderer.Renderer` protocol: plain text
(:mod:`.text`), the built-in widgets (:mod:`.widgets`), the labextension's run and plan views
(:mod:`.lab`) and the static transcript a saved notebook keeps (:mod:`.transcript`).
Importing this package imports none of them (a view loads when a run needs it)."""
