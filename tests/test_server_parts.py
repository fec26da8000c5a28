"""The contest server's parts without sockets: the messages as pure
functions of a game, the answer parsing and the seats' fault policy."""

import asyncio
import json

import pytest

from guandan.errors import GuandanError
from guandan.game import Game
from guandan.rules import Rules
from guandan.server import messages
from guandan.server.seats import FaultPolicy, Seat, parse_answer, policy_move


def _game():
    return Game(rules=Rules.contest(), seed=11)


def test_beginning_shows_only_the_own_hand():
    g = _game()
    for s in range(4):
        m = messages.beginning(g, s)
        assert list(m) == ["type", "stage", "handCards", "myPos", "selfRank", "oppoRank", "curRank"]
        assert m["myPos"] == s and m["handCards"] == g.hands[s].cards(g.level)
        assert json.dumps(m)


def test_act_lists_the_legal_moves_and_the_public_state():
    g = _game()
    legal = g.legal_moves(order="contest")
    acts = legal.to_platform()
    m = messages.act(g, g.to_act, "play", acts)
    assert m["actionList"] == acts and m["indexRange"] == len(acts) - 1
    assert m["handCards"] == g.hands[g.to_act].cards(g.level)
    assert [p["rest"] for p in m["publicInfo"]] == g.card_counts
    assert m["curPos"] == -1 and m["greaterAction"] == [None, None, None]


def test_played_names_the_greater_play_before_the_move():
    g = _game()
    lead = g.choose("greedy")
    m = messages.played(g, lead)
    assert m["curPos"] == g.to_act and m["greaterPos"] == g.to_act
    seat = g.to_act
    g.play(lead)
    passes = [x for x in g.legal_moves() if x.is_pass]
    if passes:
        m2 = messages.played(g, passes[0])
        assert m2["greaterPos"] == seat and m2["greaterAction"] == lead.to_platform()


def test_end_messages():
    assert messages.game_over(2, 3) == {"type": "notify", "stage": "gameOver", "curTimes": 2,
                                        "settingTimes": 3}
    assert messages.game_result([1, 0, 1, 0], [0] * 4)["victoryNum"] == [1, 0, 1, 0]
    g = _game()
    rank, rnd = g.level, g.round_index
    while g.round_index == rnd and not g.is_over:
        g.play(g.choose("greedy"))
    m = messages.episode_over(g, rank)
    assert m["order"] == g.last_round_order and m["curRank"] == rank


@pytest.mark.parametrize("raw,want", [('{"actIndex": 3}', 3), ('{"actIndex": "3"}', None),
                                      ("nope", None), (b'{"actIndex": 1}', None),
                                      ("[1]", None), ('{"actIndex": true}', None)])
def test_parse_answer(raw, want):
    assert parse_answer(raw) == want


def test_policy_move_accepts_moves_triples_and_indices_only_when_legal():
    g = _game()
    legal = g.legal_moves()
    m = legal[0]
    assert policy_move(m, legal, g.level) == m
    assert policy_move(0, legal, g.level) == m
    assert policy_move(m.to_platform(), legal, g.level) == m
    for bad in (True, len(legal), -1, "junk"):
        with pytest.raises(GuandanError):
            policy_move(bad, legal, g.level)


def test_fault_policy_options():
    assert not FaultPolicy().forfeits_on_time
    assert FaultPolicy(on_timeout="forfeit").forfeits_on_time
    assert FaultPolicy(game_time=5.0).forfeits_on_time
    for kw in ({"on_disconnect": "x"}, {"on_timeout": "x"}, {"on_invalid": "x"},
               {"max_misses": -1}):
        with pytest.raises(GuandanError):
            FaultPolicy(**kw)


def test_seat_state():
    s = Seat(2, None)
    assert not s.is_client and not s.asked and s.ws is None


class _Host:
    """A table as far as a seat can tell (seats.SeatHost), without sockets."""

    def __init__(self, timeout=None, late_grace=0.0, **faults):
        self.faults = FaultPolicy(**faults)
        self.timeout = timeout
        self.late_grace = late_grace
        self.aborted = False
        self.done = False
        self.forfeits = []
        self.dropped = []
        self.seats = []

    def abort(self, seat, reason):
        self.forfeits.append((seat, reason))
        self.end_session()

    def end_session(self):
        self.aborted = True
        for s in self.seats:
            s.interrupt()

    def drop(self, conn, why, close=None):
        self.dropped.append((why, close))
        conn.open = False
        if conn.seat is not None and conn.seat.conn is conn:
            conn.seat.lost(why)


class _WS:
    transport = None


def _client(host, g):
    from guandan.server.connections import Conn

    seat = Seat(g.to_act, None, host)
    seat.take(Conn(_WS(), "t", 8))
    host.seats.append(seat)
    return seat


def _question(seat):
    return json.loads(seat.conn.queue.get_nowait())


def test_built_in_and_python_seats_decide_without_a_table():
    g = _game()

    async def main():
        host = _Host(timeout=5)
        assert await Seat(g.to_act, "greedy", host).decide(g, "play") == g.choose("greedy")
        first = await Seat(g.to_act, lambda obs, legal: 0, host).decide(g, "play")
        assert first == g.legal_moves()[0] and not host.forfeits
        assert await Seat(g.to_act, lambda obs, legal: "junk", host).decide(g, "play") is None
        assert host.forfeits and "illegal move" in host.forfeits[0][1]

    asyncio.run(main())


