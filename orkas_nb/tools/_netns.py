"""A filtered network for a bubblewrap sandbox, through slirp4netns (stdlib only).

With the network allowed, sharing the host's network would let a command reach every service on
loopback, the kernel's own Jupyter server included. Instead the sandbox keeps its own network
namespace and slirp4netns gives it a user-mode link to the outside with
``--disable-host-loopback``: the internet is reachable, the host's 127.0.0.1 is not (neither
directly nor through the gateway address). Services that listen on the host's other addresses
stay reachable; the risk grader still flags private addresses it can see.

Protocol: bubblewrap is started with ``--info-fd`` (it reports the sandbox's PID),
``--block-fd`` (the command waits until we release it) and ``--ro-bind-data`` (a resolv.conf
that points at slirp's DNS); once slirp4netns says it is ready, the command is released.
slirp4netns starts only after bubblewrap has brought the sandbox's loopback up: started while
bubblewrap is still at it, it made bubblewrap fail ("loopback: Failed RTM_NEWADDR") about one
time in 25 on a loaded machine.
Used by the bash executor and by the background-job supervisor (hence stdlib only).
"""

import json
import os
import shutil
import subprocess
import time

RESOLV_CONF = b"nameserver 10.0.2.3\n"


def available() -> bool:
    return shutil.which("slirp4netns") is not None


def _wait_for_loopback(pid: int, timeout: float) -> None:
    """Until the namespace of ``pid`` routes 127.0.0.1 (bubblewrap's loopback set-up is done).

    Returns early, without error, if the process is gone or its table cannot be read: then
    bubblewrap has failed on its own, or this system hides it, and what follows reports it.
    """
    deadline = time.monotonic() + timeout
    pause = 0.0005
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/net/fib_trie", "rb") as table:
                if b"127.0.0.1" in table.read():
                    return
        except OSError:
            return
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


class SlirpLink:
    """The file descriptors and the slirp4netns process of one sandboxed command."""

    def __init__(self) -> None:
        self.info_r, self.info_w = os.pipe()
        self.block_r, self.block_w = os.pipe()
        self.dns_r, dns_w = os.pipe()
        os.write(dns_w, RESOLV_CONF)
        os.close(dns_w)
        self.exit_w = -1
        self.slirp: "subprocess.Popen[bytes] | None" = None
        self._open = {self.info_r, self.info_w, self.block_r, self.block_w, self.dns_r}

    def _close_fd(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            try:
                os.close(fd)
            except OSError:
                pass

    def bwrap_args(self) -> list:
        args = ["--info-fd", str(self.info_w), "--block-fd", str(self.block_r)]
        if os.path.isfile("/etc/resolv.conf") and not os.path.islink("/etc/resolv.conf"):
            args += ["--ro-bind-data", str(self.dns_r), "/etc/resolv.conf"]
        return args

    def child_fds(self) -> tuple:
        return (self.info_w, self.block_r, self.dns_r)

    def attach(self, timeout: float = 10.0) -> None:
        """After bubblewrap started: give its namespace a link, then release the command."""
        for fd in self.child_fds():
            self._close_fd(fd)
        data = b""
        info = None
        while info is None:
            chunk = os.read(self.info_r, 4096)
            if not chunk:
                raise OSError("bubblewrap ended before reporting its sandbox")
            data += chunk
            try:
                info = json.loads(data)
            except ValueError:
                continue
        self._close_fd(self.info_r)
        _wait_for_loopback(int(info["child-pid"]), timeout)
        ready_r, ready_w = os.pipe()
        exit_r, self.exit_w = os.pipe()
        self._open.add(self.exit_w)
        self.slirp = subprocess.Popen(
            ["slirp4netns", "--configure", "--mtu=65520", "--disable-host-loopback",
             f"--ready-fd={ready_w}", f"--exit-fd={exit_r}", str(info["child-pid"]), "tap0"],
            pass_fds=(ready_w, exit_r), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )
        os.close(ready_w)
        os.close(exit_r)
        import select

        ready, _, _ = select.select([ready_r], [], [], timeout)
        ok = bool(ready) and os.read(ready_r, 1) == b"1"
        os.close(ready_r)
        if not ok:
            self.close()
            raise OSError("slirp4netns did not bring the sandbox's network up")
        os.write(self.block_w, b"1")
        self._close_fd(self.block_w)

    def close(self) -> None:
        """Stop slirp4netns (closing the exit fd tells it to go) and free every descriptor."""
        for fd in list(self._open):
            self._close_fd(fd)
        if self.slirp is not None:
            try:
                self.slirp.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.slirp.kill()
                self.slirp.wait()
            self.slirp = None
