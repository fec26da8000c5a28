"""A table server for the official Guandan AI-contest protocol
(``docs/protocol.md``): JSON over WebSocket, so bots written for the
contest platform (``guandan_offline_v1006``) play against this engine
unchanged.

    guandan serve --port 23456 --games 3 --bots 1=greedy,3=greedy

Every message sent is one the protocol defines (no extra fields, no other
messages). Robustness rules, for faulty or hostile clients:

*Seats.* Before the game, connections wait in connection order. A connection
that closes before the game starts frees its place (the next live connection
moves up), so dead connections neither keep a seat nor end an ``abort``
session. The game starts once the first N waiting connections (N = the seats
not taken by built-in bots) are open, the last of them connected at least
``start_delay`` (0.2 s) ago; they get those seats in connection order. Up to
``MAX_WAITING`` (16) more may wait in case one leaves; when the game starts
they, and any later connection, are refused (close code 1013 "table full"),
as are connections beyond that cap.

*Answers.* Anything a client sends out of turn, malformed or out of range is
logged and ignored (the server keeps waiting, as the reference server does);
binary frames are never answers (ignored, logged). A frame over ``max_frame``
bytes (64 KiB; answers are tiny) makes the WebSocket layer close the
connection with code 1009, and the seat counts as disconnected. Ignored frames
are logged with the reason (the first 20 of each connection, then every 1000th).

*Timeout.* A seat that does not answer within ``timeout`` seconds plays the
*default action*. Default 30 s: the contest protocol (docs/protocol.md) sets no limit (the reference server
waits forever, so one hung bot freezes its table); 30 s is far more than a
contest bot thinks per move yet bounds a hung one. ``0`` or ``None`` waits
forever. The default action is index 0 of its ``actionList`` (the pass when
following; otherwise the first listed move, the lowest-suited lowest single
when leading, or the first allowed tribute/return card). A seat that leaves ``max_misses`` (default 5)
questions in a row without any answer, not even a late one, is hung: it is
closed (code 1008) and counts as disconnected (``0``: never).

*Late answers.* The protocol has no request ids, so an answer that arrives
after its timeout would otherwise be taken as the answer to the seat's next
question. Rule: after a timeout the seat owes one stale answer. The first
answer it sends before its next question that would have been valid for the
timed-out question (``{"actIndex": N}``, N in its range) is that stale answer
and is discarded (logged); its next question is held until the stale
answer has arrived, or ``late_grace`` seconds (default: equal to ``timeout``)
have passed since the timeout, whichever comes first. After that the debt is
forgotten and answers count again (a seat that simply never answered is then
asked normally).

*Sending.* Every connection has its own writer task and a bounded outgoing
queue (``send_queue`` messages, default 1024), so a broadcast never waits for
a slow seat. A seat whose queue overflows, or one of whose messages cannot be
handed to the network within ``send_timeout`` seconds (default 10: the client
is not reading), is disconnected.

*Disconnects.* A seat that disconnects (or is disconnected by the rules
above) is played by the built-in greedy bot from then on
(``on_disconnect="bot"``), or the session ends: the other connections get
what was already queued and are closed without further messages (``"abort"``).

*Origin.* Browsers send the page's ``Origin`` with WebSocket connections; a
page on another site must not drive a local table. Accepted: no Origin (most
bots); ``ws://``/``wss://`` origins (ws4py sends the server's URL; never a
browser); loopback pages (``http(s)://127.0.0.1``, ``localhost``, ``[::1]``,
any port); ``http(s)://HOST[:PORT]`` equal to the request's ``Host`` when HOST
is an IP address (websocket-client's default; such a page could only come
from this server, and a DNS name could be rebound to us by a foreign page);
and the origins listed in ``origins`` (``"*"``: any). Others get HTTP 403.

*Records.* Each game's record (the engine's record format) is written to
``record_dir`` as it ends, atomically (a temporary file in the same folder,
then ``os.replace``): a record file is complete or absent. Only the last
``keep_records`` (default 10) stay in memory (``records``, returned by
``run``).

The package's parts, bottom up (each imports only the ones before it):
:mod:`.messages` (the protocol's messages as pure functions of a game),
:mod:`.connections` (origin rule, connections and their writer queues),
:mod:`.seats` (a seat asks its question and returns a legal move, its fault
policy applied), :mod:`.table` (one table's session; it listens on no port)
and :mod:`.listener` (one port routing connections to tables, the one place
that refuses them; :class:`TableServer`: one table on a port of its own).
"""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

from .connections import origin_allowed
from .listener import Listener, MultiTableServer, TableServer, serve_tables
from .table import DEFAULT_TIMEOUT, MAX_WAITING, Table, parse_bots

__all__ = ["Table", "TableServer", "Listener", "MultiTableServer", "serve", "serve_tables",
           "parse_bots", "origin_allowed", "DEFAULT_TIMEOUT", "MAX_WAITING"]


def serve(host: str = "127.0.0.1", port: int = 23456, **kwargs: Any) -> List[Dict[str, Any]]:
    """Run a :class:`TableServer` (one table on its own port) to completion (blocking)."""
    return asyncio.run(TableServer(host, port, **kwargs).run())
