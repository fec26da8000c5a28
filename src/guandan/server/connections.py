"""The transport of the contest server: which WebSocket handshakes are
accepted (the ``Origin`` rule), one accepted connection with its bounded
outgoing queue and writer task, and the rate-limited logging of refusals
and ignored frames. Nothing here knows the game."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from http import HTTPStatus
from typing import Any, Callable, Iterable, List, Optional, Protocol
from urllib.parse import urlsplit

from .._aio import within

__all__ = ["origin_allowed", "norm_origin", "Conn", "Refusals", "check_origin", "close_reason",
           "LOG_IGNORED", "CLOSE", "Bucket", "bounded_connection", "WRITE_BUFFER_LIMIT",
           "FLOOD_RATE", "FLOOD_BURST"]

log = logging.getLogger("guandan.server")

LOG_IGNORED = 20                # ignored frames logged per connection (then every 1000th)
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
CLOSE = object()                # writer queue sentinel: flush, then close
#: bytes waiting in a connection's outgoing buffer before it is cut: the
#: library answers every ping at once, whether the peer reads or not
WRITE_BUFFER_LIMIT = 4 << 20
#: frames a contest client may send that are not taken (not asked for,
#: garbage) before it is disconnected: FLOOD_RATE a second, bursts of
#: FLOOD_BURST (a bot that adds a stray frame to every answer of a fast
#: game stays well below)
FLOOD_RATE, FLOOD_BURST = 1000.0, 5000
#: bytes of a frame that count as one more frame for that limit
FLOOD_BYTES = 1024
#: pings and pongs a connection may send (the library handles them itself,
#: unseen by the servers): CONTROL_RATE a second, bursts of CONTROL_BURST;
#: more cut the connection
CONTROL_RATE, CONTROL_BURST = 50.0, 500
#: TCP connections the servers of one process hold at once, handshakes in
#: progress included (a handshake may take 10 s, websockets' open_timeout):
#: more are cut as they are accepted, so peers that connect and never finish
#: a handshake cannot use up the process's file descriptors
MAX_SOCKETS = 1024


class Bucket:
    """A token bucket: :meth:`take` is True while ``rate`` a second (bursts
    of ``burst``) have not been used up."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = float(rate), float(burst)
        self.tokens = float(burst)
        self.last: Optional[float] = None

    def _refill(self, now: Optional[float]) -> None:
        if now is None:
            now = asyncio.get_running_loop().time()
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now

    def take(self, n: float = 1.0, now: Optional[float] = None) -> bool:
        self._refill(now)
        if self.tokens >= n:
            self.tokens -= n
            return True
        return False

    def charge(self, n: float, now: Optional[float] = None) -> None:
        """Use ``n`` tokens measured afterwards (the bucket may go below 0)."""
        self._refill(now)
        self.tokens -= n

    def wait_time(self, now: Optional[float] = None) -> float:
        """Seconds until the bucket is no longer below 0 (0.0: it is not)."""
        self._refill(now)
        return max(0.0, -self.tokens / self.rate)


_BOUNDED: List[Any] = []


def bounded_connection() -> Any:
    """The WebSocket connection class both servers use (``create_connection``):
    websockets' own, with its outgoing buffer bounded. The library writes
    the answer to every ping straight into that buffer, so a peer that pings
    without reading would grow it without end; past
    :data:`WRITE_BUFFER_LIMIT` bytes the connection is cut. (What the
    servers send themselves waits for the buffer to drain.) And the pings
    and pongs it takes are bounded (:data:`CONTROL_RATE`): the library
    handles them before the servers see anything, so a flood of them would
    hold the event loop."""
    if not _BOUNDED:
        from websockets.asyncio.server import ServerConnection

        from websockets.frames import Frame, Opcode

        class BoundedConnection(ServerConnection):
            control: Optional[Bucket] = None
            open_count = 0                  # connections of this process not yet lost
            _warned = 0.0

            def connection_made(self, transport: Any) -> None:
                super().connection_made(transport)
                cls = type(self)
                cls.open_count += 1
                if cls.open_count > MAX_SOCKETS:
                    now = self.loop.time()
                    if now - cls._warned >= 1.0:
                        cls._warned = now
                        log.warning("more than %d connections at once: new ones are cut", MAX_SOCKETS)
                    transport.abort()

            def connection_lost(self, exc: Optional[Exception]) -> None:
                type(self).open_count -= 1
                super().connection_lost(exc)

            def process_event(self, event: Any) -> None:
                if isinstance(event, Frame) and event.opcode in (Opcode.PING, Opcode.PONG):
                    if self.control is None:
                        self.control = Bucket(CONTROL_RATE, CONTROL_BURST)
                    if not self.control.take(now=self.loop.time()):
                        if self.transport is not None and not self.transport.is_closing():
                            log.warning("a connection sent more than %d pings and pongs: cut",
                                        CONTROL_BURST)
                            self.transport.abort()
                        return
                super().process_event(event)

            def send_data(self) -> None:
                super().send_data()
                transport = self.transport
                if transport is not None and transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
                    log.warning("a connection's outgoing buffer passed %d bytes (it sends "
                                "without reading): cut", WRITE_BUFFER_LIMIT)
                    transport.abort()

        _BOUNDED.append(BoundedConnection)
    return _BOUNDED[0]


