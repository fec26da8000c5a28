"""One listening port routing connections to tables.

A connection to ``/game/{label}`` goes to the table that reserved its label
(``seat_labels``), else to the first table that still has a free client
seat -- tables fill in order, so an existing contest bot connects exactly as
to a single table -- else it waits at the first table not started. A single table
(:class:`TableServer`) is served the same way, by a listener of its own.

The listener is the one place that refuses a connection: a path other than
``/game/{label}`` (close code 1008), no table to take it or the table's
:meth:`Table.refusal` (1013 "table full"). A table serves only the
connections handed to it (:meth:`Table.serve_connection`).
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any, Dict, Iterable, List, Optional

from ..errors import GuandanError
from .connections import Refusals, bounded_connection, check_origin, norm_origin
from .table import Table

__all__ = ["Listener", "MultiTableServer", "TableServer", "serve_tables"]

log = logging.getLogger("guandan.server")


class Listener:
    """Several tables on one port. ``tables`` tables are made with
    ``table_kwargs`` (:class:`Table` options; table ``t`` deals from ``seed +
    t * games`` on); ``await run()`` serves until every table has ended and
    returns each table's records. A supervisor that opens tables as it goes
    (the arena): ``tables=0``, ``await start()``, :meth:`add_table`, ``await
    table.serve_table()``, :meth:`remove_table`, ``await stop()``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 23456, *, tables: int = 1,
                 seed: Optional[int] = None, origins: Optional[Iterable[str]] = None,
                 max_frame: int = 64 * 1024, **table_kwargs: Any) -> None:
        self.announce = table_kwargs.get("announce")
        if tables < 0:
            raise GuandanError("tables must be >= 0")
        self.host = host
        self.port = port
        self.max_frame = max_frame
        self.origins = [norm_origin(o) for o in (origins or ()) if o.strip()]
        base = seed if seed is not None else random.SystemRandom().getrandbits(62)
        games = int(table_kwargs.get("games", 1))
        self.tables: List[Table] = [
            Table(host, port, seed=(base + t * games) % (1 << 63), origins=origins,
                  max_frame=max_frame, **table_kwargs) for t in range(tables)]
        if tables > 1:
            for t, table in enumerate(self.tables):
                table.title = f"table {t + 1}"
        self._server: Any = None
        self.bound_port: Optional[int] = None
        self.refusals = Refusals()

    def tell(self, line: str) -> None:
        """A line for the operator: ``announce(line)``, else logged (INFO)."""
        if self.announce is not None:
            self.announce(line)
        else:
            log.info("%s", line)

    def add_table(self, table: Table) -> Table:
        table._prepare()
        self.tables.append(table)
        if self.bound_port is not None:
            table.bound_port = self.bound_port
        return table

    def remove_table(self, table: Table) -> None:
        if table in self.tables:
            self.tables.remove(table)

    def route(self, label: str) -> Optional[Table]:
        """The table a new connection with ``label`` goes to (None: every table is full)."""
        for t in self.tables:                       # a label reserved by a table
            if t.seat_labels and t.accepts(label):
                return t
        for t in self.tables:                       # table by table, in connection order
            if not t.seat_labels and t.accepts(label):
                return t
        for t in self.tables:                       # every seat taken: wait at the first open
            if t.waits_for_anyone():
                return t
        if len(self.tables) == 1:
            return self.tables[0]                   # its refusal() gives the reason
        return None

    def _process_request(self, connection: Any, request: Any) -> Any:
        return check_origin(connection, request, self.origins, self.refusals)

    async def _handler(self, ws: Any) -> None:
        """Every connection: refused (a wrong path, no table to take it) or
        handed to its table (:meth:`route`) for as long as it lasts."""
        path = getattr(getattr(ws, "request", None), "path", "") or ""
        if not path.startswith("/game/"):
            self.refusals.log("connection to %.100r refused: the path is /game/{label}", path)
            await ws.close(1008, "path must be /game/{label}")
            return
        label = path[len("/game/"):]
        table = self.route(label)
        why = "every table is full" if table is None else table.refusal(label)
        if table is None or why is not None:
            self.refusals.log("connection %.100r refused: %s", path, why)
            await ws.close(1013, "table full")
            return
        await table.serve_connection(ws, label)

    async def start(self) -> None:
        try:
            from websockets.asyncio.server import serve as ws_serve
        except ImportError:
            raise GuandanError("the server needs websockets >= 13: pip install '.[server]' "
                               "in the guandan folder (a clone of the repository)") from None
        for t in self.tables:
            t._prepare()
        self._server = await ws_serve(self._handler, self.host, self.port, ping_interval=None,
                                      max_size=self.max_frame,
                                      process_request=self._process_request,
                                      create_connection=bounded_connection())
        self.bound_port = next(iter(self._server.sockets)).getsockname()[1]
        for t in self.tables:
            t.bound_port = self.bound_port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def run(self) -> List[List[Any]]:
        """Serve every table to its end; the records of each table."""
        await self.start()
        seats = sum(len(t._free) for t in self.tables)
        games = sum(t.games for t in self.tables)
        self.tell(f"serving on ws://{self.host}:{self.bound_port}/game/NAME: {len(self.tables)} "
                  f"tables, {seats} seats for clients, {games} games (Ctrl-C stops)")
        try:
            return list(await asyncio.gather(*(t.serve_table() for t in self.tables)))
        finally:
            await self.stop()


MultiTableServer = Listener


class TableServer(Table):
    """One :class:`Table` on a listener of its own (its options are
    :class:`Table`'s): ``await TableServer(...).run()`` serves its whole
    session on ``host:port``."""

    async def run(self) -> List[Dict[str, Any]]:
        """Serve until the last game is over (or the session is aborted), on
        a listener of its own; the last ``keep_records`` records."""
        srv = Listener(self.host, self.port, tables=0, max_frame=self.max_frame,
                       origins=self.origins)
        srv.refusals = self.refusals
        srv.add_table(self)
        await srv.start()
        n = len(self._free)
        self.tell(f"serving on ws://{self.host}:{self.bound_port}/game/NAME: waiting for {n} "
                  f"client{'' if n == 1 else 's'}, {self.games} game{'' if self.games == 1 else 's'} "
                  f"(Ctrl-C stops)")
        try:
            return await self.serve_table()
        finally:
            await srv.stop()


def serve_tables(host: str = "127.0.0.1", port: int = 23456, *, tables: int = 2,
                 **kwargs: Any) -> List[List[Any]]:
    """Run a :class:`Listener` with ``tables`` tables to completion (blocking)."""
    return asyncio.run(Listener(host, port, tables=tables, **kwargs).run())
