"""The error tree. Every class answers the runner's one question: retry, rotate, compact or surface?

    OrkasError
    ├── ProviderError                   a model call failed            action
    │   ├── TransientError              reset, timeout, 5xx, 529       retry in place (backoff, cap 30 s)
    │   │   └── StreamTruncatedError    stream ended w/o terminal evt  retry in place (before content)
    │   ├── RateLimitError              429                            honour retry_after, rotate
    │   ├── AccountError                401/403, no balance, expired   cool key down 10 min, rotate
    │   ├── RequestError                malformed request              surface at once, no rotation
    │   │   └── ContentPolicyError      refused by policy              surface at once
    │   └── ContextOverflowError        prompt longer than the window  compact, retry once
    ├── ToolError                       a tool failed                  observation for the model
    │   └── ToolDenied                  the user/policy refused        observation ("denied"), nothing ran
    ├── StateError                      the record could not be saved  surface as a state-layer error
    │   ├── SessionLockedError          another writer holds the file
    │   └── SessionCorruptError         unreadable beyond repair
    ├── ConfigError                     bad model string, missing key  surface
    ├── ReplayMismatchError             a cassette has no such request surface
    └── RunCancelled                    abort signal                   end the turn, no retry

Errors that reach a ``done`` event are described by :class:`ErrorInfo`, a serialisable view.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Action = Literal["retry", "rotate", "compact", "surface", "observe", "cancel"]


class OrkasError(Exception):
    """Base of every error this package raises on purpose."""

    action: Action = "surface"

    def info(self) -> "ErrorInfo":
        return ErrorInfo(kind=type(self).__name__, message=str(self), action=self.action)


class ProviderError(OrkasError):
    """A model call failed. ``status`` is the HTTP status when there was one."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        provider: str | None = None,
        retry_after: float | None = None,
        body: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.provider = provider
        self.retry_after = retry_after
        self.body = body


class TransientError(ProviderError):
    action: Action = "retry"


class StreamTruncatedError(TransientError):
    """The stream ended without its terminal event: a cut, never a clean success."""


class RateLimitError(ProviderError):
    action: Action = "rotate"


class AccountError(ProviderError):
    action: Action = "rotate"


class RequestError(ProviderError):
    action: Action = "surface"


class ContentPolicyError(RequestError):
    pass


class ContextOverflowError(ProviderError):
    action: Action = "compact"


class ToolError(OrkasError):
    """Raised by a tool to report a failure the model should see (an observation)."""

    action: Action = "observe"


class ToolDenied(ToolError):
    """The user (or a policy standing in for them) refused the action; nothing was run."""


class StateError(OrkasError):
    """The state layer failed: a record could not be saved or loaded."""


class SessionLockedError(StateError):
    pass


class SessionCorruptError(StateError):
    pass


class ConfigError(OrkasError):
    pass


class ReplayMismatchError(OrkasError):
    pass


class RunCancelled(OrkasError):
    action: Action = "cancel"


class ErrorInfo(BaseModel):
    kind: str
    message: str
    action: Action = "surface"
