"""HTTP failures → the error tree of :mod:`orkas_nb.core.errors`.

Every failure of one HTTP attempt leaves the providers as one of those exceptions, so the
retry/rotation layer above decides on ``action`` alone:

- connection refused/reset, read timeout, a cut or malformed stream → ``TransientError``
  (``StreamTruncatedError`` for a stream that ended without its terminal event);
- 408/409/5xx/529 → ``TransientError``; 429 → ``RateLimitError`` with ``retry_after``
  (an OpenAI 429 whose code is ``insufficient_quota`` is an ``AccountError``: no balance);
- 401/402/403 → ``AccountError``; a prompt over the window → ``ContextOverflowError``;
  content policy → ``ContentPolicyError``; other 4xx → ``RequestError``.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

import httpx

from ..core.errors import (
    AccountError,
    ContentPolicyError,
    ContextOverflowError,
    ProviderError,
    RateLimitError,
    RequestError,
    TransientError,
)

# Phrases that the common servers use for a prompt longer than the model's window.
_OVERFLOW_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "prompt is too long",
    "exceed_context_size",
    "exceeds the available context size",
    "context window",
    "too many tokens",
    "input is too long",
)
_POLICY_MARKERS = ("content_policy", "content_filter", "safety system")



def parse_retry_after(headers: httpx.Headers) -> float | None:
    """``retry-after-ms``, ``retry-after`` in seconds, or an HTTP date; None when absent or bad."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_fields(body: str) -> tuple[str, str, str, str]:
    """(type, code, message, param) of an OpenAI or Anthropic error body, tolerant of anything."""
    try:
        data = json.loads(body)
    except ValueError:
        return "", "", body[:500], ""
    err = data.get("error", data) if isinstance(data, dict) else {}
    if not isinstance(err, dict):
        return "", "", str(err)[:500], ""
    return (
        str(err.get("type") or ""),
        str(err.get("code") or ""),
        str(err.get("message") or body[:500]),
        str(err.get("param") or ""),
    )


def error_from_status(status: int, body: str, headers: httpx.Headers, provider: str) -> ProviderError:
    """Map an HTTP error response to the error tree (see the module docstring)."""
    etype, code, message, _ = error_fields(body)
    text = f"{provider}: HTTP {status}: {message}"
    kw: dict[str, Any] = {"status": status, "provider": provider, "body": body[:2000]}
    blob = f"{etype} {code} {message}".lower()
    if status == 429:
        if "insufficient_quota" in blob or "billing" in blob:
            return AccountError(text, **kw)
        return RateLimitError(text, retry_after=parse_retry_after(headers), **kw)
    if status in (401, 402, 403):
        return AccountError(text, **kw)
    if status in (408, 409) or status >= 500:
        return TransientError(text, retry_after=parse_retry_after(headers), **kw)
    if any(marker in blob for marker in _OVERFLOW_MARKERS):
        return ContextOverflowError(text, **kw)
    if any(marker in blob for marker in _POLICY_MARKERS):
        return ContentPolicyError(text, **kw)
    return RequestError(text, **kw)


def error_from_exception(exc: Exception, provider: str) -> ProviderError:
    """An httpx failure (no HTTP status) as a transient error, with a readable reason."""
    if isinstance(exc, httpx.TimeoutException):
        reason = f"timed out ({type(exc).__name__})"
    elif isinstance(exc, httpx.ConnectError):
        reason = f"cannot connect: {exc}"
    elif isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
        reason = f"connection dropped: {exc or type(exc).__name__}"
    else:
        reason = f"{type(exc).__name__}: {exc}"
    return TransientError(f"{provider}: {reason}", provider=provider)


async def raise_for_status(response: httpx.Response, provider: str) -> None:
    if response.status_code >= 400:
        body = (await response.aread()).decode("utf-8", "replace")
        raise error_from_status(response.status_code, body, response.headers, provider)
    ctype = response.headers.get("content-type", "")
    if "text/event-stream" not in ctype:
        # A success status with no stream is the server's settled answer (a proxy's page, an
        # endpoint that ignores "stream", an error object sent with 200): the same request
        # gets the same reply, so it is not retried; an error object keeps its own meaning.
        body = (await response.aread()).decode("utf-8", "replace")
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
            raise error_from_stream(payload, provider)
        raise RequestError(
            f"{provider}: expected an event stream, got {ctype or 'no content type'} with HTTP "
            f"{response.status_code}: {body[:300]} (is the base URL an API endpoint that streams?)",
            status=response.status_code, provider=provider, body=body[:2000],
        )


def error_from_stream(payload: dict[str, Any], provider: str) -> ProviderError:
    """An error announced inside a stream (OpenAI ``{"error":…}``, Anthropic ``event: error``)."""
    err = payload.get("error", payload)
    etype = str(err.get("type") or "") if isinstance(err, dict) else ""
    status = {
        "overloaded_error": 529, "api_error": 500, "server_error": 500, "rate_limit_error": 429,
        "authentication_error": 401, "permission_error": 403, "billing_error": 402,
        "not_found_error": 404, "request_too_large": 413,
    }.get(etype, 400 if "invalid_request" in etype else 500)
    return error_from_status(status, json.dumps(payload), httpx.Headers(), provider)
