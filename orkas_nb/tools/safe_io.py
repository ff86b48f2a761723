"""Open, read and write files with no window between the policy check and the open.

The policy checks a resolved path, which by construction has no symlink in it. Here every
component of that path is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so if
anything on the way was swapped for a symlink after the check (TOCTOU), the open fails instead of
following it. Writes go to a temporary file in the same folder and are renamed over the target,
so a kill -9 mid-write leaves either the old file or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from ..core.errors import ToolError
from .paths import PathRefused

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
MAX_LINKS = 1

_path_locks: dict[str, threading.Lock] = {}
_path_locks_guard = threading.Lock()


def path_lock(path: Path) -> threading.Lock:
    """One lock per resolved path for the whole process: concurrent agents in one kernel."""
    key = str(path)
    with _path_locks_guard:
        return _path_locks.setdefault(key, threading.Lock())


def _swapped(path: Path, exc: OSError) -> PathRefused:
    return PathRefused(
        f"{path} changed while it was being opened (a component became a symlink or vanished: "
        f"{exc.strerror}); nothing was read or written"
    )


@contextlib.contextmanager
def open_parent(path: Path, *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``path``'s folder, reached one component at a time without symlinks."""
    fd = os.open(path.anchor or "/", os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in path.parent.parts[1:]:
            try:
                nxt = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o777, dir_fd=fd)
                nxt = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _swapped(path, exc) from None
                raise
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def open_regular(path: Path, dir_fd: int, *, what: str = "read") -> int:
    """Open the final component for reading: no symlink, no FIFO or device, no extra hard link."""
    try:
        fd = os.open(path.name, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _swapped(path, exc) from None
        raise
    st = os.fstat(fd)
    try:
        check_regular(path, st, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(path: Path, st: os.stat_result, what: str) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise PathRefused(f"{path.name!r} is a folder; use search_files to list it")
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(f"{path.name!r} is not a regular file (a pipe, socket or device)")
    if st.st_nlink > MAX_LINKS:
        # A hard link may be another name for a file outside the workspace; it cannot be told
        # from the inside, so tools refuse it.
        raise PathRefused(
            f"{path.name!r} has {st.st_nlink} hard links; a hard-linked file may live outside the "
            f"workspace under another name, so tools do not {what} it (copy it to a new file first)"
        )


def inspect_existing(path: Path, what: str) -> os.stat_result | None:
    """The stat of ``path`` if it exists (None if not), refusing links, pipes and hard links."""
    try:
        with open_parent(path) as dfd:
            st = os.stat(path.name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise _swapped(path, OSError(errno.ELOOP, "it is now a symlink"))
    check_regular(path, st, what)
    return st


def read_bytes(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """The file's bytes (at most ``limit``; larger files are refused) and its stat."""
    try:
        with open_parent(path) as dfd:
            return _read_from(path, dfd, limit)
    except FileNotFoundError:
        raise ToolError(f"{path.name!r} does not exist (looked for {path})") from None
    except PermissionError:
        raise ToolError(f"{path.name!r} cannot be read: permission denied") from None
    except OSError as exc:
        if isinstance(exc, PathRefused):
            raise
        raise ToolError(f"{path.name[:200]!r} cannot be read: {exc.strerror}") from None


def _read_from(path: Path, dfd: int, limit: int) -> tuple[bytes, os.stat_result]:
    fd = open_regular(path, dfd)
    try:
        st = os.fstat(fd)
        if st.st_size > limit:
            raise PathRefused(
                f"{path.name!r} is {st.st_size:,} bytes, more than the {limit:,} bytes tools "
                "read at once; use grep_files or bash (head, sed -n) to read a part"
            )
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def write_atomic(path: Path, produce: Callable[[bytes | None], bytes]) -> None:
    """Replace ``path`` with ``produce(current)`` through a temporary file and a rename.

    ``produce`` gets the current bytes (None if the file does not exist) while the per-path lock
    and an advisory lock on the file are held, and returns the new bytes, or raises to stop the
    write: that is where optimistic concurrency compares what the agent read with what is there.
    """
    with path_lock(path), open_parent(path, create=True) as dfd:
        for _attempt in range(20):
            try:
                fd = open_regular(path, dfd, what="write")
            except FileNotFoundError:
                _replace(path, dfd, produce(None), 0o644, exclusive_target=True)
                return
            try:
                with _flocked(fd):
                    st = os.fstat(fd)
                    try:
                        now = os.stat(path.name, dir_fd=dfd, follow_symlinks=False)
                    except FileNotFoundError:
                        now = None
                    if now is None or (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
                        continue  # another process replaced it while we waited: look again
                    _replace(path, dfd, produce(_read_all(fd)), stat.S_IMODE(st.st_mode))
                    return
            finally:
                os.close(fd)
        raise PathRefused(f"{path.name!r} keeps changing under us; nothing was written")


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@contextlib.contextmanager
def _flocked(fd: int) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the per-path lock still serialises us
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _replace(path: Path, dfd: int, data: bytes, mode: int, exclusive_target: bool = False) -> None:
    tmp = f".{path.name}.orkas-tmp-{os.getpid()}-{threading.get_ident()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode,
                 dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp, dir_fd=dfd)
        raise
    os.close(fd)
    try:
        if exclusive_target:
            # A new file: link() refuses to replace anything that appeared meanwhile.
            try:
                os.link(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
            except FileExistsError:
                raise PathRefused(
                    f"{path.name!r} appeared while it was being written; read it, then try again"
                ) from None
            os.unlink(tmp, dir_fd=dfd)
        else:
            os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        os.fsync(dfd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dfd)
        raise
