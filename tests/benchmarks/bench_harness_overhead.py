"""Harness overhead: client CPU per model request in an N-step tool loop, against a bare loop.

One loopback OpenAI-compatible server (``tests/fakes/model_server.py``, in its own process so
its CPU is not counted) streams a scripted loop: N steps, each one tool call whose arguments
arrive in 4 deltas, then a last step of 20 text deltas. Each client runs in its own process:

    bare           a hand-written httpx SSE loop (the floor)
    orkas          orkas_nb.Agent, default configuration: session on disk, default tools
    pydantic_ai    pydantic-ai's Agent over OpenAIChatModel, streamed (run_stream_events)
    openai_agents  the OpenAI Agents SDK, Runner.run_streamed over chat completions

Measured per N: client CPU (user+sys, ``time.process_time``) for the whole run divided by the
model requests it made (median over --repeat runs, and at least enough runs for MIN_REQUESTS
requests, so N = 1 is not judged on six requests; after a warm-up run). In these columns each
run makes a new agent object over a reused provider / HTTP client, and its construction is not
counted. The "new N=" columns (``--fresh``, default N = 0: a one-request answer) count a whole
new agent per run, construction included, built the way a script with an agent per
conversation writes it: orkas_nb and pydantic-ai from their model settings (base URL and key;
orkas_nb's providers take pooled clients, pydantic-ai 2.68's provider makes its own), the
Agents SDK over its one shared client (``set_default_openai_client`` style), the bare loop with
a new ``httpx.AsyncClient`` per run (what an unshared client costs); their floor is the bare
loop reusing its client at that N. The clients take turns over --rounds rounds (each a share of
the runs), so the machine's speed drifting during the run falls on the floor and the frameworks
alike. Also: time to the first text delta of a one-request text answer (median of 10); peak
RSS of the client process. The third-party frameworks are not project dependencies: install them in a separate
environment and pass its interpreter with ``--python`` (a framework that cannot be imported
is reported as such). The machine is small and shared: figures are noisy; compare ratios
measured in the same run.

    python tests/benchmarks/bench_harness_overhead.py [--n 1,10,50,100] [--fresh 0] [--repeat 3]
        [--rounds 3] [--python /path/to/venv/bin/python] [--only bare,orkas]
        [--compare-tree REVISION_OR_PATH]

``--compare-tree`` measures orkas_nb from another tree in the same run (issue 14: the harness
after a restructuring within 5% of the tree before): a git revision (its ``orkas_nb/`` is
exported with ``git archive`` into a temporary folder, removed afterwards) or the path of a
checkout. Each orkas_nb client of ``--only`` then also runs, with the same workload from this
file, in a process whose ``PYTHONPATH`` is that tree (the worker checks which orkas_nb it
imported); the two trees alternate within every round, the order flipping from round to round,
so the machine's load falls on both alike. The report adds, per N, this tree's CPU per request
over the other's (medians over all samples) and the range of the per-round ratios (the spread).
The workload uses only API both trees have: ``Agent(provider, model_name=..., workspace=...,
session=..., tools=..., system_prompt=...)``, ``Agent.run`` events, ``Runner`` for the breakdown.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PROMPT = "Read the notes one by one, then summarise."
SYSTEM = "You are a benchmark agent."
TOOL_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def lookup(path: str) -> str:
    """Describe a file."""
    return f"{path}: 3 lines of notes"


# -- clients: each returns (model requests made, seconds to first text delta or None) ---------

async def run_bare(url: str, model: str, state: dict[str, Any]) -> tuple[int, float | None]:
    import httpx

    if state.get("fresh"):
        async with httpx.AsyncClient(timeout=60) as client:
            return await _bare_loop(client, url, model)
    client = state.get("client") or httpx.AsyncClient(timeout=60)
    state["client"] = client
    return await _bare_loop(client, url, model)


async def _bare_loop(client: Any, url: str, model: str) -> tuple[int, float | None]:
    tools = [{"type": "function", "function": {"name": "lookup", "description": "Describe a file.",
                                               "parameters": TOOL_SCHEMA}}]
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}]
    start, first, requests = time.perf_counter(), None, 0
    while True:
        body = {"model": model, "stream": True, "messages": messages, "tools": tools}
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        requests += 1
        async with client.stream("POST", f"{url}/v1/chat/completions", json=body,
                                 headers={"authorization": "Bearer sk-bench"}) as response:
            async for line in response.aiter_lines():  # to the end, so the connection is reused
                if not line.startswith("data: "):
                    continue
                data = line[6:]
                if data == "[DONE]":
                    continue
                for choice in json.loads(data).get("choices") or ():
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        if first is None:
                            first = time.perf_counter() - start
                        text.append(delta["content"])
                    for tc in delta.get("tool_calls") or ():
                        entry = calls.setdefault(tc["index"], {"id": tc.get("id"), "name": "", "args": ""})
                        fn = tc.get("function") or {}
                        entry["name"] += fn.get("name") or ""
                        entry["args"] += fn.get("arguments") or ""
        if not calls:
            return requests, first
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
            for c in calls.values()]})
        for c in calls.values():
            messages.append({"role": "tool", "tool_call_id": c["id"],
                             "content": lookup(**json.loads(c["args"]))})


def _orkas_setup(url: str, state: dict[str, Any]) -> Path:
    """The run's workspace, counted runs, and one provider for all runs (as the other clients
    keep their clients)."""
    from orkas_nb.providers.registry import resolve_model

    if "workspace" not in state:  # one folder for all runs (setdefault would make one per run)
        state["workspace"] = tempfile.mkdtemp(prefix="orkas-bench-")
    workspace = Path(state["workspace"])
    state["runs"] = state.get("runs", 0) + 1
    if "provider" not in state:
        state["provider"] = resolve_model("openai/loop-0", base_url=f"{url}/v1", api_key="sk-bench")[0]
    return workspace


async def _drain(events: Any) -> tuple[Any, float | None]:
    """An orkas event stream to its end: (the RunResult, seconds to the first text delta)."""
    start, first, result = time.perf_counter(), None, None
    async for event in events:
        if event.type == "text_delta" and first is None:
            first = time.perf_counter() - start
        elif event.type == "done":
            result = event.result
    return result, first


async def run_orkas(url: str, model: str, state: dict[str, Any]) -> tuple[int, float | None]:
    from orkas_nb import Agent, tool  # the facade: the same in every tree --compare-tree meets

    workspace = _orkas_setup(url, state)
    session = f"bench-{state['runs']}"
    if state.get("fresh"):  # everything from the model string, as a script that makes agents does
        agent = Agent(f"openai/{model}", base_url=f"{url}/v1", api_key="sk-bench", workspace=workspace,
                      session=session, tools=[tool(lookup)], system_prompt=SYSTEM)
    else:
        agent = Agent(state["provider"], model_name=model, workspace=workspace, session=session,
                      tools=[tool(lookup)], system_prompt=SYSTEM)
        state["t0"] = time.process_time()
    result, first = await _drain(agent.run(PROMPT))
    agent.close()
    if result is None or result.stop_reason != "end_turn":
        raise RuntimeError(f"orkas run did not end cleanly: {result}")
    return result.stats.model_requests, first


async def run_pydantic_ai(url: str, model: str, state: dict[str, Any]) -> tuple[int, float | None]:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    fresh = state.get("fresh")
    provider = None if fresh else state.get("provider")
    provider = provider or OpenAIProvider(base_url=f"{url}/v1", api_key="sk-bench")
    if not fresh:
        state["provider"] = provider
    agent = Agent(OpenAIChatModel(model, provider=provider), tools=[lookup], system_prompt=SYSTEM)
    start, first, requests = time.perf_counter(), None, 0
    if not fresh:
        state["t0"] = time.process_time()
    from pydantic_ai.usage import UsageLimits

    async with agent.run_stream_events(PROMPT, usage_limits=UsageLimits(request_limit=None)) as events:
        async for event in events:
            name = type(event).__name__
            if first is None and name in ("PartDeltaEvent", "PartStartEvent"):
                part = getattr(event, "delta", None) or getattr(event, "part", None)
                if type(part).__name__ in ("TextPartDelta", "TextPart") and (
                        getattr(part, "content_delta", None) or getattr(part, "content", None)):
                    first = time.perf_counter() - start
            if name == "AgentRunResultEvent":
                requests = sum(1 for m in event.result.all_messages() if type(m).__name__ == "ModelResponse")
    return requests, first


async def run_openai_agents(url: str, model: str, state: dict[str, Any]) -> tuple[int, float | None]:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    client = state.get("client") or AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-bench", max_retries=0)
    state["client"] = client
    steps = int(model.rsplit("-", 1)[1])
    agent = Agent(name="bench", instructions=SYSTEM, tools=[function_tool(lookup)],
                  model=OpenAIChatCompletionsModel(model=model, openai_client=client))
    start, first = time.perf_counter(), None
    if not state.get("fresh"):
        state["t0"] = time.process_time()
    result = Runner.run_streamed(agent, PROMPT, max_turns=steps + 5)
    async for event in result.stream_events():
        if first is None and event.type == "raw_response_event" and \
                getattr(event.data, "type", "") == "response.output_text.delta":
            first = time.perf_counter() - start
    return len(result.raw_responses), first


# -- breakdown: orkas_nb's layers one at a time, to see what costs what ---------------------

async def run_provider_only(url: str, model: str, state: dict[str, Any]) -> tuple[int, float | None]:
    """orkas_nb's OpenAI provider driven by a hand loop: no runner, no session, no tools layer."""
    from orkas_nb.core.messages import tool_result, user_message
    from orkas_nb.providers.auth import StaticKey
    from orkas_nb.providers.base import ModelRequest, StreamDone, StreamText, ToolSpec
    from orkas_nb.providers.openai_chat import OpenAIChatProvider

    provider = state.get("provider") or OpenAIChatProvider(base_url=f"{url}/v1", token_source=StaticKey("sk-bench"))
    state["provider"] = provider
    tools = [ToolSpec(name="lookup", description="Describe a file.", input_schema=TOOL_SCHEMA)]
    messages: list[Any] = [user_message(PROMPT)]
    start, first, requests = time.perf_counter(), None, 0
    while True:
        requests += 1
        final = None
        async for event in provider.stream(ModelRequest(model=model, system=SYSTEM, messages=messages, tools=tools)):
            if isinstance(event, StreamText) and first is None:
                first = time.perf_counter() - start
            elif isinstance(event, StreamDone):
                final = event.message
        messages.append(final)
        if not final.tool_calls:
            return requests, first
        for call in final.tool_calls:
            messages.append(tool_result(call, lookup(**call.arguments)))


