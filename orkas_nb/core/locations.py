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


def secrets_dir() -> Path:
    """Where the connectors' key file, encrypted values and consent live: ``$ORKAS_SECRETS_DIR``,
    else ``secrets`` in :func:`config_dir`. Outside every workspace, and one of the credential
    locations the tools refuse and the sandbox masks (``tools/credentials.py``), so neither a
    cloned repository nor the model can read or approve anything here."""
    explicit = os.environ.get("ORKAS_SECRETS_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return config_dir() / "secrets"
