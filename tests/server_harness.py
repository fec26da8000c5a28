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
