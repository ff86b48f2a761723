"""The base of the widgets the labextension draws: their models and views come from the
extension's module, at the version this package ships (:data:`~.protocol.MODULE_NAME`,
:data:`~.protocol.MODULE_VERSION`), said once so that no widget asks for another one."""

from __future__ import annotations

from ipywidgets import DOMWidget
from traitlets import Unicode

from .protocol import MODULE_NAME, MODULE_VERSION


class ExtensionWidget(DOMWidget):
    """A widget whose model and view the labextension defines; a subclass names them
    (``_model_name``, ``_view_name``)."""

    _model_module = Unicode(MODULE_NAME).tag(sync=True)
    _model_module_version = Unicode(MODULE_VERSION).tag(sync=True)
    _view_module = Unicode(MODULE_NAME).tag(sync=True)
    _view_module_version = Unicode(MODULE_VERSION).tag(sync=True)


__all__ = ["ExtensionWidget"]