def test_client_seat_asks_and_takes_the_answer_it_hears():
    g = _game()

    async def main():
        seat = _client(_Host(timeout=5), g)
        task = asyncio.ensure_future(seat.decide(g, "play"))
        await asyncio.sleep(0.01)
        q = _question(seat)
        legal = g.legal_moves(order="contest")
        assert q["type"] == "act" and q["indexRange"] == len(legal) - 1
        seat.hear('{"actIndex": 99999}')         # out of range: ignored, still asked
        assert seat.asked
        seat.hear('{"actIndex": 1}')
        assert await task == legal[1]

    asyncio.run(main())


def test_client_seat_timeout_plays_the_default_and_drops_the_late_answer():
    g = _game()

    async def main():
        host = _Host(timeout=0.05, late_grace=5.0)
        seat = _client(host, g)
        legal = g.legal_moves(order="contest")
        assert await seat.decide(g, "play") == legal[0]          # the default action
        assert seat.owed_until is not None and seat.misses == 1
        seat.hear('{"actIndex": 1}')             # the late answer: discarded
        assert seat.owed_until is None and seat.misses == 0
        task = asyncio.ensure_future(seat.decide(g, "play"))
        await asyncio.sleep(0.01)
        _question(seat), _question(seat)         # both questions were sent
        seat.hear('{"actIndex": 2}')
        assert await task == legal[2]

    asyncio.run(main())


def test_client_seat_that_leaves_while_asked_follows_on_disconnect():
    g = _game()

    async def main():
        seat = _client(_Host(timeout=5), g)
        task = asyncio.ensure_future(seat.decide(g, "play"))
        await asyncio.sleep(0.01)
        seat.lost("test")
        assert await task == g.choose("greedy") and seat.policy == "greedy"
        host = _Host(timeout=5, on_disconnect="forfeit")
        seat = _client(host, g)
        task = asyncio.ensure_future(seat.decide(g, "play"))
        await asyncio.sleep(0.01)
        seat.lost("test")
        assert await task is None and host.forfeits[0][0] == seat.index

    asyncio.run(main())


def test_hung_client_seat_is_dropped_after_max_misses():
    g = _game()

    async def main():
        host = _Host(timeout=0.02, max_misses=2)
        seat = _client(host, g)
        for _ in range(2):
            assert await seat.decide(g, "play") is not None
        assert host.dropped and host.dropped[0][1] == 1008 and seat.conn is None

    asyncio.run(main())


def test_bot_specs_carry_their_options():
    from guandan.server.table import parse_bots
    assert parse_bots("1=search:cpu_ms=200,k=5,3=greedy") == {1: "search:cpu_ms=200,k=5", 3: "greedy"}
    assert parse_bots("0=expert, 2=search:rollouts=40") == {0: "expert", 2: "search:rollouts=40"}
    for bad in ("1=search:cpu_ms=200,k", "x=greedy", "1=nobody", "5=greedy", "1=greedy:x=1"):
        with pytest.raises(GuandanError):
            parse_bots(bad)


def test_a_slow_named_bot_does_not_stall_the_loop():
    """A named policy that is not a fixed native one (a search, a registered
    Python policy) decides in a worker thread: the loop the other
    connections share keeps running meanwhile."""
    import time as _time
    from guandan.policies import register, unregister

    class Slow:
        def __init__(self, seed=None):
            pass

        def decide(self, game):
            _time.sleep(0.3)
            return game.legal_moves()[0]

    register("slow-first", Slow)
    try:
        g = _game()

        async def main():
            ticks = 0

            async def tick():
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.01)
                    ticks += 1

            t = asyncio.ensure_future(tick())
            m = await Seat(g.to_act, "slow-first", _Host(timeout=5)).decide(g, "play")
            t.cancel()
            return m, ticks

        m, ticks = asyncio.run(main())
        assert m == g.legal_moves()[0] and ticks >= 10
    finally:
        unregister("slow-first")


@pytest.mark.parametrize("has_timeout", [True, False], ids=["asyncio.timeout", "asyncio.wait"])
def test_a_time_limited_wait_never_hides_a_cancellation(monkeypatch, has_timeout):
    """The servers' time limits (``guandan._aio.within``): a task
    cancelled in the same turn of the loop as what it waits for finishes is
    cancelled, not handed the result (Python before 3.12's
    ``asyncio.wait_for`` returns the result: an arena's table writer went
    on waiting for its queue after its cancellation, and the arena took
    10 s to stop); the time limit and the result as ``wait_for`` gives
    them."""
    import asyncio

    from guandan import _aio
    from guandan._aio import within

    if has_timeout and not _aio.HAS_TIMEOUT:
        pytest.skip("asyncio.timeout is Python 3.11 and later")
    monkeypatch.setattr(_aio, "HAS_TIMEOUT", has_timeout)

    async def main():
        loop = asyncio.get_running_loop()
        inner = loop.create_future()
        reached = []

        async def waiter():
            got = await within(inner, 10)
            reached.append(got)
            await asyncio.sleep(3600)

        t = asyncio.ensure_future(waiter())
        await asyncio.sleep(0)
        inner.set_result(1)
        t.cancel()
        done, _ = await asyncio.wait({t}, timeout=2)
        assert t in done and t.cancelled() and reached == []

        async def slow():
            await asyncio.sleep(10)
        with pytest.raises(asyncio.TimeoutError):
            await within(slow(), 0.01)
        assert await within(asyncio.sleep(0, "x"), 1) == "x"
        assert await within(asyncio.sleep(0, "y"), None) == "y"

    asyncio.run(asyncio.wait_for(main(), 30))
