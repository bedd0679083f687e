"""Replication batches over loopback TCP: one JSON request line, one JSON reply line, per
connection. A sink answers ``{"ok": true}`` only after the batch is on disk, so an acknowledged
batch is applied (seed 002: the sink "reads them sequentially" and flushes them, then the source
records its position)."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from collections.abc import Callable
from typing import Any


def send(addr: str, request: dict[str, Any], timeout: float = 3.0) -> dict[str, Any]:
    """Send one request to ``host:port``; raises OSError when the sink does not answer."""
    host, port = addr.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(json.dumps(request).encode() + b"\n")
        f = s.makefile("rb")
        line = f.readline()
    if not line:
        raise OSError(f"{addr}: closed without an answer")
    return json.loads(line)


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline()
        if not line:
            return
        try:
            reply = self.server.on_request(json.loads(line))  # type: ignore[attr-defined]
        except Exception as exc:  # a bad request gets an error answer, the server goes on
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        self.wfile.write(json.dumps(reply).encode() + b"\n")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(port: int, on_request: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[_Server, int]:
    """Serve requests on 127.0.0.1:``port`` (0: any free port) in a background thread."""
    server = _Server(("127.0.0.1", port), _Handler)
    server.on_request = on_request  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
