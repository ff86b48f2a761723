"""What both HTTP providers share: :class:`HttpProvider` (its options, the client, the one POST
of an attempt, the tool-JSON cache, ``capabilities``, ``stream``). A wire module writes ``body``,
``_encode_tools`` and ``_parse``, and nothing else of the plumbing. Every failure of an attempt
leaves as an exception of :mod:`orkas_nb.core.errors` (the mapping: :mod:`.http_errors`).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import AsyncIterator
from typing import Any, ClassVar, TypedDict

import httpx

from ..core.errors import ProviderError, RequestError, StreamTruncatedError, TransientError
from ..core.messages import ToolCallBlock
from .base import ModelRequest, ProviderCapabilities, StreamEvent, StreamingProvider, ToolSpec
from .catalog import Catalog
from .http_errors import error_from_exception, error_from_status, raise_for_status
from .pool import DEFAULT_TIMEOUT, POOL, client_key, make_client  # noqa: F401  (make_client: re-exported)
from .sampling import SamplingRefusals


def dumps(obj: Any) -> str:
    """Compact JSON as both wires send it (non-ASCII kept as is)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def tool_call_block(call_id: str, name: str, raw: str) -> ToolCallBlock:
    """A streamed tool call from its argument text: parsed when it is a JSON object, else kept
    raw (the runner answers unparseable arguments with an error result, SPEC §3.1)."""
    try:
        args = json.loads(raw) if raw.strip() else {}
    except ValueError:
        args = None
    if isinstance(args, dict):
        return ToolCallBlock(id=call_id, name=name, arguments=args)
    return ToolCallBlock(id=call_id, name=name, raw_arguments=raw)


class HttpOptions(TypedDict, total=False):
    """The options every HTTP provider takes (keywords of its constructor).

    ``id`` and ``base_url`` default to the class's own; ``headers`` go on every request after
    the class's ``base_headers``; ``extra_body`` adds wire fields to every request body.
    """

    id: str
    base_url: str
    token_source: Any
    client: httpx.AsyncClient | None
    catalog: Catalog | None
    default_model: str | None
    timeout: httpx.Timeout | float | None
    headers: dict[str, str] | None
    extra_body: dict[str, Any] | None


