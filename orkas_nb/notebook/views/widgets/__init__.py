"""The built-in ipywidgets view of a run (``Agent.renderer = "widgets"``): :mod:`.live` draws
it, :mod:`.cards` holds its HTML, :mod:`.register` plugs it into ``%%agent``."""
