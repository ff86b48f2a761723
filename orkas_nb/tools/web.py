"""web_fetch: an HTTP(S) GET turned into readable text, with size and time caps.

Loopback, link-local, private and other special addresses are refused unless the settings allow
them (``web_allow_private``: hosts, addresses or networks), because the kernel's own Jupyter
server listens on loopback. The check runs *at connect time on the address actually dialled*
(a guarded httpcore network backend), so DNS tricks (a public name resolving to 127.0.0.1,
rebinding between check and connect, decimal or hex IP forms) cannot get past it. Each redirect
is a new request through the same guard.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..core.errors import ToolError
from ..harness.tool_protocol import FunctionTool
from .settings import Toolbox

MAX_REDIRECTS = 5
USER_AGENT = "orkas_nb-web_fetch/0.1"


class AddressRefused(ToolError):
    """The URL leads to an address web_fetch does not reach."""


def _special(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "a loopback address (this machine, where the Jupyter server listens)"
    if ip.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    if ip.is_private:
        return "a private network address"
    if ip.is_unspecified or ip.is_reserved or ip.is_multicast:
        return "a reserved address"
    return None


class AddressGuard:
    """Decides whether an IP may be dialled, given the explicit allow-list."""

    def __init__(self, allow: Iterable[str]) -> None:
        self.hosts: set[str] = set()
        self.networks: list[Any] = []
        for item in allow:
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self.hosts.add(item.lower())

    def check(self, host: str, ip: str) -> None:
        addr = ipaddress.ip_address(ip.split("%")[0])
        why = _special(addr)
        if why is None:
            return
        if host.lower() in self.hosts or any(addr in n for n in self.networks):
            return
        raise AddressRefused(
            f"{host} resolves to {ip}, {why}; web_fetch does not reach such addresses unless the "
            "user allows them explicitly (web_allow_private)"
        )


def _guarded_backend(guard: AddressGuard) -> Any:
    import httpcore

    inner = httpcore.AnyIOBackend()

    class GuardedBackend(httpcore.AsyncNetworkBackend):
        async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                              local_address: str | None = None, socket_options: Any = None) -> Any:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM)
            if not infos:
                raise AddressRefused(f"{host} did not resolve")
            for *_, sockaddr in infos:
                guard.check(host, str(sockaddr[0]))
            ip = str(infos[0][4][0])  # dial exactly the address that was checked
            return await inner.connect_tcp(ip, port, timeout=timeout, local_address=local_address,
                                           socket_options=socket_options)

        async def connect_unix_socket(self, *a: Any, **k: Any) -> Any:
            raise AddressRefused("web_fetch does not open unix sockets")

        async def sleep(self, seconds: float) -> None:
            await inner.sleep(seconds)

    return GuardedBackend()


def html_to_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "svg"]):
        tag.decompose()
    title = soup.title.get_text(strip=True) if soup.title else ""
    lines = [ln.strip() for ln in soup.get_text("\n").splitlines()]
    body = "\n".join(ln for ln in lines if ln)
    return f"# {title}\n\n{body}" if title else body


def make_web_tools(box: Toolbox) -> list[FunctionTool]:
    s = box.settings
    guard = AddressGuard(s.web_allow_private)

    async def web_fetch(url: str, max_chars: int | None = None) -> str:
        """Fetch a web page (HTTP GET) and return its readable text.

        Args:
            url: an http:// or https:// address
            max_chars: at most this many characters of text (default 50000)
        """
        import httpcore

        limit = max_chars or s.web_max_chars
        deadline = time.monotonic() + s.web_timeout_s
        backend = _guarded_backend(guard)
        async with httpcore.AsyncConnectionPool(network_backend=backend, retries=0) as pool:
            current = url
            for _hop in range(MAX_REDIRECTS + 1):
                parts = urlsplit(current)
                if parts.scheme not in ("http", "https") or not parts.hostname:
                    raise ToolError(f"{current!r} is not an http(s) URL")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ToolError(f"web_fetch gave up after {s.web_timeout_s:g}s")
                try:
                    status, headers, body, truncated = await asyncio.wait_for(
                        _get(pool, current, s.web_max_bytes, remaining), remaining)
                except asyncio.TimeoutError:
                    raise ToolError(f"{current} did not answer within {s.web_timeout_s:g}s") from None
                except AddressRefused:
                    raise
                except httpcore.ConnectError as exc:
                    raise ToolError(f"could not connect to {parts.hostname}: {exc}") from None
                except httpcore.TimeoutException:
                    raise ToolError(f"{current} timed out") from None
                except httpcore.ProtocolError as exc:
                    raise ToolError(f"{current} answered with invalid HTTP: {exc}") from None
                if status in (301, 302, 303, 307, 308) and "location" in headers:
                    current = urljoin(current, headers["location"])
                    continue
                return _render(current, status, headers, body, truncated, limit, s.web_max_bytes)
        raise ToolError(f"too many redirects (more than {MAX_REDIRECTS})")

    # A web page is content nobody vouches for: it taints the run (harness.tool_protocol.Taint).
    return [FunctionTool(web_fetch, read_only=True, untrusted_output=True)]


async def _get(pool: Any, url: str, max_bytes: int, timeout: float) -> tuple[int, dict[str, str], bytes, bool]:
    ext = {"timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}}
    headers = [(b"User-Agent", USER_AGENT.encode()), (b"Accept", b"text/html,text/*,application/json;q=0.9,*/*;q=0.5")]
    async with pool.stream("GET", url, headers=headers, extensions=ext) as response:
        got = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers}
        chunks: list[bytes] = []
        size = 0
        truncated = False
        async for chunk in response.aiter_stream():
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                truncated = True
                break
        return response.status, got, b"".join(chunks)[:max_bytes], truncated


def _render(url: str, status: int, headers: dict[str, str], body: bytes, truncated: bool,
            limit: int, max_bytes: int) -> str:
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    charset = "utf-8"
    for part in headers.get("content-type", "").split(";")[1:]:
        if part.strip().lower().startswith("charset="):
            charset = part.split("=", 1)[1].strip().strip('"') or "utf-8"
    if ctype == "application/pdf" or body.startswith(b"%PDF"):
        from ..documents import extract_from_bytes

        text = extract_from_bytes(body, "pdf", url)
    elif ctype.startswith("text/") or ctype in ("application/json", "application/xml", "") or \
            ctype.endswith(("+json", "+xml")):
        try:
            raw = body.decode(charset, errors="replace")
        except LookupError:
            raw = body.decode("utf-8", errors="replace")
        text = html_to_text(raw) if "html" in ctype or raw.lstrip()[:15].lower().startswith(("<!doctype html", "<html")) else raw
    else:
        raise ToolError(f"{url} returned {ctype or 'binary content'} ({len(body):,} bytes), which "
                        "web_fetch does not turn into text")
    notes = []
    if status >= 400:
        notes.append(f"[HTTP {status}: the server answered with an error page]")
    if truncated:
        notes.append(f"[the response was larger than {max_bytes:,} bytes; only the start was read]")
    if len(text) > limit:
        notes.append(f"[{len(text) - limit:,} more characters not shown]")
        text = text[:limit]
    return "\n".join([f"URL: {url}", *notes, "", text])
