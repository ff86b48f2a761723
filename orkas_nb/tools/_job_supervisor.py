"""Runs one background command and records how it ended (stdlib only: it starts fast).

Usage: python _job_supervisor.py EXIT_FILE LOG_FILE MAX_LOG_BYTES -- argv...

It is started in a new session by the bash tool, so it and the command share one process group
that ``bash_stop`` kills at once. It outlives the kernel (the job is detached), and writes the
exit code atomically next to the log, so a later kernel can poll a job an earlier one started.
"""

import os
import subprocess
import sys

SLIRP_MARKER = "@orkas-slirp@"


def main() -> int:
    exit_file, log_file, max_bytes, sep, *argv = sys.argv[1:]
    assert sep == "--" and argv
    limit = int(max_bytes)
    written = 0
    link = None
    if SLIRP_MARKER in argv:  # a filtered network: see _netns.py (this folder is on sys.path)
        import _netns

        link = _netns.SlirpLink()
        at = argv.index(SLIRP_MARKER)
        argv = argv[:at] + link.bwrap_args() + argv[at + 1:]
    with open(log_file, "ab", buffering=0) as log:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, pass_fds=link.child_fds() if link else ())
        if link is not None:
            try:
                link.attach()
            except OSError as exc:
                log.write(f"[the sandbox's network could not start: {exc}]\n".encode())
                child.kill()
        assert child.stdout is not None
        # Copy the output into the log up to the cap, then keep draining (so the job does not
        # block on a full pipe) but drop the rest: a chatty job cannot fill the disk.
        for chunk in iter(lambda: child.stdout.read1(65536), b""):  # type: ignore[union-attr,attr-defined]
            if written < limit:
                part = chunk[: limit - written]
                log.write(part)
                written += len(part)
                if written >= limit:
                    log.write(f"\n[log capped at {limit} bytes; later output dropped]\n".encode())
        code = child.wait()
    if link is not None:
        link.close()
    tmp = exit_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(code))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, exit_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
