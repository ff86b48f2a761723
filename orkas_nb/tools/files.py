"""File tools: read_file, write_file, edit_file, stat_file.

Each goes through the path policy, then through :mod:`safe_io` (no symlink followed after the
check). ``edit_file`` and overwriting ``write_file`` need an earlier read of the file by the same
agent and fail with a *stale* error if the file changed since (optimistic concurrency, seed 003
§1): with several agents in one folder, the loser is told instead of silently overwriting.
"""

from __future__ import annotations

import codecs
import hashlib
import stat as stat_mod
import time

from ..core.errors import ToolDenied, ToolError
from ..documents import binary_description, document_kind, extract_from_bytes
from ..harness.approval import ApprovalRequest, Decision
from ..harness.offload import run_blocking
from ..harness.tool_protocol import FunctionTool, ToolContext, ToolOutput
from .paths import PathRefused, Resolved
from .safe_io import check_regular, inspect_existing, open_parent, read_bytes, write_atomic
from .settings import Toolbox


class StaleFileError(ToolError):
    """The file changed since this agent read it; nothing was written."""


async def ensure_consent(box: Toolbox, target: Resolved, ctx: ToolContext, tool: str) -> None:
    """Secret files (``.env``, keys…) need the user's consent, asked through the approver."""
    if not target.secret:
        return
    request = ApprovalRequest(
        kind="path", category="secret_file", subject=target.display,
        reasons=[f"{target.path.name} looks like a secret file (keys, tokens, passwords)"],
        scope_key=f"secret_file:{target.path}", scope_text=f"{target.display} for this run",
        tool=tool, agent=ctx.agent, call_id=ctx.call_id,
    )
    decision = await box.gate.ask(request, run=ctx.abort, approver=box.approver_for(ctx.services))
    if decision is Decision.DENY:
        raise ToolDenied(
            f"{target.display!r} looks like a secret file; the user did not consent to it being "
            "used, so nothing of it was read or written"
        )


