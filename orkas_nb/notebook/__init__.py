"""The notebook adapter: magics, widgets, kernel tools. Nothing imports it."""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    raise NotImplementedError("the %%agent magic lands with the notebook adapter (issue 6)")


def unload_ipython_extension(ipython: Any) -> None:
    pass
