"""The filtered network's start-up order: slirp4netns may touch the sandbox's network only once
bubblewrap has brought its loopback up (started earlier, bubblewrap failed now and then)."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from orkas_nb.tools import _netns
from orkas_nb.tools.sandbox import isolation_status

pytestmark = pytest.mark.skipif(not isolation_status("auto").isolated, reason="bubblewrap unavailable")


def _routes_loopback(pid: int) -> bool:
    with open(f"/proc/{pid}/net/fib_trie", "rb") as table:
        return b"127.0.0.1" in table.read()


def test_waits_until_the_sandbox_routes_its_loopback() -> None:
    # Right after bubblewrap reports its pid, the loopback is usually not up yet (about 3 times
    # in 4 here), so five sandboxes catch a wait that returns too early.
    for _ in range(5):
        _check_one_sandbox()


def _check_one_sandbox() -> None:
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    proc = subprocess.Popen(
        ["bwrap", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev",
         "--proc", "/proc", "--info-fd", str(info_w), "--block-fd", str(block_r), "--", "true"],
        pass_fds=(info_w, block_r),
    )
    os.close(info_w)
    os.close(block_r)
    try:
        data = b""
        while b"}" not in data:
            chunk = os.read(info_r, 4096)
            assert chunk, "bubblewrap ended before reporting its sandbox"
            data += chunk
        pid = int(json.loads(data)["child-pid"])
        _netns._wait_for_loopback(pid, timeout=10)
        assert _routes_loopback(pid)  # the sandbox is still held by its block fd
    finally:
        os.write(block_w, b"1")
        os.close(block_w)
        os.close(info_r)
        assert proc.wait(timeout=10) == 0


def test_a_vanished_process_does_not_hold_it_up() -> None:
    proc = subprocess.Popen(["true"])
    proc.wait()
    start = time.monotonic()
    _netns._wait_for_loopback(proc.pid, timeout=5)
    assert time.monotonic() - start < 1
