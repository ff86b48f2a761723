"""Models whose service refuses a sampling field the API otherwise takes, in the service's words.

Anthropic's models after Claude Opus 4.6 (Opus 4.7 and later, the generation-5 models) answer
any ``temperature`` with a 400 "`temperature` is deprecated for this model."; OpenAI's reasoning
models (the o-series, gpt-5) take only the default temperature 1 and answer another value with a
400 ``unsupported_value`` on ``param: temperature``. The fake follows the same families by name,
and OpenAI's range (0 to 2; Anthropic's range is in :mod:`.checks`).
"""

from __future__ import annotations

import re
from typing import Any

from .checks import Rejected

_ANTHROPIC_NO_TEMPERATURE = re.compile(r"^claude-(?:opus|sonnet|haiku)-(?:4-[7-9]|[5-9])(?:\D|$)")
_OPENAI_DEFAULT_TEMPERATURE_ONLY = re.compile(r"^(?:o\d|gpt-5)(?:\D|$)")


def check_sampling(wire: str, body: dict[str, Any]) -> None:
    """Raise :class:`Rejected` when the body's model refuses its sampling fields."""
    model, temperature = str(body.get("model", "")), body.get("temperature")
    if temperature is None:
        return
    if wire == "openai" and isinstance(temperature, (int, float)) and not 0 <= temperature <= 2:
        bound = "above maximum value. Expected a value <= 2" if temperature > 2 else \
            "below minimum value. Expected a value >= 0"
        raise Rejected(f"Invalid 'temperature': decimal {bound}, but got {temperature} instead.",
                       param="temperature", code="decimal_above_max_value" if temperature > 2
                       else "decimal_below_min_value")
    if wire == "anthropic" and _ANTHROPIC_NO_TEMPERATURE.match(model):
        raise Rejected("`temperature` is deprecated for this model.")
    if wire == "openai" and _OPENAI_DEFAULT_TEMPERATURE_ONLY.match(model) and temperature != 1:
        raise Rejected(f"Unsupported value: 'temperature' does not support {temperature} with this model. "
                       "Only the default (1) value is supported.", param="temperature", code="unsupported_value")
