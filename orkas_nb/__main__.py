"""Command line: ``python -m orkas_nb demo`` runs a scripted agent with no key and no network."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

DEMO_FILES = {
    "sales.csv": "month,revenue\nJan,120\nFeb,95\nMar,130\nApr,80\nMay,140\nJun,70\n",
    "notes.md": "# Notes\nRevenue targets: at least 100 a month.\n",
}


def _demo_script() -> list:
    from .testing import call, reply

    return [
        reply("Let me see what is in the folder.", call("search_files", pattern="*")),
        reply(
            "I'll read the sales and the notes together.",
            call("read_file", path="sales.csv"),
            call("read_file", path="notes.md"),
        ),
        reply(
            "Three months fell below the target of 100; I'll write them down.",
            call(
                "write_file",
                path="weak_months.md",
                content="# Months below target\n\n- Jun: 70\n- Apr: 80\n- Feb: 95\n",
            ),
        ),
        reply(
            "The three weakest months are **Jun (70)**, **Apr (80)** and **Feb (95)**, all under "
            "the target of 100 from `notes.md`. I saved them to `weak_months.md`."
        ),
    ]


class _Terminal:
    """Writes events as readable lines; text deltas stream in place."""

    def __init__(self) -> None:
        self.at_line_start = True

    def write(self, text: str) -> None:
        if text:
            sys.stdout.write(text)
            self.at_line_start = text.endswith("\n")

    def line(self, text: str) -> None:
        self.write(("" if self.at_line_start else "\n") + text + "\n")


def _print_event(event, out: _Terminal) -> None:  # type: ignore[no-untyped-def]
    kind = event.type
    if kind == "text_delta":
        out.write(event.text)
    elif kind == "tool_start":
        args = ", ".join(f"{k}={v!r}"[:60] for k, v in event.arguments.items())
        out.line(f"  → {event.name}({args})")
    elif kind == "tool_end":
        first = (event.result.splitlines() or [""])[0][:70]
        out.line(f"  ← {event.name} [{event.status}, {event.duration_s * 1000:.1f} ms] {first}")
    elif kind in ("retry", "warning", "steer", "compaction"):
        out.line(f"  [{kind}] {event.model_dump(exclude={'agent', 'seq', 'ts', 'type'})}")
    elif kind == "done":
        r = event.result
        out.line(
            f"\n[done: {r.stop_reason}; {r.stats.model_requests} model requests, "
            f"{r.stats.tool_calls} tool calls, {r.duration_s * 1000:.0f} ms; "
            f"files written: {', '.join(r.output_files) or 'none'}]"
        )
    sys.stdout.flush()


async def _demo(workspace: Path) -> int:
    from . import Agent
    from .harness.repair import pairing_problems
    from .harness.session import JsonlSession
    from .testing import ScriptedModel

    for name, text in DEMO_FILES.items():
        (workspace / name).write_text(text)
    print(f"workspace: {workspace}")
    print("model: ScriptedModel (a scripted stand-in: no key, no network)\n")
    print("> Load sales.csv, find the three weakest months and save them.\n")
    agent = Agent(ScriptedModel(_demo_script()), workspace=workspace, session="demo")
    result = None
    out = _Terminal()
    async for event in agent.run("Load sales.csv, find the three weakest months and save them."):
        _print_event(event, out)
        if event.type == "done":
            result = event.result
    agent.close()
    with JsonlSession(workspace / ".orkas" / "sessions" / "demo.jsonl", readonly=True) as saved:
        problems = pairing_problems(saved.messages)
        print(f"session: {len(saved.messages)} messages saved, pairing {'ok' if not problems else problems}")
    return 0 if result is not None and result.ok and not problems else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m orkas_nb")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run a scripted agent through a real tool loop")
    demo.add_argument("--workspace", type=Path, help="folder to work in (default: a temp folder)")
    quick = sub.add_parser("quickstart", help="run the quickstart notebook headless (no key needed)")
    quick.add_argument("--dir", type=Path, default=Path("orkas-quickstart"), help="folder to copy it to")
    quick.add_argument("--open", action="store_true", help="open it in JupyterLab instead")
    args = parser.parse_args(argv)
    if args.command == "quickstart":
        from .notebook.quickstart import main as quickstart

        return quickstart(args.dir, open_lab=args.open)
    if args.command == "demo":
        if args.workspace:
            args.workspace.mkdir(parents=True, exist_ok=True)
            return asyncio.run(_demo(args.workspace.resolve()))
        with tempfile.TemporaryDirectory(prefix="orkas-demo-") as tmp:
            return asyncio.run(_demo(Path(tmp)))
    return 2


if __name__ == "__main__":
    sys.exit(main())
