"""Waiting with a time limit that never hides a cancellation.

:func:`within` is ``asyncio.wait_for`` for the servers (the contest table
server, the web table, the arena's tables). Before Python 3.12,
``wait_for`` returns the awaitable's result when it finishes in the same
turn of the loop as the waiting task is cancelled: the cancellation is
lost, and a task cancelled so that a server can stop goes on to its next
wait (a connection's writer to its queue, for ever). ``within`` raises
:class:`asyncio.CancelledError` then, and :class:`asyncio.TimeoutError`
when the time runs out, as ``wait_for`` does.

>>> import asyncio
>>> async def quick():
...     return 7
>>> asyncio.run(within(quick(), 1.0))
7
>>> async def slow():
...     await asyncio.sleep(10)
>>> try:
...     asyncio.run(within(slow(), 0.01))
... except asyncio.TimeoutError:
...     print("timed out")
timed out
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Awaitable, Optional, TypeVar

__all__ = ["within"]

T = TypeVar("T")

#: ``asyncio.timeout`` (Python 3.11 and later); the other path is tested too
HAS_TIMEOUT = sys.version_info >= (3, 11)


async def within(aw: Awaitable[T], timeout: Optional[float]) -> T:
    """Await ``aw`` for at most ``timeout`` seconds (None: no limit);
    :class:`asyncio.TimeoutError` when it runs out (``aw`` is cancelled).
    A cancellation of the caller is never turned into a result."""
    if timeout is None:
        return await aw
    if HAS_TIMEOUT:
        async with asyncio.timeout(timeout):      # type: ignore[attr-defined]  # counts its cancellations
            return await aw
    fut: "asyncio.Future[Any]" = asyncio.ensure_future(aw)
    try:
        done, _ = await asyncio.wait({fut}, timeout=timeout)
    except asyncio.CancelledError:
        fut.cancel()
        raise
    if not done:
        fut.cancel()
        raise asyncio.TimeoutError()
    return fut.result()
