"""The approver protocol: how a risky action asks the host (and so the user) for consent.

A host supplies an *approver*: any callable, sync or async, that takes an
:class:`ApprovalRequest` and returns a :class:`Decision`. The notebook shows three buttons; a
script may answer from a policy. The three answers are:

- ``Decision.ONCE``: allow this one action;
- ``Decision.RUN``: allow this action and every later one the request's ``scope_key`` covers,
  until the run ends (a run is one ``Agent.run``; its abort signal identifies it);
- ``Decision.DENY``: refuse; the model is told why and may choose another way.

A connector's call (kind ``connector``) may also be answered ``Decision.ALWAYS``: allow this
(agent, connector) pair from now on, remembered by the connector outside the workspace; for any
other kind the gate reads it as ``RUN`` (nothing else is remembered beyond a run).

Without an approver every risky action is denied. Logs record the category, the kind and the
length of what was asked, never its text (seed 003 §4).

An approver that waits for a click (it has ``answer(request_id, answer)``, like the notebook's
buttons) cannot be answered while the caller blocks the thread that delivers clicks
(``Agent.run_sync`` in a notebook cell). That caller installs a *stand-in* for the run
(:func:`stand_in_for_clicks`), which asks through ``input()`` or denies at once, saying why.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

log = logging.getLogger("orkas_nb.harness.approval")


class Decision(str, Enum):
    """An answer to an :class:`ApprovalRequest`."""

    ONCE = "once"
    RUN = "run"
    DENY = "deny"
    ALWAYS = "always"  # connectors only: this (agent, connector) pair from now on


class ApprovalRequest(BaseModel):
    """One question to the user. ``subject`` is shown to the user and never logged."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["command", "path", "network", "memory", "connector"]
    category: str
    subject: str
    reasons: list[str]
    scope_key: str
    scope_text: str
    tool: str = ""
    agent: str = ""
    call_id: str = ""


@runtime_checkable
class Approver(Protocol):
    """Answers approval requests; may be sync or async (a notebook awaits a button)."""

    def __call__(self, request: ApprovalRequest) -> Decision | Awaitable[Decision]: ...


ApproverLike = Callable[[ApprovalRequest], Any]

# Set by a caller that blocks the thread clicks arrive on; a context variable, so it follows the
# run into its tasks and only that run sees it.
_click_stand_in: contextvars.ContextVar[ApproverLike | None] = contextvars.ContextVar(
    "orkas_click_stand_in", default=None)


def stand_in_for_clicks(approver: ApproverLike | None) -> contextvars.Token[ApproverLike | None]:
    """In the current context, answer in place of approvers that wait for a click."""
    return _click_stand_in.set(approver)


def _waits_for_click(approver: Any) -> bool:
    # The shape of every approver answered from outside (buttons, ``Controls.answer_approval``).
    return callable(getattr(approver, "answer", None))


class ApprovalGate:
    """Asks the approver and remembers "for this run" answers, per run.

    A run is identified by an object that lives exactly as long as the run (the runner's
    ``AbortSignal``); grants are kept in a weak dictionary so they end with it.
    """

    def __init__(self, approver: ApproverLike | None = None) -> None:
        self.approver = approver
        self._grants: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def granted(self, run: Any, scope_key: str) -> bool:
        with self._lock:
            return scope_key in self._grants.get(run, set())

    async def ask(
        self, request: ApprovalRequest, *, run: Any, approver: ApproverLike | None = None
    ) -> Decision:
        """The decision for ``request``: a remembered grant, the approver's answer, or deny."""
        if run is not None and self.granted(run, request.scope_key):
            self._log(request, Decision.RUN, remembered=True)
            return Decision.RUN
        who = approver or self.approver
        stand_in = _click_stand_in.get()
        if stand_in is not None and _waits_for_click(who):
            who = stand_in  # no click can reach a blocked caller: never wait for one
        if who is None:
            self._log(request, Decision.DENY, remembered=False)
            return Decision.DENY
        try:
            answer = who(request)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # a broken approver refuses; it never lets a risk through
            log.warning("approver failed (%s); the request is denied", type(exc).__name__)
            answer = Decision.DENY
        decision = _coerce(answer)
        if decision is Decision.ALWAYS and request.kind != "connector":
            decision = Decision.RUN  # only a connector pair is remembered beyond the run
        if decision in (Decision.RUN, Decision.ALWAYS) and run is not None:
            with self._lock:
                self._grants.setdefault(run, set()).add(request.scope_key)
        self._log(request, decision, remembered=False)
        return decision

    @staticmethod
    def _log(request: ApprovalRequest, decision: Decision, *, remembered: bool) -> None:
        # Category and length only: the text may itself hold a secret (seed 003 §4).
        log.info(
            "approval kind=%s category=%s length=%d decision=%s%s",
            request.kind,
            request.category,
            len(request.subject),
            decision.value,
            " (granted earlier in this run)" if remembered else "",
        )


PROMPT_ANSWERS = {"o": "once", "once": "once", "y": "once", "yes": "once", "r": "run",
                  "run": "run", "d": "deny", "n": "deny", "no": "deny", "deny": "deny", "": "deny",
                  "a": "always", "always": "always"}


def prompt_text(request: ApprovalRequest) -> str:
    """The question a text prompt (``input()``) asks; see :func:`prompt_answer`."""
    reasons = "; ".join(request.reasons)
    always = ", [a]lways" if request.kind == "connector" else ""
    return (f"orkas asks to {request.kind} ({request.category}): {request.subject}"
            f"{' — ' + reasons if reasons else ''}\n"
            f"allow [o]nce, for this [r]un{always}, or [d]eny? ")


def prompt_answer(raw: Any) -> Decision:
    """A typed answer to :func:`prompt_text` as a Decision; anything unknown denies."""
    return _coerce(PROMPT_ANSWERS.get(str(raw).strip().lower(), "deny"))


def to_decision(answer: Any) -> Decision:
    """An approver's answer as a Decision: a Decision, its value ("once"/"run"/"deny") or True;
    anything else is a refusal (fail closed)."""
    return _coerce(answer)


def _coerce(answer: Any) -> Decision:
    if isinstance(answer, Decision):
        return answer
    if isinstance(answer, str):
        try:
            return Decision(answer.lower())
        except ValueError:
            pass
    if answer is True:
        return Decision.ONCE
    # Anything unexpected (None, False, a typo) is a refusal: fail closed.
    return Decision.DENY


def allow_all(request: ApprovalRequest) -> Decision:
    """An approver that allows everything once; for scripts that accept the risk."""
    return Decision.ONCE


def deny_all(request: ApprovalRequest) -> Decision:
    """An approver that refuses everything (the behaviour without an approver)."""
    return Decision.DENY
