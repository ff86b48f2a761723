"""Embedders: the OpenAI-compatible client over real loopback HTTP, and the local ONNX MiniLM."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from orkas_nb.core.errors import ConfigError
from orkas_nb.memory.embedders import EmbeddingError, HttpEmbedder, OnnxMiniLM
from orkas_nb.providers.registry import openai_compatible_endpoint


class _Handler(BaseHTTPRequestHandler):
    mode = "ok"
    requests: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        if self.mode == "error":
            self._send(500, {"error": {"message": "model not loaded"}})
            return
        if self.mode == "garbage":
            self._send(200, {"unexpected": True})
            return
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, float(i)]}
            for i, t in enumerate(body["input"])
        ]
        if self.mode == "short":
            data = data[:-1]
        data.reverse()  # servers may answer out of order; "index" says where each goes
        self._send(200, {"object": "list", "data": data, "model": body["model"]})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.mode = "ok"
    _Handler.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_http_embedder_batches_orders_and_normalises(server: str) -> None:
    emb = HttpEmbedder("nomic-embed-text", base_url=server, api_key="k", batch_size=2)
    out = emb.embed(["a", "bbb", "cc"])
    assert out.shape == (3, 3)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)
    raw = np.array([[1, 1, 0], [3, 1, 1], [2, 1, 0]], dtype=np.float32)
    assert np.allclose(out, raw / np.linalg.norm(raw, axis=1, keepdims=True))
    assert [r["body"]["input"] for r in _Handler.requests] == [["a", "bbb"], ["cc"]]
    assert _Handler.requests[0]["path"] == "/v1/embeddings"
    assert _Handler.requests[0]["auth"] == "Bearer k"
    assert emb.id.endswith(":nomic-embed-text")


@pytest.mark.parametrize(
    ("mode", "message"),
    [("error", "answered 500"), ("garbage", "unexpected body"), ("short", "asked for 2")],
)
def test_http_embedder_errors_are_clear(server: str, mode: str, message: str) -> None:
    _Handler.mode = mode
    with pytest.raises(EmbeddingError, match=message):
        HttpEmbedder("m", base_url=server).embed(["x", "y"])


def test_http_embedder_unreachable_server() -> None:
    with pytest.raises(EmbeddingError, match="unreachable"):
        HttpEmbedder("m", base_url="http://127.0.0.1:9/v1", timeout=2).embed(["x"])


def test_kb_with_http_embedder(server: str, workspace) -> None:  # type: ignore[no-untyped-def]
    from orkas_nb.memory.kb import KnowledgeBase

    (workspace / "a.txt").write_text("hello\n")
    kb = KnowledgeBase.open(workspace, embedder=HttpEmbedder("m", base_url=server))
    assert kb.add("a.txt").embedded == 1
    assert kb.search("hello", mode="vector")[0].path == "a.txt"
    kb.close()


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLM:
    return OnnxMiniLM()


def test_minilm_vectors(minilm: OnnxMiniLM) -> None:
    texts = [
        "How do I deploy the service?",
        "Steps to deploy the app to production.",
        "My cat sleeps all afternoon.",
    ]
    v = minilm.embed(texts)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > 0.5 > v[0] @ v[2]


def test_minilm_padding_and_order_do_not_change_a_vector(minilm: OnnxMiniLM) -> None:
    short = "wing flutter at transonic speed"
    alone = minilm.embed([short])[0]
    batched = minilm.embed(["a much longer sentence " * 20, short, "x"])
    assert np.allclose(batched[1], alone, atol=1e-4)  # mean pooling ignores padding


def test_minilm_truncates_at_256_tokens(minilm: OnnxMiniLM) -> None:
    minilm._load()
    enc = minilm._tokenizer.encode("word " * 1000)
    assert len(enc.ids) == 256  # not the file's fixed 128
    base = "boundary layer transition " * 60  # ~180 tokens: all of it counts
    assert not np.allclose(minilm.embed([base])[0], minilm.embed([base + "shock " * 30])[0])
    long = "word " * 300  # past 256: the tail is cut
    assert np.allclose(minilm.embed([long])[0], minilm.embed([long + "other text"])[0], atol=1e-5)


def test_minilm_missing_files_are_a_config_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="model.onnx"):
        OnnxMiniLM(model_path=tmp_path / "nope.onnx")
    with pytest.raises(ConfigError, match="tokenizer"):
        OnnxMiniLM(tokenizer_path=tmp_path / "nope.json")


# -- choosing the embedder by a setting (Agent.kb_embedder) ----------------------------------


def test_settings_name_the_embedder(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from orkas_nb.memory.embedder_choice import embedder_from_spec

    assert embedder_from_spec("none") is None
    monkeypatch.setenv("OLLAMA_BASE_URL", server)
    lookup = openai_compatible_endpoint
    ollama = embedder_from_spec("ollama/nomic-embed-text:latest", lookup)
    assert isinstance(ollama, HttpEmbedder)
    assert (ollama.base_url, ollama.model, ollama.api_key) == (server, "nomic-embed-text:latest", "")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    openai = embedder_from_spec("openai/text-embedding-3-small", lookup)
    assert isinstance(openai, HttpEmbedder) and openai.api_key == "sk-test-key"
    for bad in ("nope/model", "ollama/", "just-a-name"):
        with pytest.raises(ConfigError):
            embedder_from_spec(bad, lookup)


def test_a_server_setting_without_an_endpoint_lookup_says_what_is_missing() -> None:
    """memory does not import the providers (SPEC §2): the caller hands in how servers are found."""
    from orkas_nb.memory.embedder_choice import embedder_from_spec

    with pytest.raises(ConfigError, match="no endpoint lookup"):
        embedder_from_spec("ollama/nomic-embed-text")
    assert embedder_from_spec("none") is None  # no server, no lookup needed


def test_a_base_built_with_a_server_gets_it_back_in_a_new_process(
        server: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The setting is kept in the base: a later process (a restarted kernel) embeds queries with
    the same server instead of silently falling back to full text."""
    from orkas_nb import memory

    lookup = openai_compatible_endpoint
    monkeypatch.setenv("OLLAMA_BASE_URL", server)
    (tmp_path / "a.txt").write_text("hello world\n")
    kb = memory.knowledge_base_for(tmp_path, "ollama/emb-model", endpoints=lookup)
    assert kb.add("a.txt").embedded == 1
    kb.close()
    memory._OPEN.clear()  # what a new process starts with
    again = memory.knowledge_base_for(tmp_path, endpoints=lookup)  # auto: the base's own embedder
    assert isinstance(again.embedder, HttpEmbedder) and again.embedder.model == "emb-model"
    _Handler.requests.clear()
    assert again.search("hello", mode="vector")[0].path == "a.txt"
    assert _Handler.requests and _Handler.requests[0]["body"]["input"] == ["hello"]
    # "none": full text only, and the vectors stay for later
    assert memory.knowledge_base_for(tmp_path, "none").embedder is None
    assert again.store.meta("embedder") == "http:" + server + ":emb-model"
    again.close()
    memory._OPEN.clear()
    # the server's address gone from the environment: full text, no error
    monkeypatch.delenv("OLLAMA_BASE_URL")
    monkeypatch.setattr("orkas_nb.providers.registry.BUILTIN_ENDPOINTS", {})
    fallback = memory.knowledge_base_for(tmp_path, endpoints=lookup)
    assert fallback.embedder is None and fallback.search("hello")[0].path == "a.txt"
    fallback.close()
    memory._OPEN.clear()


def test_http_embedders_share_one_client_per_settings(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A client per call cost a new SSL context and a new connection on every knowledge-base search.
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    shared = HttpEmbedder("m", base_url="http://127.0.0.1:9/v1")._client()
    assert HttpEmbedder("n")._client() is shared
    assert HttpEmbedder("m", timeout=5)._client() is not shared
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")  # httpx reads it when it builds a client
    assert HttpEmbedder("m")._client() is not shared
