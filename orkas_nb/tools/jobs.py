"""Background bash jobs: detached, logged under ``.orkas/jobs/``, pollable, stoppable.

A job's metadata (``<id>.json``), log (``<id>.log``) and exit code (``<id>.exit``) are files,
so a job started before a kernel restart can still be polled and stopped after it. Process
identity is checked by start time before any signal, so a recycled PID is never killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from pydantic import BaseModel

from ..core.errors import ToolError

SUPERVISOR = Path(__file__).with_name("_job_supervisor.py")


class JobInfo(BaseModel):
    id: str
    pid: int  # the supervisor, leader of the job's process group
    started_at: float
    create_time: float | None = None
    command_length: int
    isolated: bool
    stopped: bool = False


def process_start(pid: int) -> float | None:
    try:
        import psutil

        return psutil.Process(pid).create_time()
    except Exception:
        return None


def stop_reaper(pid: int, wait_s: float = 1.0) -> None:
    """Ask the subreaper (degraded mode) to kill every descendant, then wait a moment for it."""
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        import psutil

        psutil.Process(pid).wait(timeout=wait_s)
    except Exception:
        pass


def kill_group(pid: int) -> None:
    """Kill a process group and every descendant still findable (some may have left the group)."""
    try:
        import psutil

        descendants = psutil.Process(pid).children(recursive=True)
    except Exception:
        descendants = []
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for p in descendants:
        try:
            p.kill()
        except Exception:
            pass


class JobStore:
    """The jobs of one workspace, as files under ``.orkas/jobs``."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir / "jobs"

    def _paths(self, job_id: str) -> tuple[Path, Path, Path]:
        if not job_id.isalnum():
            raise ToolError(f"unknown job {job_id!r}")
        return self.dir / f"{job_id}.json", self.dir / f"{job_id}.log", self.dir / f"{job_id}.exit"

    def start(self, argv: list[str], env: dict[str, str], cwd: Path, *, command_length: int,
              isolated: bool, max_log_bytes: int = 50 * 1024 * 1024) -> JobInfo:
        self.dir.mkdir(parents=True, exist_ok=True)
        for pid, old in list(_reapers.items()):  # reap finished jobs nobody polled
            if old.poll() is not None:
                _reapers.pop(pid, None)
        job_id = uuid.uuid4().hex[:10]
        meta, log, exit_file = self._paths(job_id)
        log.touch()
        proc = subprocess.Popen(
            [sys.executable, str(SUPERVISOR), str(exit_file), str(log), str(max_log_bytes), "--",
             *argv],
            cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )
        info = JobInfo(id=job_id, pid=proc.pid, started_at=time.time(),
                       create_time=process_start(proc.pid), command_length=command_length,
                       isolated=isolated)
        self._save(info)
        _reapers[proc.pid] = proc  # reap it when it ends, so no zombie stays behind
        return info

    def _save(self, info: JobInfo) -> None:
        meta, _log, _exit = self._paths(info.id)
        tmp = meta.with_suffix(".tmp")
        tmp.write_text(info.model_dump_json())
        os.replace(tmp, meta)

    def load(self, job_id: str) -> JobInfo:
        meta, _log, _exit = self._paths(job_id)
        try:
            return JobInfo.model_validate_json(meta.read_text())
        except FileNotFoundError:
            known = ", ".join(sorted(p.stem for p in self.dir.glob("*.json"))[-10:]) or "none"
            raise ToolError(f"unknown job {job_id!r} (jobs in this workspace: {known})") from None

    def alive(self, info: JobInfo) -> bool:
        proc = _reapers.get(info.pid)
        if proc is not None and proc.poll() is not None:
            _reapers.pop(info.pid, None)
        now = process_start(info.pid)
        if now is None or (info.create_time is not None and abs(now - info.create_time) > 0.01):
            return False
        try:
            import psutil

            return psutil.Process(info.pid).status() != psutil.STATUS_ZOMBIE
        except Exception:
            return False

    def status(self, info: JobInfo) -> str:
        _meta, _log, exit_file = self._paths(info.id)
        if info.stopped:
            return "stopped"
        if exit_file.exists():
            return f"exited with code {exit_file.read_text().strip()}"
        if self.alive(info):
            return f"running for {time.time() - info.started_at:.0f}s"
        return "ended without recording an exit code (killed, or the machine restarted)"

    def read_log(self, info: JobInfo, offset: int, limit: int) -> tuple[str, int, int, int]:
        """(text, first byte, end byte, log size) of the log from ``offset`` (negative: tail)."""
        _meta, log, _exit = self._paths(info.id)
        size = log.stat().st_size if log.exists() else 0
        if offset < 0:
            offset = max(0, size + offset)
        with open(log, "rb") as f:
            f.seek(min(offset, size))
            data = f.read(limit)
        start = min(offset, size)
        return data.decode("utf-8", errors="replace"), start, start + len(data), size

    def stop(self, info: JobInfo) -> str:
        if info.stopped or self._paths(info.id)[2].exists():
            return self.status(info)
        if self.alive(info):
            if not info.isolated:
                # the supervisor's child is the subreaper: it sweeps what left the group
                for child in _children(info.pid):
                    stop_reaper(child)
            kill_group(info.pid)
        proc = _reapers.pop(info.pid, None)
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        info.stopped = True
        self._save(info)
        return "stopped"

    def log_path(self, job_id: str) -> Path:
        return self._paths(job_id)[1]


def _children(pid: int) -> list[int]:
    try:
        import psutil

        return [c.pid for c in psutil.Process(pid).children()]
    except Exception:
        return []


_reapers: dict[int, subprocess.Popen] = {}
