"""Runs one background command and records how it ended (stdlib only: it starts fast).

Usage: python _job_supervisor.py EXIT_FILE LOG_FILE -- argv...

It is started in a new session by the bash tool, so it and the command share one process group
that ``bash_stop`` kills at once. It outlives the kernel (the job is detached), and writes the
exit code atomically next to the log, so a later kernel can poll a job an earlier one started.
"""

import os
import subprocess
import sys


def main() -> int:
    exit_file, log_file, sep, *argv = sys.argv[1:]
    assert sep == "--" and argv
    with open(log_file, "ab", buffering=0) as log:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        code = child.wait()
    tmp = exit_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(code))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, exit_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