def _decode(data: bytes, name: str) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    what = binary_description(data[:8192])
    if what:
        raise ToolError(
            f"{name!r} is {what} ({len(data):,} bytes), not text; read_file reads text files and "
            "PDF, DOCX, XLSX and PPTX documents. Use bash (e.g. `file`, `python3`) to inspect it."
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # every byte decodes; legacy text stays readable


def _number(text: str, first_line: int) -> str:
    lines = text.split("\n")
    return "\n".join(f"{first_line + i:>6}\t{line}" for i, line in enumerate(lines))


def make_file_tools(box: Toolbox) -> list[FunctionTool]:
    policy, ledger, settings = box.policy, box.ledger, box.settings

    async def read_file(
        path: str, ctx: ToolContext, offset: int = 0, limit: int | None = None,
        line_numbers: bool = False,
    ) -> str | ToolOutput:
        """Read a text file or a document (PDF, DOCX, XLSX, PPTX) of the workspace.

        Args:
            path: the file, relative to the workspace (or in a folder the user allowed)
            offset: first character to return (0 = start)
            limit: how many characters to return at most (default 20000)
            line_numbers: prefix each line with its line number in the file
        """
        if offset < 0 or (limit is not None and limit <= 0):
            raise ToolError("offset must be >= 0 and limit > 0")
        target = policy.check(path)
        await ensure_consent(box, target, ctx, "read_file")
        data, _st = await run_blocking(read_bytes, target.path, settings.read_max_bytes)
        kind = document_kind(target.path.name, data[:8])
        if kind:
            text = await run_blocking(extract_from_bytes, data, kind, target.display)
        else:
            text = _decode(data, target.display)
        ledger.record(target.path, data)
        size = limit or settings.read_default_chars
        part = text[offset: offset + size]
        if line_numbers:
            part = _number(part, text.count("\n", 0, offset) + 1)
        end = offset + len(text[offset: offset + size])
        if offset >= len(text) and text:
            return f"[{target.display} has {len(text):,} characters; offset {offset} is past the end]"
        if end < len(text):
            part += (f"\n[characters {offset:,}-{end:,} of {len(text):,}; read on with "
                     f"offset={end}]")
        result = part if text else f"[{target.display} is empty]"
        # An extracted document is content from outside (a download, an attachment): it taints
        # the run, so memory writes after it ask the user (harness.tool_protocol.Taint).
        return ToolOutput(text=result, untrusted=True) if kind else result

    async def write_file(path: str, content: str, ctx: ToolContext) -> ToolOutput:
        """Create a file, or replace one you have read, with the full content given.

        Args:
            path: the file, relative to the workspace; missing folders are created
            content: the complete new content
        """
        target = policy.check(path, write=True)
        await ensure_consent(box, target, ctx, "write_file")
        data = content.encode("utf-8")
        fresh = _fresh_check(target)

        def produce(current: bytes | None) -> bytes:
            fresh(current)
            return data

        await run_blocking(write_atomic, target.path, produce)
        ledger.record(target.path, data)
        return ToolOutput(
            text=f"wrote {len(content):,} characters to {target.display}",
            output_files=[target.display],
        )

    async def edit_file(
        path: str, old_string: str, new_string: str, ctx: ToolContext, replace_all: bool = False
    ) -> ToolOutput:
        """Replace an exact piece of a file you have read with new text.

        Args:
            path: the file, relative to the workspace
            old_string: the exact text to replace; it must appear once (or use replace_all)
            new_string: the text to put in its place
            replace_all: replace every occurrence instead of requiring exactly one
        """
        if not old_string:
            raise ToolError("old_string is empty; to write a whole file use write_file")
        if old_string == new_string:
            raise ToolError("old_string and new_string are the same; nothing to change")
        target = policy.check(path, write=True)
        await ensure_consent(box, target, ctx, "edit_file")
        if await run_blocking(inspect_existing, target.path, "edit") is None:
            raise ToolError(f"{target.display} does not exist; create it with write_file")
        if ledger.get(target.path) is None:
            raise ToolError(f"read {target.display} with read_file before editing it")
        fresh = _fresh_check(target, edit=True)
        result: dict[str, object] = {}

        def change(current: bytes | None) -> bytes:
            fresh(current)
            assert current is not None
            text = _decode(current, target.display)
            count = text.count(old_string)
            if count == 0:
                raise ToolError(
                    f"old_string was not found in {target.display}; copy it exactly from "
                    "read_file's output (whitespace and line breaks included)"
                )
            if count > 1 and not replace_all:
                raise ToolError(
                    f"old_string appears {count} times in {target.display}; include more of the "
                    "surrounding text to make it unique, or set replace_all=true"
                )
            new_text = text.replace(old_string, new_string) if replace_all else text.replace(
                old_string, new_string, 1)
            result["count"] = count if replace_all else 1
            result["line"] = text.count("\n", 0, text.index(old_string)) + 1
            result["data"] = new_text.encode("utf-8")
            return result["data"]  # type: ignore[return-value]

        await run_blocking(write_atomic, target.path, change)
        ledger.record(target.path, result["data"])  # type: ignore[arg-type]
        return ToolOutput(
            text=(f"replaced {result['count']} occurrence(s) in {target.display} "
                  f"(first at line {result['line']})"),
            output_files=[target.display],
        )

    def _fresh_check(target: Resolved, edit: bool = False):
        def check(current: bytes | None) -> None:
            seen = ledger.get(target.path)
            if current is None:
                if edit:
                    raise StaleFileError(
                        f"stale: {target.display} was deleted since you read it; nothing was "
                        "written"
                    )
                return
            if seen is None:
                raise ToolError(
                    f"{target.display} already exists; read it with read_file before replacing it"
                )
            if hashlib.sha256(current).hexdigest() != seen.sha256:
                raise StaleFileError(
                    f"stale: {target.display} changed since you read it (someone else edited "
                    f"it: {seen.size:,} bytes then, {len(current):,} now); nothing was written. "
                    "Read it again and redo the change."
                )
        return check

    def stat_file(path: str) -> str:
        """Size, type and modification time of a file or folder of the workspace.

        Args:
            path: the file or folder, relative to the workspace
        """
        target = policy.check(path)
        import os

        with open_parent(target.path) as dfd:
            try:
                st = os.stat(target.path.name, dir_fd=dfd, follow_symlinks=False) if \
                    target.path != target.root else os.stat(target.path)
            except FileNotFoundError:
                raise ToolError(f"{target.display} does not exist") from None
        kind = ("folder" if stat_mod.S_ISDIR(st.st_mode) else
                "file" if stat_mod.S_ISREG(st.st_mode) else "special file")
        mtime = time.strftime("%Y-%m-%d %H:%M:%S %z", time.localtime(st.st_mtime))
        lines = [f"path: {target.display}", f"type: {kind}", f"size: {st.st_size:,} bytes",
                 f"modified: {mtime}", f"permissions: {stat_mod.filemode(st.st_mode)}"]
        if stat_mod.S_ISREG(st.st_mode):
            try:
                check_regular(target.path, st, "read")
            except PathRefused as exc:
                lines.append(f"note: {exc}")
            if target.secret:
                lines.append("note: looks like a secret file; reading it needs the user's consent")
        return "\n".join(lines)

    return [
        FunctionTool(read_file, read_only=True),
        FunctionTool(write_file),
        FunctionTool(edit_file),
        FunctionTool(stat_file, read_only=True),
    ]