def _runner_variant(*, disk: bool, compaction: bool, default_tools: bool):
    async def run(url: str, model: str, state: dict[str, Any]) -> tuple[int, float | None]:
        # the harness package's exports: its modules were renamed since the tree before issue 14
        from orkas_nb.harness import (
            InMemorySession,
            JsonlSession,
            RunConfig,
            Runner,
            ToolRegistry,
            tool,
        )

        workspace = _orkas_setup(url, state)
        provider, name = state["provider"], model
        registry = ToolRegistry()
        if default_tools:
            from orkas_nb.tools import default_tools as make_defaults

            for t in make_defaults(workspace, services=None):
                registry.add(t)
        registry.add(tool(lookup))
        session = (JsonlSession(workspace / f"s{state['runs']}.jsonl") if disk else InMemorySession())
        runner = Runner(provider, name, tools=registry, session=session, system_prompt=SYSTEM,
                        workspace=workspace, config=RunConfig(compaction=compaction))
        state["t0"] = time.process_time()
        result, first = await _drain(runner.run(PROMPT))
        session.close()
        return result.stats.model_requests, first
    return run


CLIENTS: dict[str, Callable[[str, str, dict[str, Any]], Awaitable[tuple[int, float | None]]]] = {
    "bare": run_bare, "orkas": run_orkas, "pydantic_ai": run_pydantic_ai, "openai_agents": run_openai_agents,
}
BREAKDOWN = {
    "orkas_provider": run_provider_only,
    "runner_memory": _runner_variant(disk=False, compaction=False, default_tools=False),
    "runner_compaction": _runner_variant(disk=False, compaction=True, default_tools=False),
    "runner_disk": _runner_variant(disk=True, compaction=False, default_tools=False),
    "runner_default_tools": _runner_variant(disk=False, compaction=False, default_tools=True),
}
CLIENTS.update(BREAKDOWN)  # run them with --only bare,orkas_provider,runner_memory,...
FRESH = {"bare", "orkas", "pydantic_ai", "openai_agents"}  # the clients with a "new agent" column


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    dist = {"bare": "httpx", "pydantic_ai": "pydantic-ai-slim",
            "openai_agents": "openai-agents"}.get(name, "orkas_nb")
    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