class HttpProvider(StreamingProvider):
    """Shared plumbing of the HTTP providers: base URL, credentials, the one POST of an attempt.

    ``client`` is the test seam (aim it at a loopback server, or give it a transport), used as
    given on whatever loop the caller runs. A provider made without one takes the running
    loop's client for its endpoint from the process-wide :data:`~orkas_nb.providers.pool.POOL`
    at its first request, so making a provider costs no client, and providers of one endpoint
    share connections. Credentials and ``headers`` go on each request, never on the client.

    A subclass names its wire in class attributes (``id``, ``default_base_url``, ``stream_path``,
    ``models_path``, ``base_headers``, ``images_in_tool_results``) and writes ``body``,
    ``_encode_tools`` and ``_parse``.
    """

    id: str = "http"
    default_base_url: ClassVar[str] = ""
    stream_path: ClassVar[str] = ""
    models_path: ClassVar[str] = "/models"
    base_headers: ClassVar[dict[str, str]] = {}
    images_in_tool_results: ClassVar[bool] = True

    def __init__(
        self,
        *,
        id: str | None = None,
        base_url: str | None = None,
        token_source: Any = None,
        client: httpx.AsyncClient | None = None,
        catalog: Catalog | None = None,
        default_model: str | None = None,
        timeout: httpx.Timeout | float | None = None,
        headers: dict[str, str] | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        if id is not None:
            self.id = id
        self.base_url = (base_url if base_url is not None else self.default_base_url).rstrip("/")
        self.token_source = token_source
        self._client = client
        self._pool_key = client_key(self.base_url, timeout) if client is None else None
        # (loop, pool epoch, client) of the last request: the pool is asked again on another loop
        self._bound: tuple[weakref.ref[asyncio.AbstractEventLoop], int, httpx.AsyncClient] | None = None
        self.extra_headers = {**self.base_headers, **(headers or {})}
        self.default_model = default_model
        self.catalog = catalog or Catalog()
        self.extra_body = dict(extra_body or {})
        self._urls: dict[str, httpx.URL] = {}
        self._tools_key: tuple[int, ...] | None = None
        self._tools_ref: list[ToolSpec] | None = None
        self._tools_json = ""
        self._sampling = SamplingRefusals(self.id)

    def capabilities(self, model: str) -> ProviderCapabilities:
        return ProviderCapabilities(
            images_in_tool_results=self.images_in_tool_results,
            context_window=self.catalog.get(model).context_window,
        )

    def secrets(self) -> list[str]:
        """Values a cassette must never contain."""
        key = getattr(self.token_source, "key", None)
        return [key] if key else []

    def _auth(self, token: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {token}"} if token else {}

    async def _token(self) -> str | None:
        return await self.token_source.token() if self.token_source is not None else None

    def _url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _parsed_url(self, path: str) -> httpx.URL:
        # httpx parses a string URL on every request (~25 us); a run sends the same few.
        text = self._url(path)
        url = self._urls.get(text)
        if url is None:
            url = self._urls[text] = httpx.URL(text)
        return url

    @property
    def client(self) -> httpx.AsyncClient:
        """The client for this request: the given one, or the running loop's pooled one."""
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        bound = self._bound
        if bound is not None and bound[0]() is loop and bound[1] == POOL.epoch and not bound[2].is_closed:
            return bound[2]
        client = POOL.client(self._pool_key)  # type: ignore[arg-type]
        self._bound = (weakref.ref(loop), POOL.epoch, client)
        return client

    async def aclose(self) -> None:
        """Release this provider. A pooled client stays open for the other providers of its
        endpoint (the pool closes it with its loop); a client passed in is the caller's."""
        self._bound = None

    async def _send(self, method: str, path: str, body: bytes | None, *, stream: bool) -> httpx.Response:
        """One request; a rejected refreshable token is refreshed once and the request re-sent."""
        refreshed = False
        token = await self._token()
        client = self.client
        while True:
            headers = {**self.extra_headers, **self._auth(token)}
            if body is not None:
                headers["content-type"] = "application/json"
            if stream:
                headers["accept"] = "text/event-stream"
            request = client.build_request(method, self._parsed_url(path), content=body, headers=headers)
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:
                raise error_from_exception(exc, self.id) from exc
            if (
                response.status_code == 401
                and not refreshed
                and getattr(self.token_source, "refreshable", False)
            ):
                await response.aclose()
                refreshed = True
                token = await self.token_source.refresh()
                continue
            return response

    async def _check(self, response: httpx.Response, *, stream: bool) -> None:
        try:
            if stream:
                await raise_for_status(response, self.id)
            elif response.status_code >= 400:
                body = (await response.aread()).decode("utf-8", "replace")
                raise error_from_status(response.status_code, body, response.headers, self.id)
        except httpx.HTTPError as exc:
            raise error_from_exception(exc, self.id) from exc

    async def validate_auth(self) -> None:
        """List models with the credentials: an AccountError if they are refused."""
        response = await self._send("GET", self.models_path, None, stream=False)
        try:
            await self._check(response, stream=False)
        finally:
            await response.aclose()

    # -- the wire: what a subclass writes ---------------------------------------------------------

    def body(self, request: ModelRequest) -> bytes:
        """The request body of ``request`` on this wire."""
        raise NotImplementedError

    def _encode_tools(self, tools: list[ToolSpec]) -> str:
        """The tools as this wire's JSON array."""
        raise NotImplementedError

    def _parse(self, response: httpx.Response, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The events of a checked streaming response, ending with StreamDone."""
        raise NotImplementedError

    # -- what the wires share ----------------------------------------------------------------------

    def _tools(self, tools: list[ToolSpec]) -> str:
        """The tools' JSON, encoded again only when the list changes (a run sends the same one)."""
        key = tuple(map(id, tools))
        if key != self._tools_key:
            self._tools_ref = tools  # keeps the ids valid while they key the cache
            self._tools_key = key
            self._tools_json = self._encode_tools(tools)
        return self._tools_json

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        response, request = await self._open(self._sampling.apply(request))
        try:
            async for event in self._parse(response, request):
                yield event
        finally:
            await response.aclose()

    async def _open(self, request: ModelRequest) -> tuple[httpx.Response, ModelRequest]:
        """The checked stream and the request it answers (without what the model refuses)."""
        response = await self._send("POST", self.stream_path, self.body(request), stream=True)
        try:
            await self._check(response, stream=True)
        except BaseException as exc:
            await response.aclose()
            lighter = self._sampling.after(exc, request) if isinstance(exc, RequestError) else None
            if lighter is None:
                raise
            return await self._open(lighter)  # sent again, before any event (:mod:`.sampling`)
        return response, request

    def _malformed(self, data: str) -> TransientError:
        """A stream event that is not the wire's JSON."""
        return TransientError(f"{self.id}: malformed stream event: {data[:200]!r}", provider=self.id)

    def _truncated(self, what: str) -> StreamTruncatedError:
        """The stream ended without ``what`` (its terminal event): the response was cut."""
        return StreamTruncatedError(
            f"{self.id}: the stream ended without {what}; the response was cut", provider=self.id
        )

    def _cut(self, exc: httpx.HTTPError, produced: bool, end: str) -> ProviderError:
        """A transport failure while reading a stream: once content was produced, the response
        was cut short (``end`` names what never came); before that, the failure itself."""
        error = error_from_exception(exc, self.id)
        return self._truncated(f"{end} ({error})") if produced else error
