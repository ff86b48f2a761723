"""stdio ↔ the orkas_nb gateway's Unix socket, for any MCP client that launches stdio servers.

Run as a script (``python3 gateway_bridge.py``; the standard library only, so any Python of the
machine will do): it connects to ``$ORKAS_GATEWAY_SOCKET``, authenticates with
``$ORKAS_GATEWAY_TOKEN``, then copies stdin to the socket and the socket to stdout, one JSON-RPC
message a line. A refused credential ends it with exit code 3 and the reason on stderr.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading


def main() -> int:
    path = os.environ.get("ORKAS_GATEWAY_SOCKET", "")
    token = os.environ.get("ORKAS_GATEWAY_TOKEN", "")
    if not path:
        print("orkas gateway: ORKAS_GATEWAY_SOCKET is not set", file=sys.stderr)
        return 2
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        print(f"orkas gateway: cannot connect ({exc.strerror or exc}): the run has ended?",
              file=sys.stderr)
        return 3
    sock.sendall(json.dumps({"orkas_gateway": 1, "token": token}).encode() + b"\n")
    stream = sock.makefile("rb")
    reply = json.loads(stream.readline() or b"{}")
    if not reply.get("ok"):
        print(f"orkas gateway: refused: {reply.get('error', 'no answer')}", file=sys.stderr)
        return 3

    def upstream() -> None:
        for line in sys.stdin.buffer:
            sock.sendall(line if line.endswith(b"\n") else line + b"\n")
        sock.shutdown(socket.SHUT_WR)

    threading.Thread(target=upstream, daemon=True).start()
    out = sys.stdout.buffer
    for line in stream:
        out.write(line)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
