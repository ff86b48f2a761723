"""Sampling fields a model refuses: dropped, remembered, and the request sent again once.

Newer models refuse sampling parameters that older ones of the same API took: Anthropic's
models after Claude Opus 4.6 answer a ``temperature`` with a 400 ("`temperature` is deprecated
for this model"), and OpenAI's reasoning models accept only the default temperature ("Unsupported
value: 'temperature' does not support 0 with this model"). A list of such models would be stale
the day the next one ships, so the refusal itself is read: a 400 that names a sampling field the
request carried *and* says it is refused (deprecated, unsupported, not permitted) drops that
field for that model, for the life of the provider, with one warning. A value that is merely out
of range ("should be less than or equal to 1") is the caller's mistake and stays an error.
"""

from __future__ import annotations

import logging
import re

from ..core.errors import RequestError
from .base import ModelRequest
from .http_errors import error_fields

log = logging.getLogger("orkas_nb.providers")

SAMPLING_FIELDS = ("temperature",)  # the ModelRequest fields a wire sends only when they are set
_REFUSED = re.compile(
    r"deprecated|not supported|unsupported|does not support|only the default|not permitted"
    r"|not allowed|may only be set|no longer",
    re.IGNORECASE,
)


def refused_field(error: RequestError, request: ModelRequest) -> str | None:
    """The sampling field of ``request`` that ``error`` says the model refuses, or None."""
    _, code, message, param = error_fields(error.body or "")
    text = f"{message} {code}"
    if not _REFUSED.search(text):
        return None
    for name in SAMPLING_FIELDS:
        if getattr(request, name) is not None and (
            param == name or re.search(rf"\b{name}\b", text, re.IGNORECASE)
        ):
            return name
    return None


class SamplingRefusals:
    """What each model of one provider refused, so later requests leave it out from the start."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._refused: dict[str, set[str]] = {}

    def apply(self, request: ModelRequest) -> ModelRequest:
        """``request`` without the fields its model refused before."""
        refused = self._refused.get(request.model)
        if not refused or all(getattr(request, name) is None for name in refused):
            return request
        return request.model_copy(update=dict.fromkeys(refused))

    def after(self, error: RequestError, request: ModelRequest) -> ModelRequest | None:
        """The request to send again after ``error`` (the refused field dropped), or None when
        the error is not a sampling refusal (then it stands)."""
        name = refused_field(error, request)
        if name is None:
            return None
        self._refused.setdefault(request.model, set()).add(name)
        log.warning("%s: model %s refuses %s (%s); sending it without",
                    self.provider, request.model, name, str(error)[:200])
        return request.model_copy(update={name: None})
