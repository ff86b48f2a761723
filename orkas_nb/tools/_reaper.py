"""Runs one command as a *subreaper* and kills everything it left behind (stdlib only).

Usage: python _reaper.py -- argv...

Without OS isolation, a command can escape its process group (``setsid``, double fork); the
kernel then reparents the orphans to the nearest subreaper, which is this process. When the
command ends, or on SIGTERM (timeout or Stop), or when the kernel that started us dies
(PR_SET_PDEATHSIG), every descendant is killed. Linux only; elsewhere it just runs the command.
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def _kill_all() -> None:
    for _ in range(50):
        pids = _descendants(os.getpid())
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:  # orphans that were reparented to us are ours to reap
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break


def main() -> int:
    sep, *argv = sys.argv[1:]
    assert sep == "--" and argv
    linux = sys.platform.startswith("linux")
    if linux:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def stop(signum: int, frame: object) -> None:
        if linux:
            _kill_all()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    # posix_spawn rather than subprocess: importing subprocess would double our start-up time.
    child = os.posix_spawnp(argv[0], argv, os.environ)
    _pid, status = os.waitpid(child, 0)
    if linux:
        _kill_all()
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
