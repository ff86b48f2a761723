"""The workspace's evolution settings (SPEC §10, §13): off until the user turns them on.

``<workspace>/.orkas/evolution/settings.json``, replaced atomically. An unreadable or partial
file falls back to the defaults field by field, so a typo never turns evolution on.

Defaults follow seed 003 §5: a reflection at most once per ``cooling_hours`` (12: about one
cycle per 12 hours, hours apart), when the weighted signals reach ``threshold``; and a fallback
cycle after ``fallback_days`` (3) without one, if anything at all was observed. The reflection
runs on ``model`` (None: the agent's own model) under ``max_tokens_per_reflection`` and, over
the agent's life, ``max_tokens_total``.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from .store import EVOLUTION_DIR, atomic_write

__all__ = ["DEFAULT_WEIGHTS", "EvolutionSettings", "load_settings", "save_settings"]

# A correction by the user says the most about what the agent lacks (seed 003 §5).
DEFAULT_WEIGHTS: dict[str, float] = {"correction": 5.0, "recovery": 2.0, "complexity": 1.0,
                                     "weakness": 2.0, "inefficient_skill": 2.0}


class EvolutionSettings(BaseModel):
    enabled: bool = False
    model: str | None = None
    threshold: float = Field(default=8.0, gt=0)
    cooling_hours: float = Field(default=12.0, ge=0)
    fallback_days: float = Field(default=3.0, gt=0)
    max_tokens_per_reflection: int = Field(default=6_000, gt=0)
    max_tokens_total: int = Field(default=200_000, gt=0)
    max_steps: int = Field(default=8, gt=0)
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    complex_tool_calls: int = Field(default=12, gt=0)  # a run this long is a complex task
    inefficient_steps: int = Field(default=8, gt=0)  # a skill-led run this long is inefficient


def _path(workspace: str | Path) -> Path:
    return Path(workspace) / EVOLUTION_DIR / "settings.json"


def load_settings(workspace: str | Path) -> EvolutionSettings:
    try:
        raw = json.loads(_path(workspace).read_text("utf-8"))
    except (OSError, ValueError):
        return EvolutionSettings()
    if not isinstance(raw, dict):
        return EvolutionSettings()
    good: dict[str, object] = {}
    for key, value in raw.items():
        if key not in EvolutionSettings.model_fields:
            continue
        try:
            EvolutionSettings.model_validate({key: value})
        except ValidationError:
            continue  # one bad field keeps its default; the others still apply
        good[key] = value
    return EvolutionSettings.model_validate(good)


def save_settings(workspace: str | Path, settings: EvolutionSettings) -> None:
    atomic_write(_path(workspace), settings.model_dump_json(indent=1).encode())