def norm_origin(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def _ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def origin_allowed(origin: str, host: Optional[str] = None, extra: Iterable[str] = ()) -> bool:
    """Whether a WebSocket handshake with this ``Origin`` header (and ``Host``
    header) is accepted; see :mod:`guandan.server`. ``extra``: more allowed
    origins (normalised, ``"*"`` for any)."""
    extra = [norm_origin(o) for o in extra]
    if "*" in extra or norm_origin(origin) in extra:
        return True
    try:
        u = urlsplit(origin.strip())
        hostname, _ = u.hostname, u.port        # .port raises on a bad port
    except ValueError:
        return False
    if u.scheme in ("ws", "wss"):
        return True             # not a browser: ws4py sends the server's URL
    if u.scheme not in ("http", "https") or not hostname or u.username or u.password \
            or u.path not in ("", "/") or u.query or u.fragment:
        return False
    if hostname in _LOOPBACK:
        return True             # a page on this machine's loopback interface
    # websocket-client sends http://HOST[:PORT] of the server it connects to; a
    # browser page can have that origin only if this server served it. Only
    # for IP literals: a DNS name could be rebound to us by a foreign page.
    return (host is not None and _ip_literal(hostname)
            and u.netloc.lower() == host.strip().lower())


class Refusals:
    """Counts refused connections and logs the first 20, then every 1000th."""

    def __init__(self) -> None:
        self.count = 0

    def log(self, fmt: str, *args: Any) -> None:
        self.count += 1
        n = self.count
        if n <= LOG_IGNORED or n % 1000 == 0:
            log.warning(fmt + (f" ({n} refused so far)" if n > LOG_IGNORED else ""), *args)
        elif n == LOG_IGNORED + 1:
            log.warning("%d connections refused; logging only every 1000th from now on", n)


def check_origin(connection: Any, request: Any, extra: List[str], refusals: Refusals) -> Any:
    """The handshake hook (``process_request``): None to accept, an HTTP 403
    response for a browser page of another site."""
    origins = request.headers.get_all("Origin")
    if not origins:
        return None                 # not a browser: most bots send no Origin
    host = request.headers.get("Host")
    if len(origins) == 1 and origin_allowed(origins[0], host, extra):
        return None
    refusals.log("connection to %.100r refused (HTTP 403): Origin %.200s is not allowed: "
                 "a web page from another site may not drive this table (a bot that "
                 "sends this Origin: start the server with --origin %.100s)",
                 request.path, ", ".join(map(repr, origins)), origins[0])
    return connection.respond(HTTPStatus.FORBIDDEN, "Origin not allowed\n")


def close_reason(ws: Any) -> str:
    """Who closed ``ws`` and why, in words."""
    proto = getattr(ws, "protocol", None)
    rcvd = getattr(proto, "close_rcvd", None)
    sent = getattr(proto, "close_sent", None)
    if sent is not None and (rcvd is None or not getattr(proto, "close_rcvd_then_sent", True)):
        return f"closed by the server with code {sent.code} ({sent.reason or 'no reason'})"
    if rcvd is not None:
        return f"the client closed with code {rcvd.code} ({rcvd.reason or 'no reason'})"
    return "connection lost without a close frame"


class Seated(Protocol):
    """What a connection knows of the seat it holds (``seats.Seat``: the
    seats are built on connections, not the other way round)."""

    index: int
    conn: Optional["Conn"]

    def hear(self, raw: Any) -> None: ...

    def lost(self, why: str = "") -> None: ...


class Conn:
    """One accepted connection: its socket, its writer task and its bounded
    outgoing queue (``queue_size`` messages; one more makes it overflow).
    ``seat``: the seat it holds once seated (set by the table)."""

    def __init__(self, ws: Any, label: str, queue_size: int) -> None:
        self.ws = ws
        self.label = label
        self.joined = asyncio.get_running_loop().time()
        self.seat: Optional[Seated] = None
        self.queue_size = queue_size
        self.queue: asyncio.Queue = asyncio.Queue(queue_size + 1)    # + the close sentinel
        self.writer: Optional[asyncio.Task] = None
        self.open = True
        self.ignored = 0
        self.flood = Bucket(FLOOD_RATE, FLOOD_BURST)    # frames not taken, before a disconnect
        self.flooded: Optional[asyncio.Future] = None  # the close that ended a flood

    def who(self) -> str:
        if self.seat is not None:
            return f"seat {self.seat.index} ({self.label})"
        return f"client {self.label!r} (not seated)"

    def ignore(self, why: str, raw: Any) -> None:
        """Log a frame that is not taken (rate-limited per connection); a
        client that keeps sending them (more than :data:`FLOOD_RATE` a
        second, bursts of :data:`FLOOD_BURST`; a frame counts once more for
        every :data:`FLOOD_BYTES` bytes) is closed with code 1008."""
        if not self.flood.take(1 + len(raw) // FLOOD_BYTES) and self.open:
            self.open = False
            log.warning("%s: more than %d messages not asked for (%s): disconnected",
                        self.who(), FLOOD_BURST, why)
            if self.writer is not None and not self.writer.done():
                self.writer.cancel()
            self.flooded = asyncio.ensure_future(self.close(1008, "too many messages not asked for"))
            return
        self.ignored += 1
        n = self.ignored
        if n <= LOG_IGNORED or n % 1000 == 0:
            log.warning("%s: %s, ignored: %.100r%s", self.who(), why, raw,
                        f" ({n} ignored so far)" if n > LOG_IGNORED else "")
        elif n == LOG_IGNORED + 1:
            log.warning("%s: %d messages ignored; logging only every 1000th from now on",
                        self.who(), n)

    def enqueue(self, text: str) -> Optional[str]:
        """Queue ``text``; the reason to drop the connection when its queue is full."""
        if not self.open:
            return None
        if self.queue.qsize() >= self.queue_size:
            return (f"{self.queue_size} messages waiting to be sent (the client is not "
                    "reading): treated as disconnected")
        self.queue.put_nowait(text)
        return None

    def start_writer(self, send_timeout: Optional[float],
                     drop: Callable[["Conn", str], None]) -> None:
        self.writer = asyncio.ensure_future(self._write(send_timeout, drop))

    async def _write(self, send_timeout: Optional[float],
                     drop: Callable[["Conn", str], None]) -> None:
        from websockets.exceptions import ConnectionClosed

        ws = self.ws
        while True:
            frame = await self.queue.get()
            try:
                if frame is CLOSE:
                    await within(ws.close(), send_timeout)
                    return
                await within(ws.send(frame), send_timeout)
            except asyncio.TimeoutError:
                drop(self, f"a message could not be sent within {send_timeout:g}s "
                     "(the client is not reading): treated as disconnected")
                return
            except ConnectionClosed:
                return                  # the reader reports the disconnect
            except Exception as e:
                drop(self, f"send failed ({e}): treated as disconnected")
                return

    def abort(self) -> None:
        """Cut the connection at once (no close frame)."""
        transport = getattr(self.ws, "transport", None)
        if transport is not None:
            transport.abort()

    async def close(self, code: int, reason: str) -> None:
        """A close frame, bounded in time; cut when it cannot be sent."""
        try:
            await within(self.ws.close(code, reason), 2.0)
        except Exception:
            self.abort()