MIN_REQUESTS = 60


async def _per_request(name: str, run: Any, url: str, ns: Sequence[int], repeat: int, min_requests: int,
                       state: dict[str, Any]) -> dict[str, Any]:
    """CPU per model request for each N: the median over the runs, and the samples."""
    per_n: dict[str, Any] = {}
    for n in ns:
        samples = []
        for _ in range(max(repeat, -(-min_requests // (n + 1)))):
            state.pop("t0", None)
            t0 = time.process_time()
            requests, _ = await run(url, f"loop-{n}", state)
            cpu = time.process_time() - state.get("t0", t0)
            if requests != n + 1:
                raise RuntimeError(f"{name} made {requests} model requests for N={n}, expected {n + 1}")
            samples.append(cpu / requests)
        per_n[str(n)] = {"cpu_ms_per_request": round(statistics.median(samples) * 1000, 3),
                         "samples_ms": [round(s * 1000, 3) for s in samples]}
    return per_n


async def worker(name: str, url: str, ns: list[int], repeat: int, min_requests: int,
                 fresh_ns: Sequence[int] = ()) -> dict[str, Any]:
    run = CLIENTS[name]
    state: dict[str, Any] = {}
    await run(url, "loop-1", state)  # warm-up: imports, connections, first-call caches
    per_n = await _per_request(name, run, url, ns, repeat, min_requests, state)
    fresh: dict[str, Any] = {}
    if fresh_ns and name in FRESH:
        state["fresh"] = True
        await run(url, "loop-0", state)  # warm-up of the path that builds everything
        fresh = await _per_request(name, run, url, fresh_ns, repeat, min_requests, state)
        state["fresh"] = False
    ttft = []
    for _ in range(10):
        _, first = await run(url, "loop-0", state)
        if first is not None:
            ttft.append(first)
    orkas_nb = sys.modules.get("orkas_nb")
    return {"framework": name, "version": _version(name), "per_n": per_n, "fresh": fresh,
            "ttft_ms": round(statistics.median(ttft) * 1000, 2) if ttft else None,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "tree": str(Path(orkas_nb.__file__).resolve().parents[1]) if orkas_nb else None}


def _start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.model_server"], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip() if proc.stdout else ""
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit(f"the loopback model server did not start: {url!r}")
    return proc, url


ORKAS_FREE = {"bare", "pydantic_ai", "openai_agents"}  # clients that never import orkas_nb


def _other_tree(spec: str, scratch: Path) -> tuple[Path, str]:
    """(a folder holding the other tree's ``orkas_nb/``, its label) for ``--compare-tree``."""
    path = Path(spec).expanduser()
    if (path / "orkas_nb" / "__init__.py").is_file():
        return path.resolve(), path.name
    rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", f"{spec}^{{commit}}"],
                         capture_output=True, text=True, check=False)
    if rev.returncode != 0:
        raise SystemExit(f"--compare-tree {spec!r} is neither a checkout with orkas_nb/ nor a "
                         f"git revision of {REPO}: {rev.stderr.strip()}")
    label = rev.stdout.strip()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", label, "orkas_nb"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    return scratch, label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="1,10,50,100")
    parser.add_argument("--fresh", default="0",
                        help="N values for the 'new agent per run' columns (empty: none)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3,
                        help="clients take turns this many times, so a drift of the machine's speed "
                             "during the run falls on all of them alike")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with pydantic-ai and openai-agents installed")
    parser.add_argument("--only", default="bare,orkas,pydantic_ai,openai_agents",
                        help="clients to run; the breakdown adds " + ",".join(BREAKDOWN))
    parser.add_argument("--compare-tree", metavar="REVISION_OR_PATH",
                        help="also run the orkas_nb clients from this git revision or checkout, "
                             "interleaved, and report this tree's ratio to it")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--min-requests", type=int, default=MIN_REQUESTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    ns = [int(x) for x in args.n.split(",")]
    fresh_ns = [int(x) for x in args.fresh.split(",") if x.strip()]
    judged, ns = ns, sorted(set(ns) | set(fresh_ns))  # each "new agent" column beside its reused one
    if args.worker:
        print(json.dumps(asyncio.run(worker(args.worker, args.url, ns, args.repeat, args.min_requests,
                                            fresh_ns))))
        return
    with tempfile.TemporaryDirectory(prefix="orkas-bench-tree-") as scratch:
        trees = {"": REPO}  # label suffix -> the folder put on PYTHONPATH
        if args.compare_tree:
            other, label = _other_tree(args.compare_tree, Path(scratch))
            trees[f"@{label}"] = other
        parts = _measure(args, trees)
    results = {label: _merge(p) for label, p in parts.items()}
    _report({label: r for label, r in results.items() if "@" not in label}, ns, fresh_ns, judged)
    if args.compare_tree:
        _report_comparison(parts, results, ns, fresh_ns)


def _measure(args: argparse.Namespace, trees: dict[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Every client's rounds, for each tree: label -> one result per round."""
    rounds = max(1, args.rounds)
    per_round = {"--repeat": str(-(-args.repeat // rounds)), "--min-requests": str(-(-MIN_REQUESTS // rounds))}
    names = args.only.split(",")
    parts: dict[str, list[dict[str, Any]]] = {}
    server, url = _start_server()
    try:
        for round_ in range(rounds):
            for name in names:
                order = list(trees.items()) if name not in ORKAS_FREE else list(trees.items())[:1]
                if round_ % 2:
                    order.reverse()  # which tree goes first flips, so neither always runs warm
                for suffix, tree in order:
                    label = name + suffix
                    done_parts = parts.setdefault(label, [])
                    if done_parts and "error" in done_parts[-1]:
                        continue
                    done_parts.append(_one_round(args, name, url, tree, per_round))
                    print(f"# {label}: round {len(done_parts)} done", file=sys.stderr, flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)
    return parts


def _one_round(args: argparse.Namespace, name: str, url: str, tree: Path,
               per_round: dict[str, str]) -> dict[str, Any]:
    python = args.python if name in ("pydantic_ai", "openai_agents") else sys.executable
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([python, __file__, "--worker", name, "--url", url, "--n", args.n,
                           "--fresh", args.fresh, *(x for kv in per_round.items() for x in kv)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result.get("tree") and Path(result["tree"]) != tree.resolve():
        return {"error": f"imported orkas_nb from {result['tree']}, not from {tree}"}
    return result


def _merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One client's rounds as one result: medians over all their samples."""
    errors = [p for p in parts if "error" in p]
    if errors:
        return errors[0]
    def merged(field: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for n in parts[0].get(field) or {}:
            samples = [s for p in parts for s in p[field][n]["samples_ms"]]
            out[n] = {"cpu_ms_per_request": round(statistics.median(samples), 3), "samples_ms": samples}
        return out

    per_n, fresh = merged("per_n"), merged("fresh")
    ttfts = [p["ttft_ms"] for p in parts if p["ttft_ms"] is not None]
    return {**parts[0], "per_n": per_n, "fresh": fresh, "ttft_ms": round(statistics.median(ttfts), 2) if ttfts else None,
            "peak_rss_mb": max(p["peak_rss_mb"] for p in parts)}


def _report_comparison(parts: dict[str, list[dict[str, Any]]], results: dict[str, dict[str, Any]],
                       ns: list[int], fresh_ns: Sequence[int]) -> None:
    """This tree over the other, per client and N. Each round ran both trees back to back, so
    its ratio (of the two runs' medians) sees one machine load: the figure is the median of the
    rounds' ratios, with their lowest and highest (the spread) and the ratio of the medians of
    all samples pooled."""
    others = [label for label in results if "@" in label]
    if not others:
        return
    tag = others[0].split("@", 1)[1]
    print(f"\nthis tree ({REPO.name}) / {tag}, CPU per request: median of the per-round ratios "
          "[lowest-highest round] pooled-samples ratio; target <= 1.05")
    heads = [f"N={n}" for n in ns] + [f"new N={n}" for n in fresh_ns]
    print(f"{'client':<22}" + "".join(f"{h:>28}" for h in heads))
    worst = 0.0
    for other in others:
        name = other.split("@", 1)[0]
        mine, theirs = results.get(name, {}), results[other]
        if "error" in mine or "error" in theirs:
            print(f"{name:<22}not compared: {mine.get('error') or theirs.get('error')}")
            continue
        cells = []
        for field, values in (("per_n", ns), ("fresh", fresh_ns)):
            for n in values:
                a, b = (mine.get(field) or {}).get(str(n)), (theirs.get(field) or {}).get(str(n))
                if not a or not b:
                    cells.append("-")
                    continue
                pooled = a["cpu_ms_per_request"] / b["cpu_ms_per_request"]
                per_round = [statistics.median(x[field][str(n)]["samples_ms"])
                             / statistics.median(y[field][str(n)]["samples_ms"])
                             for x, y in zip(parts[name], parts[other], strict=False)]
                ratio = statistics.median(per_round)
                worst = max(worst, ratio)
                cells.append(f"{ratio:.3f} [{min(per_round):.2f}-{max(per_round):.2f}] {pooled:.3f}")
        print(f"{name:<22}" + "".join(f"{c:>28}" for c in cells))
    print(f"worst ratio to {tag}: {worst:.3f} (target <= 1.05)")
    print(json.dumps({"compare": tag, "results": {k: v for k, v in results.items() if "@" in k}}))


def _report(results: dict[str, dict[str, Any]], ns: list[int], fresh_ns: Sequence[int] = (),
            judged: Sequence[int] | None = None) -> None:
    bare = results.get("bare", {})
    floor = {**(bare.get("per_n") or {})}
    print(f"client CPU ms per model request (ratio to the bare floor), loopback, cores={os.cpu_count()}")
    print("N=: agent object new per run, provider/client reused, construction not counted; "
          "new N=: a whole new agent per run, construction counted (bare: a new httpx client); "
          "the floor of a new N= column is the bare loop reusing its client at that N")
    heads = [f"N={n}" for n in ns] + [f"new N={n}" for n in fresh_ns]
    print(f"{'framework':<22}" + "".join(f"{h:>18}" for h in heads) + f"{'TTFT ms':>10}{'RSS MB':>9}")
    for name, r in results.items():
        if "error" in r:
            print(f"{name:<22}not measured: {r['error']}")
            continue
        cells = []
        for field, values in (("per_n", ns), ("fresh", fresh_ns)):
            for n in values:
                v = (r.get(field) or {}).get(str(n), {}).get("cpu_ms_per_request")
                if v is None:
                    cells.append("-")
                    continue
                base = floor.get(str(n), {}).get("cpu_ms_per_request")
                cells.append(f"{v:8.2f} ({v / base:4.1f}x)" if base else f"{v:8.2f}")
        print(f"{name + ' ' + r['version']:<22}" + "".join(f"{c:>18}" for c in cells)
              + f"{r['ttft_ms'] or float('nan'):>10.1f}{r['peak_rss_mb']:>9.1f}")
    orkas = results.get("orkas", {}).get("per_n")
    if orkas and floor:
        worst = max(orkas[str(n)]["cpu_ms_per_request"] / floor[str(n)]["cpu_ms_per_request"]
                    for n in (judged or ns))
        print(f"orkas worst ratio to floor: {worst:.2f}x (target <= 2x)")
        if "10" in orkas and "100" in orkas:
            flat = orkas["100"]["cpu_ms_per_request"] / orkas["10"]["cpu_ms_per_request"]
            print(f"orkas flatness N=100 / N=10: {flat:.2f} (target <= 1.25)")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
