"""A loopback model server speaking the OpenAI and Anthropic wire formats, for tests.

It answers ``POST /v1/chat/completions`` (OpenAI Chat Completions) and ``POST /v1/messages``
(Anthropic Messages) with the byte layout the real services document: ``text/event-stream``
over chunked HTTP/1.1, OpenAI ``chat.completion.chunk`` objects ending in ``data: [DONE]``,
Anthropic named events from ``message_start`` to ``message_stop`` with ``ping``s, and each
service's own error bodies. ``GET /v1/models`` answers both formats (``validate_auth``).

It is as strict as the real services: another path is a 404; a missing credential (OpenAI's
``Authorization: Bearer``, Anthropic's ``x-api-key`` or a bearer token) or one outside
``api_keys`` is a 401; Anthropic requires ``anthropic-version``; the body must be JSON and pass
:mod:`tests.fakes.checks` (the SDKs' request types, unknown keys refused, tool-call pairing) or it
is a 400 in the service's error shape, kept in ``server.rejected``. A request without
``stream: true`` gets one JSON object, as from the real API, so a provider that forgot to ask for a
stream fails on its own stream parser (the faults that cut, stall or garble a stream answer as
a stream whatever was asked). ``ModelServer(compatible=True)`` reads requests as llama.cpp,
vLLM or Ollama do: no key needed, their documented extensions accepted.

Each POST consumes the next step of a script (or asks a callable), so a test says exactly what
the "model" does, including faults::

    from tests.fakes.model_server import ModelServer, Reply, ToolCall, Fault

    with ModelServer() as server:
        server.push(Fault.status(429, retry_after=0), Reply(text="hi"))
        provider = OpenAIChatProvider(base_url=server.openai_url, token_source=StaticKey("k"))
        ...
        assert server.count("/v1/chat/completions") == 2

Faults: ``Fault.status(code, ...)`` (the wire's real error shape: 429 with or without
``retry-after``, 401, 400 context overflow, 500, 529/503 overloaded), ``Fault.reset()``
(connection reset before the first byte), ``Fault.cut(text)`` (some text, then the connection
drops mid-stream; ``framing="close"`` makes the cut look like a clean end of body),
``Fault.malformed()`` (a ``data:`` line that is not JSON), ``Fault.stall(seconds)`` (headers,
then silence past the client's read timeout), ``Fault.raw(bytes)``.

The server runs in a thread (``ModelServer().start()``) or, for benchmarks that must not count
its CPU as the client's, in a subprocess: ``python -m tests.fakes.model_server`` prints its
URL and plays :func:`loop_script` (for model ``loop-N``: N tool-call steps, then 20 text deltas).
The pytest fixture is ``tests.fakes.fixtures.model_server``; import it into a conftest with
``from tests.fakes.fixtures import model_server  # noqa: F401``.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .checks import ANTHROPIC_VERSIONS, Rejected, check_anthropic, check_openai, warm
from .sampling import check_sampling
from .wire import (
    REASONS,
    Fault,
    Reply,
    Step,
    ToolCall,
    anthropic_events,
    anthropic_message,
    error_body,
    error_json,
    loop_script,
    openai_completion,
    openai_events,
)

__all__ = ["Fault", "ModelServer", "Rejected", "Reply", "SeenRequest", "ToolCall", "loop_script"]


@dataclass
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


# -- the server ----------------------------------------------------------------------------------

_ROUTES = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}
_NO_KEY = ("You didn't provide an API key. You need to provide your API key in an Authorization header "
           "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
_BAD_JSON = ("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
             "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)")


def _guess_wire(headers: dict[str, str]) -> str:
    return "anthropic" if "x-api-key" in headers or "anthropic-version" in headers else "openai"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Stream each event at once, as real servers do; with Nagle on, small writes on a
        # kept-alive connection wait for the client's delayed ACK (40 ms a request).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _seen(self, method: str, body: bytes = b"") -> SeenRequest:
        seen = SeenRequest(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        self.server.owner._record(seen)
        return seen

    def _not_found(self, seen: SeenRequest) -> None:
        wire = _guess_wire(seen.headers)
        if wire == "anthropic":
            return self._send_json(404, error_json(wire, "Not Found", etype="not_found_error"))
        self._send_json(404, error_json(wire, f"Invalid URL ({seen.method} {seen.path})"))

    def do_GET(self) -> None:
        owner = self.server.owner
        seen = self._seen("GET")
        wire = _guess_wire(seen.headers)
        path = self.path.partition("?")[0]
        if not (path == "/v1/models" or path.startswith("/v1/models/") or (owner.compatible and path == "/models")):
            return self._not_found(seen)
        refusal = owner._refusal(seen, wire)
        if refusal is not None:
            return self._send_json(refusal.status, self._error_body(wire, refusal))
        data = {"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model", "created": 1,
                                            "owned_by": "system"}]}
        if wire == "anthropic":
            data = {"data": [{"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude",
                              "created_at": "2025-09-29T00:00:00Z"}],
                    "has_more": False, "first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5"}
        self._send_json(200, json.dumps(data).encode())

    def do_POST(self) -> None:
        owner = self.server.owner
        seen = self._seen("POST", self._body())
        wire = _ROUTES.get(self.path.partition("?")[0])
        if wire is None:
            return self._not_found(seen)
        refusal = owner._refusal(seen, wire)
        if refusal is None:
            try:
                payload = owner._checked(seen, wire)
            except Rejected as exc:
                refusal = exc
        if refusal is not None:
            with owner._lock:
                owner.rejected.append(refusal)
            return self._send_json(refusal.status, self._error_body(wire, refusal))
        step = owner._next_step(payload)
        if isinstance(step, Fault):
            return self._fault(step, wire, payload)
        model, counter = payload.get("model", "model"), owner._counter()
        if payload.get("stream") is not True:  # the real APIs answer one JSON object then
            render = anthropic_message if wire == "anthropic" else openai_completion
            return self._send_json(200, render(step, model, counter))
        self._stream(wire, step, model, counter)

    @staticmethod
    def _error_body(wire: str, refusal: Rejected) -> bytes:
        return error_json(wire, refusal.message, etype=refusal.etype, param=refusal.param, code=refusal.code)

    # -- responses --

    def _send_json(self, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status, REASONS.get(status))
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _start_stream(self, framing: str) -> None:
        self.send_response(200, "OK")
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        if framing == "chunked":
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()

    def _write(self, data: bytes, framing: str) -> None:
        if framing == "chunked":
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        else:
            self.wfile.write(data)
        self.wfile.flush()

    def _stream(self, wire: str, reply: Reply, model: str, counter: int) -> None:
        events = anthropic_events(reply, model, counter) if wire == "anthropic" else openai_events(reply, model, counter)
        self._start_stream(reply.framing)
        for event in events:
            self._write(event, reply.framing)
        if reply.framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def _reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def _fault(self, fault: Fault, wire: str, payload: dict) -> None:
        if fault.kind == "status":
            extra = {"retry-after": fault.retry_after} if fault.retry_after is not None else {}
            extra["x-request-id"] = "req_fake"
            body = fault.body.encode() if fault.body is not None else error_body(wire, fault.code)
            return self._send_json(fault.code, body, extra)
        if fault.kind == "reset":
            return self._reset()
        if fault.kind == "raw":
            self.wfile.write(fault.data)
            self.wfile.flush()
            self.close_connection = True
            return
        self._start_stream(fault.framing)
        model = payload.get("model", "model")
        if fault.kind == "stall":
            time.sleep(fault.seconds)
            self.close_connection = True
            return
        reply = Reply(text=fault.text or "x", text_chunks=2)
        events = anthropic_events(reply, model, 0) if wire == "anthropic" else openai_events(reply, model, 0)
        if fault.kind == "cut":
            keep = 4 if wire == "anthropic" else 2  # through the first text delta
            for event in events[:keep]:
                self._write(event, fault.framing)
            if fault.framing == "chunked":
                self._reset()  # the chunked body never gets its last chunk
            else:
                self.close_connection = True
            return
        if fault.kind == "malformed":
            keep = 4 if (wire == "anthropic" and fault.text) else (1 if wire == "anthropic" else (3 if fault.text else 1))
            for event in events[:keep]:
                self._write(event, fault.framing)
            bad = b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"ind\n\n" \
                if wire == "anthropic" else b"data: {\"id\":\"chatcmpl-x\",\"choices\":[{\"delta\":{\"cont\n\n"
            self._write(bad, fault.framing)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that time out or reset on purpose are part of the tests


class ModelServer:
    """The scripted loopback server; see the module docstring."""

    def __init__(self, script: Callable[[dict], Step] | None = None, *, api_keys: set[str] | None = None,
                 compatible: bool = False, host: str = "127.0.0.1", port: int = 0) -> None:
        warm()  # the SDK request types, built before the first request waits on them
        self._steps: deque[Step] = deque()
        self.script = script
        self.api_keys = api_keys  # None: any key is accepted, but one must be sent (unless compatible)
        self.compatible = compatible
        self.requests: list[SeenRequest] = []
        self.rejected: list[Rejected] = []  # the requests answered 4xx by the checks, in order
        self._lock = threading.Lock()
        self._n = 0
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        return self.url

    def push(self, *steps: Step) -> ModelServer:
        with self._lock:
            self._steps.extend(steps)
        return self

    def count(self, path: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if path is None or r.path == path)

    def posts(self) -> list[SeenRequest]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def _record(self, seen: SeenRequest) -> None:
        with self._lock:
            self.requests.append(seen)

    def _counter(self) -> int:
        with self._lock:
            self._n += 1
            return self._n

    def _refusal(self, seen: SeenRequest, wire: str) -> Rejected | None:
        """A 401 in the wire's words for a missing or unknown credential, or None.

        OpenAI reads ``Authorization: Bearer``; Anthropic reads ``x-api-key``, else a bearer token
        (OAuth, and the 2.x SDKs). A compatible server (llama.cpp without ``--api-key``, Ollama)
        takes any credential or none, unless ``api_keys`` is set.
        """
        auth = seen.headers.get("authorization", "")
        bearer = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        key = (seen.headers.get("x-api-key") or bearer) if wire == "anthropic" else bearer
        if self.compatible and self.api_keys is None:
            return None
        if not key:
            if wire == "anthropic":
                return Rejected("x-api-key header is required", status=401, etype="authentication_error")
            return Rejected(_NO_KEY, status=401)
        if self.api_keys is not None and key not in self.api_keys:
            if wire == "anthropic":
                return Rejected("invalid x-api-key", status=401, etype="authentication_error")
            return Rejected(f"Incorrect API key provided: {key[:3]}***. You can find your API key at the "
                            "dashboard.", status=401, code="invalid_api_key")
        return None

    def _checked(self, seen: SeenRequest, wire: str) -> dict[str, Any]:
        """The request's JSON body, checked as the real service checks it (:mod:`.checks`)."""
        version = seen.headers.get("anthropic-version")
        if wire == "anthropic" and not self.compatible:
            if version is None:
                raise Rejected("anthropic-version: header is required")
            if version not in ANTHROPIC_VERSIONS:
                raise Rejected(f"anthropic-version: invalid version {version!r}")
        ctype = seen.headers.get("content-type", "").partition(";")[0].strip().lower()
        try:
            if ctype != "application/json":
                raise ValueError(ctype)
            payload = json.loads(seen.body)
        except ValueError:
            raise Rejected(_BAD_JSON if wire == "openai" else "Invalid JSON in request body") from None
        if wire == "anthropic":
            check_anthropic(payload, version=version or "2023-06-01", compatible=self.compatible)
        else:
            check_openai(payload, compatible=self.compatible)
        if not self.compatible:
            check_sampling(wire, payload)
        return payload

    def _next_step(self, payload: dict) -> Step:
        with self._lock:
            if self._steps:
                return self._steps.popleft()
        if self.script is not None:
            return self.script(payload)
        return Fault.status(500, body=json.dumps({"error": {"message": "the test server's script is empty",
                                                            "type": "server_error"}}))

    def start(self) -> ModelServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Serve the scripted model on loopback (benchmarks).")
    parser.add_argument("--loop", type=int, default=None,
                        help="tool-call steps before the text answer (default: from the model name, loop-N)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--compatible", action="store_true",
                        help="read requests as OpenAI-compatible servers do (no key needed, their extensions)")
    args = parser.parse_args()
    server = ModelServer(loop_script(args.loop), port=args.port, compatible=args.compatible)
    print(server.url, flush=True)
    server._httpd.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
