"""web_fetch against a real loopback server, reachable only because the test allows it."""

from __future__ import annotations

import http.server
import threading
import time
from typing import Any

import pytest

PAGES: dict[str, tuple[int, str, bytes, dict[str, str]]] = {
    "/page": (200, "text/html; charset=utf-8",
              b"<html><head><title>Quarterly</title><style>p{}</style><script>var x=1;</script>"
              b"</head><body><h1>Results</h1><p>Revenue grew.</p></body></html>", {}),
    "/plain": (200, "text/plain", b"just text", {}),
    "/json": (200, "application/json", b'{"a": 1}', {}),
    "/big": (200, "text/plain", b"x" * 300_000, {}),
    "/image": (200, "image/png", b"\x89PNG\r\n\x1a\n....", {}),
    "/missing": (404, "text/plain", b"not here", {}),
    "/to-plain": (302, "text/plain", b"", {"Location": "/plain"}),
    "/to-other": (302, "text/plain", b"", {"Location": "http://127.0.0.2:{port}/plain"}),
    "/loop": (302, "text/plain", b"", {"Location": "/loop"}),
}


@pytest.fixture
def site():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/slow":
                time.sleep(6)  # far past the fetch's 1 s timeout, even on a loaded machine
            status, ctype, body, headers = PAGES.get(self.path, PAGES["/missing"])
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v.replace("{port}", str(self.server.server_address[1])))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its size cap or timeout, as intended

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_loopback_refused_by_default(world, make_caller, site) -> None:
    ok, text, _ = await make_caller()("web_fetch", url=site + "/plain")
    assert not ok and "loopback" in text and "web_allow_private" in text


async def test_fetch_html_as_text(world, make_caller, site) -> None:
    call = make_caller(web_allow_private=["127.0.0.1"])
    ok, text, _ = await call("web_fetch", url=site + "/page")
    assert ok and "# Quarterly" in text and "Results\nRevenue grew." in text
    assert "var x" not in text and "p{}" not in text
    ok, text, _ = await call("web_fetch", url=site + "/json")
    assert ok and '{"a": 1}' in text
    ok, text, _ = await call("web_fetch", url=site + "/to-plain")
    assert ok and text.startswith(f"URL: {site}/plain") and "just text" in text
    ok, text, _ = await call("web_fetch", url=site + "/missing")
    assert ok and "HTTP 404" in text


async def test_caps_and_refusals(world, make_caller, site) -> None:
    call = make_caller(web_allow_private=["127.0.0.0/8"], web_max_bytes=100_000, web_timeout_s=1.0)
    ok, text, _ = await call("web_fetch", url=site + "/big", max_chars=1000)
    assert ok and "larger than 100,000 bytes" in text and "more characters not shown" in text
    ok, text, _ = await call("web_fetch", url=site + "/image")
    assert not ok and "image/png" in text
    ok, text, _ = await call("web_fetch", url=site + "/loop")
    assert not ok and "too many redirects" in text
    started = time.monotonic()
    ok, text, _ = await call("web_fetch", url=site + "/slow")
    assert not ok and "did not answer within 1s" in text
    assert time.monotonic() - started < 5  # gave up at its timeout, not at the server's answer
    ok, text, _ = await call("web_fetch", url="ftp://example.org/x")
    assert not ok and "not an http(s) URL" in text


async def test_redirect_to_a_host_not_allowed_is_refused(world, make_caller, site) -> None:
    """Only 127.0.0.1 is allowed; a redirect to another loopback address is checked anew."""
    call = make_caller(web_allow_private=["127.0.0.1"])
    ok, text, _ = await call("web_fetch", url=site + "/to-other")
    assert not ok and "127.0.0.2 resolves to 127.0.0.2" in text and "loopback" in text


def test_address_guard_rules() -> None:
    from orkas_nb.tools.web import AddressGuard, AddressRefused

    guard = AddressGuard(["10.1.0.0/16", "devbox"])
    guard.check("example.org", "93.184.216.34")
    guard.check("x", "10.1.2.3")
    guard.check("devbox", "192.168.1.5")
    for ip in ("127.0.0.1", "::1", "169.254.169.254", "192.168.1.5", "0.0.0.0", "::ffff:127.0.0.1",
               "fe80::1", "10.2.0.1", "224.0.0.1"):
        with pytest.raises(AddressRefused):
            guard.check("h", ip)
