"""Where orkas_nb keeps the user's own files (profile, agent definitions, skills).

One resolution for every layer: memory (the profile), team (user agents and skills) and the
notebook all call :func:`config_dir`, so ``ORKAS_CONFIG_DIR`` moves all of them together.
"""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """``$ORKAS_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/orkas_nb``, else ``~/.config/orkas_nb``."""
    explicit = os.environ.get("ORKAS_CONFIG_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".config") / "orkas_nb"
