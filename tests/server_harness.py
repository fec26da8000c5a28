"""The one way tests start a contest server in-process: on an ephemeral
loopback port, waited for until it listens, cleaned up by :func:`finish`."""

import asyncio
import time

from guandan.server import TableServer


async def start(server=None, **kw):
    """Start ``server`` (a TableServer or Listener; default ``TableServer(**kw)`` with
    seed 1) on an ephemeral loopback port; ``(server, task)`` once it listens."""
    if server is None:
        kw.setdefault("seed", 1)
        server = TableServer("127.0.0.1", 0, **kw)
    task = asyncio.ensure_future(server.run())
    t0 = time.monotonic()
    while server.bound_port is None:
        if task.done():
            task.result()
        assert time.monotonic() - t0 < 10, "server not listening within 10 s"
        await asyncio.sleep(0.01)
    return server, task


async def finish(task, timeout=30):
    """Wait for the server's session to end; its records (cancelled if it does not)."""
    try:
        return await asyncio.wait_for(task, timeout)
    finally:
        if not task.done():
            task.cancel()


def url(server, label="t"):
    return f"ws://127.0.0.1:{server.bound_port}/game/{label}"


def ping_without_reading(port, path, limit=256 << 20, seconds=30.0):
    """A raw WebSocket client that pings ``ws://127.0.0.1:port{path}`` as
    fast as it can and never reads (so the answers pile up on the server's
    side). Returns how the connection ended: ``"cut"`` (the server reset
    it), ``"not read"`` (the server stopped reading it) or ``"open"`` (still
    taking pings after ``limit`` bytes or ``seconds``); and the bytes sent."""
    import socket

    sock = raw_handshake(port, path)
    if sock is None:
        return "cut", 0
    try:
        payload = b"p" * 125
        mask = b"\x00\x00\x00\x00"               # masked with zeros: the payload as is
        frame = bytes([0x89, 0x80 | len(payload)]) + mask + payload
        chunk = frame * 1000
        sock.settimeout(5.0)
        sent, t0 = 0, time.monotonic()
        while sent < limit and time.monotonic() - t0 < seconds:
            try:
                sock.sendall(chunk)
            except socket.timeout:
                return "not read", sent
            except OSError:
                return "cut", sent
            sent += len(chunk)
        return "open", sent
    finally:
        sock.close()


def pong_flood(port, path, frames=20_000):
    """A raw WebSocket client that sends ``frames`` empty pongs (unasked for,
    nothing to read back) to ``ws://127.0.0.1:port{path}`` as fast as it
    can, then waits up to 10 s for the server to end the connection.
    Returns ``"cut"`` when the server ended it, ``"open"`` when not."""
    import socket

    sock = raw_handshake(port, path)
    if sock is None:
        return "cut"
    try:
        frame = bytes([0x8A, 0x80]) + b"\x00\x00\x00\x00"      # an empty masked pong
        try:
            for i in range(0, frames, 1000):
                sock.sendall(frame * 1000)
        except OSError:
            return "cut"
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10:
            try:
                if not sock.recv(65536):
                    return "cut"
            except socket.timeout:
                continue
            except OSError:
                return "cut"
        return "open"
    finally:
        sock.close()


def raw_handshake(port, path):
    """A plain socket with a WebSocket handshake done to
    ``ws://127.0.0.1:port{path}`` (101 asserted); None when the server
    closed it first."""
    import base64
    import os
    import socket

    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            sock.close()
            return None
        head += chunk
    assert head.split()[1] == b"101", head
    return sock
