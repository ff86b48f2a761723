"""What a model request is made of: one object the turn and the compactor share.

The turn asks it for the main request of a history; the compactor asks it for the same request
to estimate it, for the window, and for an auxiliary request (the summary call). Neither reaches
into the other: this object holds the provider, model, tools, session and system prompt a
request is built from, and nothing about the turn in progress.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.messages import Message
from ..providers.base import LLMProvider, ModelRequest, ProviderCapabilities, capabilities_of
from .awaiting import check_sendable
from .config import RunConfig
from .session import Session
from .tool_images import ImageMover
from .tool_protocol import ToolRegistry

__all__ = ["RequestBuilder"]


class RequestBuilder:
    """Builds the requests of one agent's turns from its provider, model, tools and session."""

    def __init__(
        self,
        provider: LLMProvider,
        model: str,
        *,
        tools: ToolRegistry,
        session: Session,
        system_prompt: str | Callable[[], str],
        config: RunConfig,
    ) -> None:
        self.provider = provider
        self.model = model
        self.tools = tools
        self.session = session
        self.system_prompt = system_prompt
        self.config = config
        # Facts of the agent's setup the model must know (an MCP server that could not start):
        # after the system prompt, so a tool the model was promised but lacks is explained.
        self.setup_notes: list[str] = []
        self._images = ImageMover()

    def system_text(self) -> str:
        """The system prompt as the next request will carry it (its setup notes after it)."""
        text = self.system_prompt() if callable(self.system_prompt) else self.system_prompt
        if not self.setup_notes:
            return text
        return text + "\n\nNotes on this session's setup:\n" + "\n".join(
            f"- {n}" for n in self.setup_notes)

    @property
    def session_id(self) -> str:
        """The conversation's id for the provider (its prompt-cache key where supported)."""
        return self.config.session_id or self.session.name

    def capabilities(self) -> ProviderCapabilities:
        return capabilities_of(self.provider, self.model)

    def main(self, messages: list[Message]) -> ModelRequest:
        """The main-turn request for ``messages`` (the context policy estimates the same).
        :class:`~.awaiting.AwaitingAnswerError` while a call in it waits for its answer."""
        check_sendable(messages, self.session.name)
        if not self.capabilities().images_in_tool_results:
            messages = self._images.move(messages)
        # Built unvalidated: every field is already typed, and validating the history would
        # cost O(N) per request.
        return ModelRequest.model_construct(
            model=self.model,
            system=self.system_text(),
            messages=messages,
            tools=self.tools.specs(),
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
            session_id=self.session_id,
            purpose="main",
            extra={},
        )

    def auxiliary(self, system: str, messages: Sequence[Message], max_tokens: int) -> ModelRequest:
        """A side call of the same conversation (a compaction summary): no tools, a small cap."""
        return ModelRequest(model=self.model, system=system, messages=list(messages),
                            max_tokens=max_tokens, session_id=self.session_id, purpose="auxiliary")
