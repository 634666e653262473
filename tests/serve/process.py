"""`toolsel serve` as a real process on a free loopback port, for the tests that need real
sockets (connection limits, timeouts, signals)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[str]
    port: int
    stderr: str = field(default="")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self, path: str, body: object | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, object]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.base + path,
            data=data,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


def wait_until_ready(server: Server, args: tuple[str, ...], seconds: float = 60) -> None:
    """Wait while /readyz says the server is still starting (its ranking index is made
    after it answers /healthz), so that a test sees the server as its clients will."""
    token = args[args.index("--token") + 1] if "--token" in args else None
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        status, body = server.request("/readyz", None, headers)
        if status != 503 or not isinstance(body, dict) or body.get("index_ready", True):
            return
        time.sleep(0.05)


@contextlib.contextmanager
def running_server(tmp_path: Path, *args: str, registry: Path | None = None) -> Iterator[Server]:
    """Start `toolsel serve` and wait until /healthz answers; SIGTERM it on the way out and
    keep its stderr in `server.stderr` (its return code in `server.process.returncode`)."""
    port = free_port()
    command = [
        sys.executable, "-m", "toolsel", "serve", "-r", str(registry or ROOT / "registries"),
        "--port", str(port), "--no-embed", "--db", f"sqlite:///{tmp_path / 'usage.sqlite3'}",
        *args,
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TOOLSEL_CACHE_DIR": str(tmp_path / "cache")},
    )
    server = Server(process, port)
    try:
        for _ in range(400):
            if process.poll() is not None:
                raise RuntimeError(
                    f"serve exited: {process.stderr.read() if process.stderr else ''}"
                )
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                    probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    if probe.recv(100).startswith(b"HTTP/1.1 200"):
                        break
            except OSError:
                time.sleep(0.05)
        wait_until_ready(server, args)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            _, server.stderr = process.communicate(timeout=40)
        except subprocess.TimeoutExpired:
            process.kill()
            _, server.stderr = process.communicate()
            raise AssertionError("serve did not stop on SIGTERM within 40 s") from None
