"""Connections against a real `toolsel serve`: idle and slow sockets are closed, the open
count is capped without locking clients out, and refusals are logged in one line."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.serve.process import running_server

TIMEOUT = "0.5"


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_idle_and_slow_connections_are_closed(tmp_path: Path) -> None:
    with running_server(tmp_path, "--header-timeout", TIMEOUT) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(20)]
        slow = socket.create_connection(("127.0.0.1", server.port))
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        for _ in range(6):  # a header byte now and then: never a whole request
            time.sleep(0.2)
            try:
                slow.sendall(b"X")
            except OSError:
                break
        assert all(_closed_by_server(s, 5) for s in idle)
        assert _closed_by_server(slow, 5)
        # after a response, a keep-alive connection that starts a request and stalls
        kept = socket.create_connection(("127.0.0.1", server.port))
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        response = b""
        while not response.endswith(b'{"ok":true}'):
            response += kept.recv(1000)
        assert response.startswith(b"HTTP/1.1 200")
        kept.sendall(b"GET /healthz HTTP/1.1\r\n")
        assert _closed_by_server(kept, 5)
        for s in [*idle, slow, kept]:
            s.close()
        assert server.request("/healthz") == (200, {"ok": True})
    assert server.process.returncode == 0 and "Traceback" not in server.stderr


def test_idle_sockets_never_lock_out_a_client_with_the_token(tmp_path: Path) -> None:
    import os

    os.environ["TOOLSEL_TOKEN"] = "t0ken"
    try:
        with running_server(
            tmp_path, "--max-connections", "16", "--header-timeout", "30"
        ) as server:
            hogs = []
            for _ in range(200):  # far more than the cap; none sends a byte
                try:
                    hogs.append(socket.create_connection(("127.0.0.1", server.port), timeout=2))
                except OSError:
                    break
            auth = {"Authorization": "Bearer t0ken"}
            for _ in range(5):
                status, body = server.request("/v1/rank", {"query": "read a file"}, auth)
                assert status == 200 and body["results"]  # type: ignore[index]
            for s in hogs:
                s.close()
    finally:
        del os.environ["TOOLSEL_TOKEN"]
    assert server.process.returncode == 0
    assert "Traceback" not in server.stderr and len(server.stderr) < 20_000
    notes = [line for line in server.stderr.splitlines() if "connections:" in line]
    assert 1 <= len(notes) <= 3, server.stderr[-2000:]  # once per interval, not per socket
