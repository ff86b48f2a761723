"""Resource limits on the commands bash runs: memory per process and a process count.

A command that allocates without bound should fail with its own out-of-memory error, not push
the machine into the OOM killer, which may well pick the Jupyter kernel. Commands (and the
sandbox around them) start under ``prlimit``, so every process of the command inherits:

- ``RLIMIT_DATA`` (heap and private writable mappings, the memory a program actually fills;
  reserving address space, as Go and the JVM do, is not counted): ``bash_memory_mb`` per
  process, by default half the machine's memory;
- ``RLIMIT_NPROC``: ``bash_max_processes`` processes of your user while the command runs, which
  stops a fork bomb (not enforced for root, by the kernel's rule).

These are per-process limits, not a budget for the whole command tree: a per-tree limit needs a
cgroup, which a notebook kernel cannot count on being given. Without ``prlimit`` (util-linux)
commands run unlimited, and ``describe`` says so.
"""

from __future__ import annotations

import shutil
from functools import lru_cache

from .settings import ToolSettings


@lru_cache(maxsize=1)
def _prlimit() -> str | None:
    return shutil.which("prlimit")


@lru_cache(maxsize=1)
def machine_memory_mb() -> int:
    import psutil

    return int(psutil.virtual_memory().total // (1024 * 1024))


def memory_limit_mb(settings: ToolSettings) -> int:
    """The per-process memory limit in MB (0: none)."""
    if settings.bash_memory_mb is None:
        return max(256, machine_memory_mb() // 2)
    return settings.bash_memory_mb


def limit_argv(settings: ToolSettings) -> list[str]:
    """The ``prlimit`` prefix for a command's argv, or [] when no limit applies or can be set."""
    memory_mb = memory_limit_mb(settings)
    processes = settings.bash_max_processes
    prlimit = _prlimit()
    if prlimit is None or not (memory_mb or processes):
        return []
    argv = [prlimit]
    if memory_mb:
        argv.append(f"--data={memory_mb * 1024 * 1024}")
    if processes:
        argv.append(f"--nproc={processes}")
    return [*argv, "--"]


def describe(settings: ToolSettings) -> str:
    """One line for ``%agent config``: which limits the commands run under."""
    memory_mb = memory_limit_mb(settings)
    processes = settings.bash_max_processes
    if not (memory_mb or processes):
        return "no resource limits (turned off)"
    if _prlimit() is None:
        return "no resource limits: prlimit (util-linux) is not installed"
    parts = []
    if memory_mb:
        parts.append(f"{memory_mb:,} MB of memory per process")
    if processes:
        parts.append(f"{processes:,} processes")
    return "limits: " + ", ".join(parts)
