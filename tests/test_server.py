"""Conformance tests for ``guandan serve``: the official Guandan AI-competition
WebSocket protocol (``shared/PROTOCOL.md``).

The clients here are written from PROTOCOL.md (and the game rules of RULES.md)
alone; they never import the server.  The engine (``guandan``) is used only to
replay the ``--record`` files and to cross-check the ``actionList`` of ``act``
messages against the engine's legal moves.

Every test starts ``python -m guandan serve`` on a free loopback port, drives
it with asyncio ``websockets`` clients (one test uses a ws4py thread client,
like the contest's sample bots), bounds its run time with
``asyncio.wait_for`` and kills the server at the end.

Checked per client (class ``Seat``):
  * every frame is a JSON text frame, with one of the (type, stage) pairs of
    PROTOCOL.md and every field of that message well formed
    (``validate_message``);
  * the message order of "Order of messages in a round" (beginning, tribute /
    back or anti-tribute from the second round of a game, act/notify play,
    episodeOver, gameOver, gameResult, then the connection is closed);
  * who acts (turn order, trick ends, the partner taking over, the first
    leader after tribute), greaterPos / greaterAction, publicInfo rest counts
    and playArea, handCards == the tracked hand (deal - plays +- tribute/back),
    the tribute / back choices, team levels (selfRank, oppoRank, curRank),
    finishing order and restCards of episodeOver, gameOver / gameResult
    counts;
  * each answered ``act`` is followed by a ``notify play`` (or tribute /
    back) carrying exactly the chosen action.
Across the four clients of a table: identical public notify streams, the four
hands of each deal partition the 108 cards, anti-tribute iff the payers hold
both big jokers.  ``test_checker_catches_deviations`` proves the checker
itself: single deviations injected into a real session's stream are caught.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter

import pytest

import guandan
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from helpers import child_output

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --------------------------------------------------------------------------
# Encodings (PROTOCOL.md "Encodings")

RANKS = "23456789TJQKA"          # rank letters, natural order with A high
SUITS = "SHCD"                   # suit order inside a rank
NAT = "A23456789TJQKA"           # sequence order, A low at 0 and high at 13
FACES = [s + r for r in RANKS for s in SUITS] + ["SB", "HR"]
DECK = Counter({f: 2 for f in FACES})
PASS = ["PASS", "PASS", "PASS"]
NULL3 = [None, None, None]
PLAY_TYPES = ("Single", "Pair", "Trips", "ThreePair", "ThreeWithTwo", "TwoTrips",
              "Straight", "StraightFlush", "Bomb")
PAIRS = {
    "notify": ("beginning", "play", "tribute", "anti-tribute", "back", "episodeOver",
               "gameOver", "gameResult"),
    "act": ("play", "tribute", "back"),
}
ACT_FIELDS = ("handCards", "publicInfo", "selfRank", "oppoRank", "curRank", "curPos",
              "curAction", "greaterPos", "greaterAction", "actionList", "indexRange")

SERVER_START_TIMEOUT = 20.0


class ProtocolViolation(AssertionError):
    pass


def fail(msg):
    raise ProtocolViolation(msg)


def short(obj, n=300):
    s = json.dumps(obj) if not isinstance(obj, str) else obj
    return s if len(s) <= n else s[:n] + "..."


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_card(c):
    return isinstance(c, str) and (c in ("SB", "HR") or (len(c) == 2 and c[0] in SUITS
                                                          and c[1] in RANKS))


def card_rank(c):
    """Rank letter of a card; B / R for the jokers."""
    return "B" if c == "SB" else "R" if c == "HR" else c[1]


def level_value(c, level):
    """Level order: 2..A with the level rank after A, then SB, HR."""
    if c == "SB":
        return 14
    if c == "HR":
        return 15
    return 13 if c[1] == level else RANKS.index(c[1])


def hand_sort_key(level):
    return lambda c: (level_value(c, level), SUITS.index(c[0]))


def check_cards(cards, where):
    if not isinstance(cards, list):
        fail(f"{where}: expected a list of cards, got {short(cards)}")
    for c in cards:
        if not is_card(c):
            fail(f"{where}: invalid card string {c!r} in {short(cards)}")
    over = [f for f, k in Counter(cards).items() if k > 2]
    if over:
        fail(f"{where}: more than two copies of {over} in {short(cards)}")


def check_hand_sorted(cards, level, where):
    want = sorted(cards, key=hand_sort_key(level))
    if cards != want:
        fail(f"{where}: handCards not sorted by game value at level {level}:\n  got  {cards}\n"
             f"  want {want}")


def sub_multiset(small, big):
    return not (Counter(small) - Counter(big))


# --------------------------------------------------------------------------
# Actions


def check_action_shape(a, where, allow_pass=True):
    """Level-independent shape of an action triple [type, rank, cards]."""
    if not isinstance(a, list) or len(a) != 3:
        fail(f"{where}: an action must be a 3-list, got {short(a)}")
    if a[0] == "PASS":
        if a != PASS:
            fail(f"{where}: the pass must be {PASS}, got {short(a)}")
        if not allow_pass:
            fail(f"{where}: PASS not allowed here")
        return
    t, r, cards = a
    if t not in PLAY_TYPES:
        fail(f"{where}: unknown action type {t!r} in {short(a)}")
    if not isinstance(r, str):
        fail(f"{where}: action rank must be a string, got {short(a)}")
    check_cards(cards, where)
    if not cards:
        fail(f"{where}: empty card list in {short(a)}")


def category(a):
    """Position of an action in the PROTOCOL.md actionList type order."""
    t, r, cards = a
    if t == "Bomb":
        if r == "JOKER":
            return 11
        return 7 if len(cards) == 4 else 8 if len(cards) == 5 else 10
    return {"Single": 0, "Pair": 1, "Trips": 2, "ThreePair": 3, "ThreeWithTwo": 4,
            "TwoTrips": 5, "Straight": 6, "StraightFlush": 9}[t]


def _group_ok(group, rank, level, wild, alone=False):
    """Cards of one rank slot: natural cards of `rank` (wilds may fill);
    order: natural cards by suit S H C D, wilds last (when the slot is the
    level rank itself, plain suit order is accepted too)."""
    nat = [c for c in group if c != wild]
    if any(card_rank(c) != rank for c in nat):
        return "a card of another rank"
    if alone and not nat and rank != level:
        return "wild cards alone stand only for the level rank"
    orders = [sorted(nat, key=lambda c: SUITS.index(c[0])) + [wild] * (len(group) - len(nat))]
    if rank == level:
        orders.append(sorted(group, key=lambda c: SUITS.index(c[0])))
    if group not in orders:
        return f"card order (want {orders[0]})"
    return None


def _seq(low, n):
    i = 0 if low == "A" else NAT.index(low) if low in NAT else -1
    if i < 0 or i + n > len(NAT):
        return None
    return NAT[i:i + n]


_STRUCT_CACHE = {}


def action_structure_error(a, level):
    """None if the (non-pass) action is a well formed combination at `level`
    with its cards in PROTOCOL.md order, else a reason."""
    key = (level, a[0], a[1], tuple(a[2]))
    if key in _STRUCT_CACHE:
        return _STRUCT_CACHE[key]
    err = _action_structure_error(a, level)
    _STRUCT_CACHE[key] = err
    return err


def _action_structure_error(a, level):
    t, r, cards = a
    wild = "H" + level
    n = len(cards)
    if cards.count(wild) > 2:
        return "more than two wild cards"
    if t == "Single":
        if n != 1:
            return "a Single has one card"
        return None if card_rank(cards[0]) == r else f"rank {r!r} does not match {cards[0]}"
    if t == "Pair":
        if n != 2:
            return "a Pair has two cards"
        if r in ("B", "R"):
            return None if cards == [("SB" if r == "B" else "HR")] * 2 else "bad joker pair"
        if r not in RANKS:
            return f"bad rank {r!r}"
        return _group_ok(cards, r, level, wild, alone=True)
    if t == "Trips":
        if n != 3:
            return "Trips has three cards"
        if r not in RANKS:
            return f"bad rank {r!r}"
        return _group_ok(cards, r, level, wild, alone=True)
    if t == "Bomb":
        if r == "JOKER":
            return None if cards == ["SB", "SB", "HR", "HR"] else "joker bomb must be SB SB HR HR"
        if r not in RANKS:
            return f"bad rank {r!r}"
        if not 4 <= n <= 10:
            return "a Bomb has 4..10 cards"
        return _group_ok(cards, r, level, wild)
    if t == "ThreeWithTwo":
        if n != 5:
            return "ThreeWithTwo has five cards"
        if r not in RANKS:
            return f"bad rank {r!r}"
        e = _group_ok(cards[:3], r, level, wild)
        if e:
            return "triple: " + e
        pair = cards[3:]
        if pair in (["SB", "SB"], ["HR", "HR"]):
            return None
        nat = [c for c in pair if c != wild]
        if not nat:
            return None
        pr = card_rank(nat[0])
        if pr == r or pr not in RANKS:
            return "the pair must be another rank"
        e = _group_ok(pair, pr, level, wild)
        return "pair: " + e if e else None
    if t in ("Straight", "StraightFlush"):
        seq = _seq(r, 5) if r in NAT else None
        if n != 5 or not seq:
            return "bad straight length or rank"
        for c, want in zip(cards, seq):
            if c != wild and card_rank(c) != want:
                return f"position of {c}: want rank {want} (sequence from the lowest card)"
        suits = {c[0] for c in cards if c != wild}
        if t == "StraightFlush" and len(suits) != 1:
            return "a StraightFlush is one suit"
        if t == "Straight" and wild not in cards and len(suits) == 1:
            return "five natural same-suit cards are only a StraightFlush"
        return None
    if t in ("ThreePair", "TwoTrips"):
        k = 3 if t == "ThreePair" else 2
        width = 2 if t == "ThreePair" else 3
        seq = _seq(r, k) if r in NAT else None
        if n != 6 or not seq:
            return "bad length or rank"
        for i, want in enumerate(seq):
            e = _group_ok(cards[i * width:(i + 1) * width], want, level, wild)
            if e:
                return f"slot {want}: {e}"
        return None
    return f"unknown type {t!r}"


def check_action_structure(a, level, where):
    if a == PASS:
        return
    e = action_structure_error(a, level)
    if e:
        fail(f"{where}: malformed action {short(a)} at level {level}: {e}")


def action_key(a):
    return (a[0], a[1], tuple(sorted(a[2])))


PASS_KEY = action_key(PASS)


# --------------------------------------------------------------------------
# The static message validator (PROTOCOL.md "Messages from the server")


def validate_message(msg):
    """Raise ProtocolViolation unless `msg` (a decoded JSON value) is one of the
    server messages of PROTOCOL.md with every field well formed."""
    if not isinstance(msg, dict):
        fail(f"message is not a JSON object: {short(msg)}")
    t, st = msg.get("type"), msg.get("stage")
    if t not in PAIRS or st not in PAIRS[t]:
        fail(f"(type, stage) = ({t!r}, {st!r}) is not one of the protocol's pairs: {short(msg)}")
    where = f"{t}/{st}"
    if t == "act":
        return _validate_act(msg, where)
    if st == "beginning":
        for f in ("handCards", "myPos"):
            if f not in msg:
                fail(f"{where}: missing {f}")
        check_cards(msg["handCards"], where + " handCards")
        if len(msg["handCards"]) != 27:
            fail(f"{where}: {len(msg['handCards'])} handCards, want 27")
        if not is_int(msg["myPos"]) or not 0 <= msg["myPos"] <= 3:
            fail(f"{where}: myPos must be 0..3, got {msg['myPos']!r}")
        for f in ("selfRank", "oppoRank", "curRank"):
            if f in msg and not (is_int(msg[f]) and 2 <= msg[f] <= 14):
                fail(f"{where}: {f} in beginning is an integer 2..14, got {msg[f]!r}")
        if "curRank" in msg:
            check_hand_sorted(msg["handCards"], RANKS[msg["curRank"] - 2], where)
    elif st == "play":
        for f in ("curPos", "curAction", "greaterPos", "greaterAction"):
            if f not in msg:
                fail(f"{where}: missing {f}")
        if not is_int(msg["curPos"]) or not 0 <= msg["curPos"] <= 3:
            fail(f"{where}: curPos must be 0..3, got {msg['curPos']!r}")
        check_action_shape(msg["curAction"], where + " curAction")
        if not is_int(msg["greaterPos"]) or not 0 <= msg["greaterPos"] <= 3:
            fail(f"{where}: greaterPos must be 0..3, got {msg['greaterPos']!r}")
        check_action_shape(msg["greaterAction"], where + " greaterAction", allow_pass=False)
    elif st in ("tribute", "back"):
        res = msg.get("result")
        if not isinstance(res, list) or not res:
            fail(f"{where}: result must be a non-empty list, got {short(res)}")
        for e in res:
            if (not isinstance(e, list) or len(e) != 3 or not is_int(e[0]) or not is_int(e[1])
                    or not 0 <= e[0] <= 3 or not 0 <= e[1] <= 3 or e[0] == e[1]
                    or not is_card(e[2])):
                fail(f"{where}: result entries are [from, to, card], got {short(e)}")
        if len({e[0] for e in res}) != len(res):
            fail(f"{where}: a seat pays twice in {short(res)}")
    elif st == "anti-tribute":
        for f in ("antiNums", "antiNum", "antiPos"):
            if f not in msg:
                fail(f"{where}: missing {f}")
        if not is_int(msg["antiNums"]) or not is_int(msg["antiNum"]):
            fail(f"{where}: antiNums / antiNum must be ints: {short(msg)}")
        ap = msg["antiPos"]
        if (not isinstance(ap, list) or not ap or len(set(ap)) != len(ap)
                or not all(is_int(p) and 0 <= p <= 3 for p in ap)):
            fail(f"{where}: antiPos must be a non-empty list of seats, got {short(ap)}")
    elif st == "episodeOver":
        for f in ("order", "curRank", "restCards"):
            if f not in msg:
                fail(f"{where}: missing {f}")
        o = msg["order"]
        if not isinstance(o, list) or sorted(x for x in o if is_int(x)) != [0, 1, 2, 3] \
                or len(o) != 4:
            fail(f"{where}: order must list all four seats once, got {short(o)}")
        if msg["curRank"] not in list(RANKS):
            fail(f"{where}: curRank must be a rank letter, got {msg['curRank']!r}")
        rc = msg["restCards"]
        if not isinstance(rc, list):
            fail(f"{where}: restCards must be a list, got {short(rc)}")
        seen = set()
        for e in rc:
            if (not isinstance(e, list) or len(e) != 2 or not is_int(e[0])
                    or not 0 <= e[0] <= 3 or e[0] in seen):
                fail(f"{where}: restCards entries are [seat, cards], got {short(e)}")
            seen.add(e[0])
            check_cards(e[1], where + " restCards")
    elif st == "gameOver":
        for f in ("curTimes", "settingTimes"):
            if not is_int(msg.get(f)) or msg[f] < 1:
                fail(f"{where}: {f} must be a positive int, got {msg.get(f)!r}")
        if msg["curTimes"] > msg["settingTimes"]:
            fail(f"{where}: curTimes > settingTimes: {short(msg)}")
    elif st == "gameResult":
        for f in ("victoryNum", "draws"):
            v = msg.get(f)
            if not isinstance(v, list) or len(v) != 4 or not all(is_int(x) and x >= 0 for x in v):
                fail(f"{where}: {f} must be a list of 4 non-negative ints, got {short(v)}")


def _validate_act(msg, where):
    for f in ACT_FIELDS:
        if f not in msg:
            fail(f"{where}: missing field {f} (act messages of every stage carry all of "
                 f"{', '.join(ACT_FIELDS)})")
    st = msg["stage"]
    hand = msg["handCards"]
    check_cards(hand, where + " handCards")
    for f in ("selfRank", "oppoRank", "curRank"):
        if not isinstance(msg[f], str) or msg[f] not in list(RANKS):
            fail(f"{where}: {f} must be a rank letter 2..A, got {msg[f]!r}")
    level = msg["curRank"]
    check_hand_sorted(hand, level, where)
    pi = msg["publicInfo"]
    if not isinstance(pi, list) or len(pi) != 4:
        fail(f"{where}: publicInfo must have 4 entries, got {short(pi)}")
    for i, e in enumerate(pi):
        if not isinstance(e, dict) or not is_int(e.get("rest")) or "playArea" not in e:
            fail(f"{where}: publicInfo[{i}] must have an int 'rest' and a 'playArea', got "
                 f"{short(e)}")
        if not 0 <= e["rest"] <= 28:
            fail(f"{where}: publicInfo[{i}].rest out of range: {e['rest']}")
        if e["playArea"] is not None and e["playArea"] != PASS:
            _valid_action_key(e["playArea"], level, lambda: f"{where} publicInfo[{i}].playArea")
    for p, a in (("curPos", "curAction"), ("greaterPos", "greaterAction")):
        if not is_int(msg[p]) or not -1 <= msg[p] <= 3:
            fail(f"{where}: {p} must be -1..3, got {msg[p]!r}")
        if msg[p] == -1:
            if msg[a] != NULL3:
                fail(f"{where}: {p} is -1 so {a} must be [null,null,null], got {short(msg[a])}")
        else:
            if msg[a] == PASS and a == "curAction":
                continue
            _valid_action_key(msg[a], level, lambda: f"{where} {a}")
    if (msg["curPos"] == -1) != (msg["greaterPos"] == -1):
        fail(f"{where}: curPos {msg['curPos']} / greaterPos {msg['greaterPos']}: both -1 "
             "when leading, neither when following")
    al = msg["actionList"]
    if not isinstance(al, list) or not al:
        fail(f"{where}: actionList must be a non-empty list, got {short(al)}")
    if not is_int(msg["indexRange"]) or msg["indexRange"] != len(al) - 1:
        fail(f"{where}: indexRange must be len(actionList)-1 = {len(al) - 1}, got "
             f"{msg['indexRange']!r}")
    if st in ("tribute", "back"):
        if msg["curPos"] != -1 or msg["greaterPos"] != -1:
            fail(f"{where}: curPos/greaterPos must be -1 in tribute/back")
        seen = set()
        for a in al:
            if (not isinstance(a, list) or len(a) != 3 or a[0] != st or a[1] != st
                    or not isinstance(a[2], list) or len(a[2]) != 1 or not is_card(a[2][0])):
                fail(f"{where}: entries must be [\"{st}\",\"{st}\",[card]], got {short(a)}")
            if a[2][0] not in hand:
                fail(f"{where}: {a[2][0]} is not in handCards")
            if a[2][0] in seen:
                fail(f"{where}: duplicate entry {short(a)}")
            seen.add(a[2][0])
        return
    # stage play
    leading = msg["greaterPos"] == -1
    if not leading:
        if al[0] != PASS:
            fail(f"{where}: when following, actionList[0] must be {PASS}, got {short(al[0])}")
        body = al[1:]
    else:
        body = al
    seen = set()
    last_cat = -1
    hc = Counter(hand)
    for i, a in enumerate(body):
        k = _valid_action_key(a, level, lambda: f"{where} actionList[{i + (0 if leading else 1)}]")
        cards = a[2]
        if any(hc[c] < (1 if len(cards) == 1 else cards.count(c)) for c in cards):
            fail(f"{where}: {short(a)} uses cards not in handCards")
        if k in seen:
            fail(f"{where}: duplicate action {short(a)}")
        seen.add(k)
        c = category(a)
        if c < last_cat:
            fail(f"{where}: {short(a)} out of the type order (Single, Pair, Trips, ThreePair, "
                 "ThreeWithTwo, TwoTrips, Straight, 4-card bombs, 5-card bombs, StraightFlush,"
                 f" 6+ bombs, joker bomb); previous entry {short(body[i - 1])}")
        last_cat = c


_VALID = {}


def _valid_action_key(a, level, where):
    """Shape and structure check of a non-pass action (cached); its key."""
    if type(a) is list and len(a) == 3 and type(a[2]) is list:
        ck = (level, a[0], a[1], tuple(a[2]))
        k = _VALID.get(ck)
        if k is not None:
            return k
    w = where()
    check_action_shape(a, w, allow_pass=False)
    check_action_structure(a, level, w)
    k = action_key(a)
    _VALID[(level, a[0], a[1], tuple(a[2]))] = k
    return k


# --------------------------------------------------------------------------
# Rules helpers (RULES.md) used by the tracker


def tribute_payers(order):
    """(payers, receivers) for a round following a round with finishing `order`."""
    if order[0] % 2 == order[1] % 2:
        return {order[2], order[3]}, {order[0], order[1]}
    return {order[3]}, {order[0]}


def promote(levels, order):
    """Team levels (rank indices) after a round with finishing `order`."""
    b = order[0]
    team = b % 2
    pp = order.index((b + 2) % 4)
    new = list(levels)
    if levels[team] < 12:
        new[team] = min(12, levels[team] + {1: 3, 2: 2, 3: 1}[pp])
    return new, team, pp


# --------------------------------------------------------------------------
# Per-seat protocol tracker


class Behavior:
    """A client's answers: a random legal index by default."""

    def __init__(self, seed=0):
        self.rng = random.Random(seed)
        self.acts = 0

    def choose(self, seat, msg):
        """An index, None (do not answer), DISCONNECT or CLOSE."""
        return self.rng.randint(0, msg["indexRange"])

    def before(self, seat, msg):
        """Frames sent before the answer."""
        return []

    def after(self, seat, msg, frame):
        """Frames sent after the answer."""
        return []

    def after_own_play(self, seat):
        """Frames sent right after the notify play of one's own action."""
        return []


DISCONNECT = object()        # drop the TCP connection (no close frame)
CLOSE = object()             # close the WebSocket cleanly (close frame)


class Seat:
    """Feeds on the server's messages for one connection, checks them and the
    order of the protocol, tracks the public and private state and answers."""

    def __init__(self, label, behavior=None, *, seat=None, games=None, rules="default",
                 engine_check=True, timeout=None):
        self.label = label
        self.behavior = behavior or Behavior(zlib.crc32(label.encode()))
        self.expected_seat = seat
        self.games = games
        self.rules = rules
        self.engine_check = engine_check
        self.timeout = timeout        # the server's --timeout, where it is short
        self.load_timeouts = 0        # answers that missed it (a loaded machine)
        self.my = None
        self.phase = "init"
        self.game_no = 0
        self.round_no = 0
        self.raw = []                 # every frame received, in order
        self.log = []                 # every message, in order
        self.public = []              # notify messages other than beginning
        self.deals = {}               # (game, round) -> beginning hand
        self.tributes = {}            # (game, round) -> ("tribute", result) | ("anti", antiPos) | None
        self.prev_orders = {}         # (game, round) -> order of the previous round
        self.plays = {}               # game -> [(pos, action)] from notify play
        self.wins = [0, 0]
        self.gameovers = 0
        self.done = False
        self.closed = None
        self.disconnected = False
        self.timeouts = []            # (latency, action) of unanswered acts
        self.n_act = Counter()
        self.n_notify_play = 0
        self.engine_checked = 0
        self.prev = None              # (team_levels, round_level, order) of the last round

    # -- helpers

    def where(self, msg=None):
        s = f"[{self.label} seat {self.my} game {self.game_no} round {self.round_no}]"
        return s + (f" {msg.get('type')}/{msg.get('stage')}" if isinstance(msg, dict) else "")

    def fail(self, text, msg=None):
        fail(f"{self.where(msg)}: {text}" + (f"\n  message: {short(msg, 600)}" if msg else ""))

    def expect(self, cond, text, msg=None):
        """Fail with `text` (a string or a function making it) unless `cond`."""
        if not cond:
            self.fail(text() if callable(text) else text, msg)

    # -- entry point

    def feed(self, raw):
        if self.done:
            self.fail(f"message after gameResult: {short(raw)}")
        if self.disconnected:
            return []
        self.raw.append(raw)
        if not isinstance(raw, str):
            self.fail(f"binary frame from the server: {raw[:60]!r}")
        try:
            msg = json.loads(raw)
        except ValueError:
            self.fail(f"not JSON: {short(raw)}")
        try:
            validate_message(msg)
        except ProtocolViolation as e:
            self.fail(str(e))
        self.log.append(msg)
        if msg["type"] == "notify" and msg["stage"] != "beginning":
            self.public.append(msg)
        name = f"on_{msg['type']}_{msg['stage'].replace('-', '_')}"
        return getattr(self, name)(msg) or []

    def on_closed(self, exc):
        self.closed = exc

    # -- round setup

    def on_notify_beginning(self, msg):
        self.expect(self.phase in ("init", "roundover", "gameover"),
                    f"beginning in phase {self.phase}", msg)
        if self.my is None:
            if self.expected_seat is not None:
                self.expect(msg["myPos"] == self.expected_seat,
                            f"myPos {msg['myPos']} but this is connection for seat "
                            f"{self.expected_seat} (seats follow connection order)", msg)
            self.my = msg["myPos"]
        self.expect(msg["myPos"] == self.my, f"myPos changed from {self.my}", msg)
        if self.phase == "roundover":
            self.round_no += 1
            self.prev_order = self.last_order
            self._check_no_missed_game_end(msg)
        else:
            self.game_no += 1
            self.round_no = 1
            self.prev_order = None
            self.prev = None
            self.plays[self.game_no] = []
        self.hand = Counter(msg["handCards"])
        self.deals[(self.game_no, self.round_no)] = list(msg["handCards"])
        self.prev_orders[(self.game_no, self.round_no)] = self.prev_order
        self.tributes[(self.game_no, self.round_no)] = None
        self.rest = [27] * 4
        self.finished = []
        self.top = None
        self.passed = set()
        self.trick = {}
        self.last_play = None
        self.next_actor = None
        self.pending = None
        self.level = None
        self.team_levels = None
        self.begin_ints = {f: msg[f] for f in ("selfRank", "oppoRank", "curRank") if f in msg}
        self.tribute_result = None
        self.tribute_state = "none"
        self.got_act_tribute = self.got_act_back = False
        self.deferred = []            # checks needing the round level
        self.deferred.append(lambda lv, m=msg: check_hand_sorted(m["handCards"], lv,
                                                                  self.where(m)))
        if self.round_no == 1:
            self.phase = "play"
        else:
            self.phase = "tribute"
            self.payers, self.receivers = tribute_payers(self.prev_order)

    def _set_level(self, msg):
        """The first act message of a round fixes and checks the levels."""
        lv, s, o = msg["curRank"], msg["selfRank"], msg["oppoRank"]
        if self.level is not None:
            tl = self.team_levels
            was = (self.level, RANKS[tl[self.my % 2]], RANKS[tl[1 - self.my % 2]])
            self.expect(was == (lv, s, o), f"levels changed within the round: were (curRank, "
                        f"selfRank, oppoRank) = {was}", msg)
            return
        for f, v in self.begin_ints.items():
            self.expect(RANKS[v - 2] == msg[f], f"beginning said {f}={v} but act says "
                        f"{msg[f]!r}", msg)
        self.level = lv
        tl = [None, None]
        tl[self.my % 2], tl[1 - self.my % 2] = RANKS.index(s), RANKS.index(o)
        self.team_levels = tl
        if self.round_no == 1:
            self.expect((lv, s, o) == ("2", "2", "2"),
                        "the first round of a game is played at 2 with both teams at 2", msg)
        elif self.prev is not None:
            prev_levels, _, order = self.prev
            want, team, _ = promote(prev_levels, order)
            if self.rules == "default":
                self.expect(tl == want, f"team levels {[RANKS[x] for x in tl]} (team 0, team 1)"
                            f" after order {order} from {[RANKS[x] for x in prev_levels]}: want "
                            f"{[RANKS[x] for x in want]}", msg)
            self.expect(RANKS.index(lv) == tl[team],
                        f"curRank {lv} must be the level of the team that won the previous "
                        f"round (team {team}: {RANKS[tl[team]]})", msg)
        self.expect(lv in (s, o), "curRank must be one of the teams' levels", msg)
        for chk in self.deferred:
            chk(lv)
        self.deferred = []

    def _level_check(self, fn):
        if self.level is not None:
            fn(self.level)
        else:
            self.deferred.append(fn)

    def _check_public_info(self, msg, in_trick):
        pi = msg["publicInfo"]
        rest = [e["rest"] for e in pi]
        want = list(self.rest)
        if msg["stage"] == "tribute":
            # another payer may already have handed its tribute over (held until all paid)
            want = [r - 1 if i in self.payers and i != self.my and rest[i] == r - 1 else r
                    for i, r in enumerate(want)]
        if msg["stage"] == "back":
            # another receiver may already have returned its card
            for p, r, _ in self.tribute_result:
                if r != self.my and rest[r] == want[r] - 1 and rest[p] == want[p] + 1:
                    want[r] -= 1
                    want[p] += 1
        self.expect(rest == want, f"publicInfo rest {rest}, tracked card counts {self.rest}",
                    msg)
        self.expect(len(msg["handCards"]) == pi[self.my]["rest"],
                    "len(handCards) != own publicInfo rest", msg)
        self.expect(Counter(msg["handCards"]) == self.hand,
                    lambda: f"handCards differ from the tracked hand (deal - plays +- tribute/back): "
                    f"extra {sorted((Counter(msg['handCards']) - self.hand).elements())}, "
                    f"missing {sorted((self.hand - Counter(msg['handCards'])).elements())}", msg)
        for i, e in enumerate(pi):
            pa = e["playArea"]
            if not in_trick or i not in self.trick:
                self.expect(pa is None, lambda: f"publicInfo[{i}].playArea must be null (seat {i} has "
                            f"not acted in this trick), got {short(pa)}", msg)
            else:
                self.expect(pa == self.trick[i], lambda: f"publicInfo[{i}].playArea must be "
                            f"seat {i}'s last action in this trick {short(self.trick[i])}, got "
                            f"{short(pa)}", msg)

    def _answer(self, msg, stage):
        self.n_act[stage] += 1
        self.expect(self.pending is None, lambda: f"act while still waiting for the outcome of "
                    f"{short(self.pending)}", msg)
        b = self.behavior
        idx = b.choose(self, msg)
        b.acts += 1
        if idx is DISCONNECT or idx is CLOSE:
            return [idx]
        if idx is None:     # no answer: the server's default is index 0
            self.pending = {"stage": stage, "action": msg["actionList"][0], "default": True,
                            "first": msg["actionList"][0], "t": time.monotonic()}
            return []
        self.pending = {"stage": stage, "action": msg["actionList"][idx], "default": False,
                        "first": msg["actionList"][0], "t": time.monotonic()}
        frame = json.dumps({"actIndex": idx})
        return b.before(self, msg) + [frame] + b.after(self, msg, frame)

    def _resolve_pending(self, stage, action, msg):
        p = self.pending
        self.expect(p is not None and p["stage"] == stage,
                    f"{stage} of this seat without an act {stage} to it", msg)
        if (action != p["action"] and action == p["first"] and self.timeout
                and time.monotonic() - p["t"] >= 0.9 * self.timeout):
            # this client's answer came too late (a loaded machine): the default applies
            self.load_timeouts += 1
            self.pending = None
            return
        self.expect(action == p["action"], lambda: f"the server applied {short(action)} but this seat "
                    f"answered {short(p['action'])}" + (" (default action index 0 after "
                                                         "the timeout)" if p["default"] else ""),
                    msg)
        if p["default"]:
            self.timeouts.append((time.monotonic() - p["t"], action))
        self.pending = None

    # -- tribute / back / anti-tribute

    def on_act_tribute(self, msg):
        self.expect(self.phase == "tribute" and self.tribute_state == "none"
                    and not self.got_act_tribute, "act tribute out of order", msg)
        self.expect(self.my in self.payers, f"act tribute to seat {self.my}, but the payers "
                    f"after order {self.prev_order} are {sorted(self.payers)}", msg)
        self.got_act_tribute = True
        self._set_level(msg)
        self._check_public_info(msg, in_trick=False)
        lv = self.level
        wild = "H" + lv
        nonwild = [c for c in self.hand.elements() if c != wild]
        top = max(level_value(c, lv) for c in nonwild)
        want = {c for c in nonwild if level_value(c, lv) == top}
        got = {a[2][0] for a in msg["actionList"]}
        self.expect(got == want, f"tribute choices {sorted(got)}: want the highest cards in "
                    f"level order, never the wild: {sorted(want)}", msg)
        return self._answer(msg, "tribute")

    def on_notify_tribute(self, msg):
        self.expect(self.phase == "tribute" and self.tribute_state == "none",
                    "notify tribute out of order", msg)
        res = msg["result"]
        froms = {e[0] for e in res}
        tos = [e[1] for e in res]
        self.expect(froms == self.payers and set(tos) == self.receivers and len(set(tos)) == len(tos),
                    f"tribute {res}: after order {self.prev_order} the payers are "
                    f"{sorted(self.payers)} and the receivers {sorted(self.receivers)}", msg)
        if self.my in froms:
            if self.pending is None and not self.got_act_tribute:
                self.fail("this seat paid tribute without an act tribute", msg)
            mine = [e for e in res if e[0] == self.my][0]
            self._resolve_pending("tribute", ["tribute", "tribute", [mine[2]]], msg)
        else:
            self.expect(not self.got_act_tribute, "act tribute to a seat that did not pay", msg)
        for f, t, c in res:
            if f == self.my:
                self.expect(self.hand[c] > 0, f"paid {c}, not in hand", msg)
                self.hand[c] -= 1
                self.hand += Counter()
            if t == self.my:
                self.hand[c] += 1
            self.rest[f] -= 1
            self.rest[t] += 1
        banker, follower = self.prev_order[0], self.prev_order[1]
        if len(res) == 2:
            def check_assign(lv, res=res, m=msg):
                a, b = res
                va, vb = level_value(a[2], lv), level_value(b[2], lv)
                if va == vb:
                    for f, t, _ in res:
                        self.expect(t == (f - 1) % 4, f"equal tributes {res}: each payer "
                                    "gives to the opponent on their left (seat - 1)", m)
                else:
                    hi, lo = (a, b) if va > vb else (b, a)
                    self.expect(hi[1] == banker and lo[1] == follower,
                                f"tributes {res}: the banker {banker} takes the higher, the "
                                f"follower {follower} the other", m)
            self._level_check(check_assign)
        self.tribute_result = res
        self.tributes[(self.game_no, self.round_no)] = ("tribute", res)
        self.leader = [e[0] for e in res if e[1] == banker][0]
        self.tribute_state = "paid"

    def on_act_back(self, msg):
        self.expect(self.phase == "tribute" and self.tribute_state == "paid"
                    and not self.got_act_back, "act back out of order", msg)
        receivers = {e[1] for e in self.tribute_result}
        self.expect(self.my in receivers, "act back to a seat that received no tribute", msg)
        self.got_act_back = True
        self._set_level(msg)
        self._check_public_info(msg, in_trick=False)
        lv = self.level
        cards = set(self.hand.elements())
        want = {c for c in cards if c not in ("SB", "HR") and c[1] in "23456789T" and c[1] != lv}
        if not want:
            nonwild = [c for c in cards if c != "H" + lv]
            low = min(level_value(c, lv) for c in nonwild)
            want = {c for c in nonwild if level_value(c, lv) == low}
        got = {a[2][0] for a in msg["actionList"]}
        self.expect(got == want, f"back choices {sorted(got)}: want one entry per card of rank "
                    f"2..10 that is not a level card: {sorted(want)}", msg)
        return self._answer(msg, "back")

    def on_notify_back(self, msg):
        self.expect(self.phase == "tribute" and self.tribute_state == "paid",
                    "notify back out of order", msg)
        res = msg["result"]
        want = sorted((t, f) for f, t, _ in self.tribute_result)
        self.expect(sorted((f, t) for f, t, _ in res) == want,
                    f"back {res}: each receiver returns one card to the seat that paid it "
                    f"(tribute {self.tribute_result})", msg)
        if self.my in {e[0] for e in res}:
            self.expect(self.got_act_back, "returned a card without an act back", msg)
            mine = [e for e in res if e[0] == self.my][0]
            self._resolve_pending("back", ["back", "back", [mine[2]]], msg)
        else:
            self.expect(not self.got_act_back, "act back to a seat that returned nothing", msg)
        for f, t, c in res:
            if f == self.my:
                self.expect(self.hand[c] > 0, f"returned {c}, not in hand", msg)
                self.hand[c] -= 1
                self.hand += Counter()
            if t == self.my:
                self.hand[c] += 1
            self.rest[f] -= 1
            self.rest[t] += 1
        self.expect(self.rest == [27] * 4, f"card counts after tribute/back {self.rest}", msg)
        self.tribute_state = "done"
        self.phase = "play"
        self.next_actor = self.leader

    def on_notify_anti_tribute(self, msg):
        self.expect(self.phase == "tribute" and self.tribute_state == "none"
                    and not self.got_act_tribute,
                    "anti-tribute out of order (after an act tribute, or outside the tribute "
                    "phase of rounds 2..)", msg)
        ap = set(msg["antiPos"])
        self.expect(ap <= self.payers, f"antiPos {sorted(ap)} must be paying seats "
                    f"{sorted(self.payers)}", msg)
        if self.my in self.payers:
            # the payers hold both big jokers between them; a paying seat knows its own share
            mine = self.hand["HR"]
            self.expect((self.my in ap) == (mine > 0),
                        f"antiPos {sorted(ap)} lists the paying seats holding big jokers; this "
                        f"payer holds {mine}", msg)
            if len(self.payers) == 1:
                self.expect(mine == 2, "anti-tribute but the single payer lacks both big jokers",
                            msg)
        self.tributes[(self.game_no, self.round_no)] = ("anti", sorted(ap))
        self.tribute_state = "done"
        self.phase = "play"
        self.next_actor = self.prev_order[0]   # the banker leads

    # -- play

    def _leading(self):
        return self.top is None

    def on_act_play(self, msg):
        if self.phase == "tribute":
            self.fail("act play before the tribute (act/notify tribute, back) or anti-tribute "
                      "notices of a round after the first", msg)
        self.expect(self.phase == "play", f"act play in phase {self.phase}", msg)
        self.expect(self.next_actor in (None, self.my), f"act play to seat {self.my} but seat "
                    f"{self.next_actor} is to act", msg)
        self._set_level(msg)
        leading = self._leading()
        if leading:
            self.expect(msg["curPos"] == -1 and msg["greaterPos"] == -1,
                        "this seat leads (new trick): curPos and greaterPos must be -1", msg)
        else:
            self.expect(msg["greaterPos"] == self.top[0] and msg["greaterAction"] == self.top[1],
                        lambda: f"following: greaterPos/greaterAction must be the top play "
                        f"{self.top[0]} {short(self.top[1])}", msg)
            self.expect([msg["curPos"], msg["curAction"]] == list(self.last_play),
                        lambda: f"following: curPos/curAction must be the last action "
                        f"{self.last_play[0]} {short(self.last_play[1])}", msg)
        self._check_public_info(msg, in_trick=True)
        if self.engine_check:
            self._engine_check(msg, leading)
        return self._answer(msg, "play")

    def _engine_check(self, msg, leading):
        rules = guandan.Rules.named(self.rules)
        last = None if leading else msg["greaterAction"]
        want = guandan.legal_moves(msg["handCards"], msg["curRank"], last,
                                   rules=rules).to_platform()
        got = msg["actionList"]
        lv = msg["curRank"]
        ks = Counter(PASS_KEY if a == PASS else _VALID[(lv, a[0], a[1], tuple(a[2]))]
                     for a in got)
        kw = Counter(map(action_key, want))
        if ks != kw:
            self.fail(f"actionList differs from the legal moves ({self.rules} rules): "
                      f"{len(got)} listed, {len(want)} legal; missing "
                      f"{list((kw - ks).elements())[:5]}, extra {list((ks - kw).elements())[:5]}",
                      msg)
        self.engine_checked += 1

    def on_notify_play(self, msg):
        self.expect(self.phase == "play", f"notify play in phase {self.phase}", msg)
        pos, act = msg["curPos"], msg["curAction"]
        self.n_notify_play += 1
        if pos == self.my:
            self._resolve_pending("play", act, msg)
        else:
            self.expect(self.pending is None, lambda: f"notify play of seat {pos} while this seat's "
                        f"answer {short(self.pending)} is unresolved", msg)
        if self.next_actor is not None:
            self.expect(pos == self.next_actor, f"seat {pos} acted but seat {self.next_actor} "
                        "was to act", msg)
        self.expect(self.rest[pos] > 0, f"seat {pos} has no cards left", msg)
        if act == PASS:
            self.expect(self.top is not None, "a PASS on the lead", msg)
            self.expect([msg["greaterPos"], msg["greaterAction"]] == list(self.top),
                        lambda: f"after a pass greaterPos/greaterAction stay {self.top[0]} "
                        f"{short(self.top[1])}", msg)
            self.passed.add(pos)
        else:
            self.expect(msg["greaterPos"] == pos and msg["greaterAction"] == act,
                        "after a play greaterPos/greaterAction are the play's", msg)
            self.expect(len(act[2]) <= self.rest[pos], f"seat {pos} plays {len(act[2])} cards "
                        f"but holds {self.rest[pos]}", msg)
            if self.level is None or (self.level, act[0], act[1], tuple(act[2])) not in _VALID:
                w = self.where(msg)
                self._level_check(lambda lv, a=act, w=w: check_action_structure(a, lv, w + " curAction"))
            if pos == self.my:
                self.expect(sub_multiset(act[2], list(self.hand.elements())),
                            "played cards not in this seat's hand", msg)
                self.hand -= Counter(act[2])
            self.rest[pos] -= len(act[2])
            self.top = (pos, act)
            self.passed = set()
            if self.rest[pos] == 0:
                self.finished.append(pos)
        self.trick[pos] = act
        self.last_play = (pos, act)
        self.plays[self.game_no].append((pos, act))
        out = []
        if pos == self.my:
            if all(r > 0 for r in self.rest) and not self.pending:
                out = self.behavior.after_own_play(self)
        # who is next
        f = self.finished
        if len(f) >= 3 or (len(f) == 2 and f[0] % 2 == f[1] % 2):
            self.phase = "roundend"
            self.next_actor = None
            return out
        tp = self.top[0]
        others = [s for s in range(4) if s != tp and self.rest[s] > 0]
        if all(s in self.passed for s in others):
            self.next_actor = tp if self.rest[tp] > 0 else (tp + 2) % 4
            self.expect(self.rest[self.next_actor] > 0, "no leader for the next trick", msg)
            self.top = None
            self.passed = set()
            self.trick = {}
            self.last_play = None
        else:
            nxt = [(pos + k) % 4 for k in (1, 2, 3) if self.rest[(pos + k) % 4] > 0]
            self.next_actor = nxt[0]
        return out

    # -- ends

    def on_notify_episodeOver(self, msg):
        self.expect(self.phase == "roundend", "episodeOver before the round is over (three out, "
                    f"or both of one team out); finished {self.finished}", msg)
        self.expect(self.pending is None, "episodeOver with an unresolved answer", msg)
        order = msg["order"]
        f = self.finished
        self.expect(order[:len(f)] == f, f"order {order}: the finishing order was {f}", msg)
        unfinished = [s for s in range(4) if s not in f]
        if len(f) == 2:
            self.expect(order[2:] == sorted(unfinished), f"order {order}: after a double-down "
                        "the unfinished seats follow in seat order", msg)
        rc = {e[0]: e[1] for e in msg["restCards"]}
        self.expect(set(rc) == set(unfinished), f"restCards seats {sorted(rc)}, unfinished "
                    f"seats {unfinished}", msg)
        for s, cards in rc.items():
            self.expect(len(cards) == self.rest[s], f"restCards of seat {s}: {len(cards)} cards, "
                        f"tracked {self.rest[s]}", msg)
        if self.my in rc:
            self.expect(Counter(rc[self.my]) == self.hand, "restCards of this seat differ from its "
                        "hand", msg)
        self.expect(self.level is not None, "a round without an act to this seat", msg)
        self.last_order = order
        self.prev = (list(self.team_levels), RANKS.index(self.level), order)
        self.phase = "roundover"

    def _game_end_expected(self):
        levels, round_level, order = self.prev
        _, team, pp = promote(levels, order)
        won = levels[team] == 12 and round_level == 12 and \
            (pp in (1, 2) if self.rules == "default" else pp == 1)
        ambiguous = levels[1 - team] == 12
        return won, ambiguous

    def _check_no_missed_game_end(self, msg):
        if self.rules != "default":
            return
        won, ambiguous = self._game_end_expected()
        if won and not ambiguous:
            self.fail(f"the banker's team won at its own A (order {self.prev[2]}) but no "
                      "gameOver followed", msg)

    def on_notify_gameOver(self, msg):
        self.expect(self.phase == "roundover", "gameOver not right after episodeOver", msg)
        self.gameovers += 1
        self.expect(msg["curTimes"] == self.game_no, f"curTimes {msg['curTimes']}: "
                    f"this is game {self.game_no}", msg)
        if self.games is not None:
            self.expect(msg["settingTimes"] == self.games, f"settingTimes must be --games "
                        f"{self.games}", msg)
        won, _ = self._game_end_expected()
        self.expect(won, f"gameOver but the banker's team did not win at A (levels "
                    f"{[RANKS[x] for x in self.prev[0]]}, round level {RANKS[self.prev[1]]}, "
                    f"order {self.prev[2]}, {self.rules} rules)", msg)
        self.wins[self.prev[2][0] % 2] += 1
        self.phase = "gameover"

    def on_notify_gameResult(self, msg):
        self.expect(self.phase == "gameover", "gameResult not right after gameOver", msg)
        self.expect(self.games is None or self.gameovers == self.games,
                    f"gameResult after {self.gameovers} games, want {self.games}", msg)
        self.expect(self.log[-2]["curTimes"] == self.log[-2]["settingTimes"],
                    "gameResult before the last game", msg)
        v, d = msg["victoryNum"], msg["draws"]
        want = [self.wins[s % 2] for s in range(4)]
        self.expect(v == want, f"victoryNum {v}: games won by seat's team {want}", msg)
        self.expect(sum(v) // 2 + d[0] == self.gameovers or sum(v) // 2 == self.gameovers,
                    "victoryNum / draws do not add up to the games played", msg)
        self.done = True
        self.phase = "done"


# --------------------------------------------------------------------------
# Server process and asyncio clients


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *, games=1, seed=1, timeout=30, bots=None, on_disconnect=None,
                 record=None, rules="default"):
        self.port = free_port()
        self.games = games
        args = [sys.executable, "-m", "guandan", "serve", "--host", "127.0.0.1",
                "--port", str(self.port), "--games", str(games), "--seed", str(seed),
                "--timeout", str(timeout)]
        if bots:
            args += ["--bots", ",".join(f"{k}={v}" for k, v in sorted(bots.items()))]
        if on_disconnect:
            args += ["--on-disconnect", on_disconnect]
        if record:
            args += ["--record", record]
        if rules:
            args += ["--rules", rules]
        self.args = args
        self.errf = tempfile.TemporaryFile(mode="w+b")
        env = dict(os.environ)
        # the server runs the same guandan package as this test process
        pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(guandan.__file__)))
        env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(args, cwd=REPO, stdin=subprocess.DEVNULL,
                                     stdout=self.errf, stderr=self.errf, env=env)

    def stderr(self):
        return child_output(self.errf)

    def wait_ready(self, timeout=SERVER_START_TIMEOUT):
        want = f"serving on ws://127.0.0.1:{self.port}"      # the start-up line (stdout)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited ({self.proc.returncode}) before listening:\n"
                                     f"{self.stderr()[-3000:]}")
            if want in self.stderr():
                return
            time.sleep(0.05)
        raise AssertionError(f"no '{want}' within {timeout}s:\n{self.stderr()[-3000:]}")

    def wait_exit(self, timeout=10.0):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"server still running {timeout}s after the session ended") \
                from None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(3)

    def check_no_traceback(self):
        err = self.stderr()
        assert "Traceback" not in err, f"server printed a traceback:\n{err[-4000:]}"

    def __enter__(self):
        try:
            self.wait_ready()
        except BaseException:
            self.kill()
            raise
        return self

    def __exit__(self, *exc):
        self.kill()
        self.errf.close()


class Client:
    def __init__(self, seat_tracker, label, idle=20.0, close_wait=10.0, on_connect=()):
        self.t = seat_tracker
        self.on_connect = list(on_connect)
        self.label = label
        self.idle = idle
        self.close_wait = close_wait
        self.ws = None
        self.first_msg_at = None
        self.connected_at = None
        self.closed_at = None
        self.disconnected_at = None

    async def connect(self, port):
        self.ws = await connect(f"ws://127.0.0.1:{port}/game/{self.label}", open_timeout=10,
                                ping_interval=None, max_size=2 ** 24, close_timeout=3)
        self.connected_at = time.monotonic()
        for frame in self.on_connect:      # sent before the game starts: must be ignored
            await self.ws.send(frame)

    async def run(self):
        ws, t = self.ws, self.t
        try:
            while True:
                wait = self.close_wait if t.done else self.idle
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=wait)
                except asyncio.TimeoutError:
                    if t.done:
                        fail(f"[{self.label}] connection still open {wait}s after gameResult")
                    fail(f"{t.where()} no message from the server for {wait}s (phase {t.phase}, "
                         f"next to act {t.next_actor}, pending {short(t.pending)}); last "
                         f"message: {short(t.log[-1] if t.log else None)}")
                except ConnectionClosed as e:
                    self.closed_at = time.monotonic()
                    t.on_closed(e)
                    return
                if self.first_msg_at is None:
                    self.first_msg_at = time.monotonic()
                for frame in t.feed(raw):
                    if frame is DISCONNECT or frame is CLOSE:
                        self.disconnected_at = time.monotonic()
                        t.disconnected = True
                        if frame is CLOSE:
                            await ws.close()
                        else:
                            ws.transport.close()      # drop the TCP connection, no close frame
                        return
                    try:
                        await ws.send(frame)
                    except ConnectionClosed as e:
                        # the server closed while this answer was on its way (a session
                        # ended by another seat): the close is what the next recv would see
                        self.closed_at = time.monotonic()
                        t.on_closed(e)
                        return
        finally:
            if not t.disconnected:
                await ws.close()


async def run_table(port, clients, *, start_delay_check=True):
    """Connect the clients one by one (seats follow connection order), run them
    all to the end."""
    tasks = []
    for c in clients:
        await c.connect(port)
        tasks.append(asyncio.ensure_future(c.run()))
    try:
        await asyncio.gather(*tasks)
    finally:
        for tk in tasks:
            tk.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if start_delay_check:
        last = clients[-1].connected_at
        first = min(c.first_msg_at for c in clients if c.first_msg_at)
        assert first - last >= 0.05, (
            f"first message {first - last:.3f}s after the 4th connection: PROTOCOL.md asks for a "
            "moment (~0.2 s) before the first message (ws4py loses early frames)")


def run(coro, timeout):
    async def main():
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(main())


def assert_closed_cleanly(client):
    e = client.t.closed
    assert e is not None, f"[{client.label}] connection not closed by the server"
    assert e.rcvd is not None, (f"[{client.label}] the server dropped the connection without a "
                                f"close frame ({e})")


def check_table(seats, complete=True):
    """Cross-client checks for a table of external clients."""
    # identical public streams
    ref = seats[0].public
    for s in seats[1:]:
        n = min(len(ref), len(s.public)) if not complete else max(len(ref), len(s.public))
        for i in range(n):
            a = ref[i] if i < len(ref) else None
            b = s.public[i] if i < len(s.public) else None
            assert a == b, (f"notify #{i} differs between {seats[0].label} and {s.label}:\n"
                            f"  {short(a)}\n  {short(b)}")
    if len(seats) == 4:
        bypos = {s.my: s for s in seats}
        assert sorted(bypos) == [0, 1, 2, 3]
        for key in seats[0].deals:
            hands = [bypos[p].deals.get(key) for p in range(4)]
            if any(h is None for h in hands):
                continue
            total = Counter()
            for h in hands:
                total += Counter(h)
            assert total == DECK, f"the four hands of deal {key} are not the 108 cards"
            trib = seats[0].tributes.get(key)
            order = seats[0].prev_orders.get(key)
            if order is None:
                assert trib is None, f"tribute notices in the first round of a game {key}"
                continue
            payers, _ = tribute_payers(order)
            hr = sum(Counter(hands[p])["HR"] for p in payers)
            assert trib is not None, f"round {key}: neither tribute nor anti-tribute"
            if hr == 2:
                assert trib[0] == "anti", (f"round {key}: payers {sorted(payers)} hold both big "
                                           f"jokers but the server asked for tribute {trib}")
                holders = sorted(p for p in payers if Counter(hands[p])["HR"])
                assert trib[1] == holders, (f"round {key}: antiPos {trib[1]}, the paying seats "
                                            f"holding big jokers are {holders}")
            else:
                assert trib[0] == "tribute", (f"round {key}: anti-tribute {trib} but the payers "
                                              f"hold {hr} big jokers")
                res = trib[1]
                for f, t, c in res:
                    # the tribute card is the payer's highest non-wild card (level unknown
                    # here for non-acting seats: the payer's own act tribute checked it)
                    assert c in hands[f], f"round {key}: seat {f} paid {c} it was not dealt"


# --------------------------------------------------------------------------
# Tests


def make_seats(n, *, games, rules="default", behaviors=None, seats=None, **kw):
    out = []
    for i in range(n):
        b = behaviors[i] if behaviors else Behavior(1000 + i)
        out.append(Seat(f"client{i + 1}", b, seat=seats[i] if seats else i, games=games,
                        rules=rules, **kw))
    return out


def test_validator_accepts_the_protocol_examples():
    """The validator accepts PROTOCOL.md's own examples and rejects near misses."""
    hand = sorted(["S2", "H2", "S3", "D3", "H4", "C4", "SB", "HR"] + ["S5"] * 2 +
                  ["H6", "C6", "D6", "S7", "S8", "S9", "ST", "SJ", "SQ", "SK", "SA", "HA",
                   "CA", "DA", "D8", "D9", "DT"], key=hand_sort_key("2"))
    good = [
        {"type": "notify", "stage": "beginning", "handCards": hand, "myPos": 1,
         "selfRank": 2, "oppoRank": 2, "curRank": 2},
        {"type": "notify", "stage": "play", "curPos": 1, "curAction": ["Single", "2", ["S2"]],
         "greaterPos": 1, "greaterAction": ["Single", "2", ["S2"]]},
        {"type": "notify", "stage": "tribute", "result": [[0, 3, "S2"], [2, 1, "S2"]]},
        {"type": "notify", "stage": "back", "result": [[3, 0, "S4"]]},
        {"type": "notify", "stage": "anti-tribute", "antiNums": 2, "antiNum": 2, "antiPos": [0, 2]},
        {"type": "notify", "stage": "episodeOver", "order": [0, 2, 1, 3], "curRank": "A",
         "restCards": [[3, ["C2"]], [1, ["C2"]]]},
        {"type": "notify", "stage": "gameOver", "curTimes": 1, "settingTimes": 3},
        {"type": "notify", "stage": "gameResult", "victoryNum": [2, 0, 2, 0], "draws": [0, 0, 0, 0]},
        {"type": "act", "stage": "play", "handCards": ["S3", "D3", "H4", "C4"],
         "publicInfo": [{"rest": 27, "playArea": None}] * 4, "selfRank": "2", "oppoRank": "2",
         "curRank": "2", "curPos": -1, "curAction": NULL3, "greaterPos": -1,
         "greaterAction": NULL3,
         "actionList": [["Single", "3", ["S3"]], ["Single", "4", ["H4"]], ["Pair", "3", ["S3", "D3"]],
                        ["Pair", "4", ["H4", "C4"]]], "indexRange": 3},
        {"type": "act", "stage": "tribute", "handCards": ["S3", "HR"],
         "publicInfo": [{"rest": 27, "playArea": None}] * 4, "selfRank": "2", "oppoRank": "2",
         "curRank": "2", "curPos": -1, "curAction": NULL3, "greaterPos": -1,
         "greaterAction": NULL3, "actionList": [["tribute", "tribute", ["HR"]]], "indexRange": 0},
    ]
    for m in good:
        validate_message(m)
    for a in (["Straight", "7", ["H7", "D8", "D9", "ST", "H2"]],
              ["ThreePair", "4", ["H4", "C4", "D5", "H2", "S6", "D6"]],
              ["ThreeWithTwo", "4", ["H4", "C4", "H2", "S6", "D6"]],
              ["Bomb", "A", ["SA", "HA", "CA", "CA", "H2"]],
              ["Straight", "A", ["SA", "H2", "C3", "D4", "S5"]],
              ["Straight", "T", ["ST", "HJ", "CQ", "DK", "SA"]],
              ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]], ["Pair", "B", ["SB", "SB"]]):
        assert action_structure_error(a, "2") is None, a
    for a in (["Straight", "7", ["D8", "H7", "D9", "ST", "H2"]],     # not from the lowest up
              ["Bomb", "A", ["SA", "H2", "HA", "CA", "CA"]],         # wild not last
              ["Pair", "3", ["D3", "S3"]],                           # suit order
              ["Straight", "3", ["S3", "S4", "S5", "S6", "S7"]],     # natural flush
              ["Pair", "5", ["H2", "H2"]],                           # two wilds are level cards
              ["Single", "A", ["SK"]]):
        assert action_structure_error(a, "2") is not None, a
    bad = [
        {"type": "notify", "stage": "hello"},
        {"type": "act", "stage": "episodeOver"},
        dict(good[1], curAction=None),
        dict(good[8], indexRange=4),
        dict(good[8], curAction=None),
        dict(good[8], actionList=[["Pair", "3", ["S3", "D3"]], ["Single", "3", ["S3"]]],
             indexRange=1),
        dict(good[8], actionList=[["Single", "3", ["S3"]], ["Single", "3", ["S3"]]],
             indexRange=1),
        dict(good[8], handCards=["H4", "S3", "D3", "C4"]),
        dict(good[8], publicInfo=[{"rest": 27}] * 4),
        dict(good[0], handCards=hand[::-1]),
        dict(good[5], order=[0, 2, 1, 1]),
        dict(good[7], victoryNum=[2, 0, 2]),
    ]
    for m in bad:
        with pytest.raises(ProtocolViolation):
            validate_message(m)


@pytest.mark.slow
def test_four_random_clients_two_games():
    """Four external random clients play --games 2 to gameResult; every message,
    the message order, hands, counts and the table-wide views are checked."""
    async def main():
        with Server(games=2, seed=3) as srv:
            seats = make_seats(4, games=2)
            clients = [Client(s, s.label) for s in seats]
            await run_table(srv.port, clients)
            for c in clients:
                assert c.t.done, f"{c.label} did not reach gameResult"
                assert_closed_cleanly(c)
            check_table(seats)
            rc = await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            assert rc == 0, f"server exit code {rc}:\n{srv.stderr()[-3000:]}"
            srv.check_no_traceback()
            for s in seats:
                assert s.gameovers == 2
                assert s.n_act["play"] > 0 and s.engine_checked == s.n_act["play"]
            rounds = sum(1 for k in seats[0].deals)
            assert rounds >= 4
            assert any(t and t[0] == "tribute" for t in seats[0].tributes.values()), \
                "no tribute in the whole session"
            return seats
    seats = run(main(), 75)
    print("rounds", len(seats[0].deals), "acts", sum(sum(s.n_act.values()) for s in seats))


@pytest.mark.parametrize("rules", ["default", "contest"])
def test_one_client_three_greedy_bots(rules):
    """One external random client (seat 0) with greedy bots on seats 1-3."""
    async def main():
        with Server(games=1, seed=11, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                    rules=rules) as srv:
            seat = Seat("solo", Behavior(5), seat=0, games=1, rules=rules)
            c = Client(seat, "solo")
            await run_table(srv.port, [c])
            assert seat.done and seat.gameovers == 1
            assert_closed_cleanly(c)
            rc = await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            assert rc == 0, f"server exit code {rc}:\n{srv.stderr()[-3000:]}"
            srv.check_no_traceback()
    run(main(), 40)


def test_a_search_bot_with_options_sits_at_the_table():
    """--bots 1=search:rollouts=20,k=2,2=greedy,3=expert: a policy's options
    follow it on the command line, and the search decides (in a worker
    thread) at a real table."""
    async def main():
        with Server(games=1, seed=4, bots={1: "search:rollouts=20,k=2", 2: "greedy", 3: "expert"},
                    rules="contest") as srv:
            seat = Seat("solo", Behavior(5), seat=0, games=1, rules="contest")
            c = Client(seat, "solo")
            await run_table(srv.port, [c])
            assert seat.done and seat.gameovers == 1
            rc = await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            assert rc == 0, f"server exit code {rc}:\n{srv.stderr()[-3000:]}"
            srv.check_no_traceback()
    run(main(), 90)


def test_seats_follow_connection_order_among_free_seats():
    """--bots 1=greedy,3=random: the first client is seat 0, the second seat 2.
    A connection beyond the free seats gets no protocol message and does not
    disturb the table."""
    async def extra(port):
        await asyncio.sleep(0.5)
        ws = await connect(f"ws://127.0.0.1:{port}/game/client3", open_timeout=10,
                           ping_interval=None)
        try:
            m = await asyncio.wait_for(ws.recv(), 1.5)
        except (asyncio.TimeoutError, ConnectionClosed):
            m = None
        finally:
            await ws.close()
        assert m is None, f"a fifth connection got a message: {short(m)}"

    async def main():
        with Server(games=1, seed=3, bots={1: "greedy", 3: "random"}) as srv:
            seats = make_seats(2, games=1, seats=[0, 2])
            clients = [Client(s, s.label) for s in seats]
            await asyncio.gather(run_table(srv.port, clients), extra(srv.port))
            for c in clients:
                assert c.t.done
                assert_closed_cleanly(c)
            check_table(seats)
            await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            srv.check_no_traceback()
    run(main(), 40)


class Garbage(Behavior):
    """Sends garbage before its answers, duplicates them and answers when not
    asked, during its first acts; lets one act time out and answers it late;
    then behaves."""

    FRAMES = ["this is not json {", '{"actIndex": 99999}', '{"actIndex": -1}', '{"foo": 1}',
              "[0, 1, 2]", b"\x00\xff\x13garbage", '"actIndex"', "null", ""]
    EARLY = ['{"actIndex": 0}', "hello?", b"\x01\x02"]

    def __init__(self, seed, n_bad=6):
        super().__init__(seed)
        self.n_bad = n_bad
        self.sent_garbage = 0
        self.sent_unsolicited = 0
        self.sent_duplicates = 0
        self.skip_at = n_bad + 1        # this act is left to the server's timeout
        self.skipped = None
        self.sent_late = 0

    def choose(self, seat, msg):
        if self.acts + 1 == self.skip_at and msg["stage"] == "play":
            self.skipped = msg
            return None
        return super().choose(seat, msg)

    def before(self, seat, msg):
        if self.acts > self.n_bad:
            return []
        self.sent_garbage += len(self.FRAMES)
        return list(self.FRAMES) + [json.dumps({"actIndex": msg["indexRange"] + 1})]

    def after(self, seat, msg, frame):
        if self.acts > self.n_bad or msg["stage"] != "play":
            return []
        self.sent_duplicates += 1
        return [frame]

    def after_own_play(self, seat):
        if self.skipped is not None:
            # the late answer to the act the server already settled with its default
            m, self.skipped = self.skipped, None
            self.sent_late += 1
            return [json.dumps({"actIndex": m["indexRange"]})]
        if self.acts > self.n_bad:
            return []
        self.sent_unsolicited += 1
        return ['{"actIndex": 0}', "not asked"]


@pytest.mark.slow
def test_garbage_client():
    """A client that sends frames before the game starts, garbage, wrong
    indices, duplicates, unsolicited answers and a late answer, then behaves:
    the game completes, its own answers are applied exactly (garbage and stale
    answers ignored), and everyone sees only protocol messages."""
    async def main():
        with Server(games=1, seed=21, timeout=2) as srv:
            g = Garbage(77)
            behaviors = [g, Behavior(1), Behavior(2), Behavior(3)]
            seats = make_seats(4, games=1, behaviors=behaviors, engine_check=False, timeout=2)
            clients = [Client(s, s.label, on_connect=Garbage.EARLY if s.behavior is g else ())
                       for s in seats]
            await run_table(srv.port, clients)
            for c in clients:
                assert c.t.done, f"{c.label} did not reach gameResult"
                assert_closed_cleanly(c)
            check_table(seats)
            assert g.sent_garbage and g.sent_unsolicited and g.sent_duplicates and g.sent_late
            assert len(seats[0].timeouts) == 1
            await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            srv.check_no_traceback()
    run(main(), 40)


class Silent(Behavior):
    """Does not answer its first `n` play acts, then plays randomly."""

    def __init__(self, seed, n=3):
        super().__init__(seed)
        self.n = n
        self.skipped = 0

    def choose(self, seat, msg):
        if msg["stage"] == "play" and self.skipped < self.n:
            self.skipped += 1
            return None
        return super().choose(seat, msg)


@pytest.mark.slow
def test_timeout_default_action():
    """--timeout 1: an unanswered act gets the default action (index 0) after
    about a second and the game goes on."""
    async def main():
        with Server(games=1, seed=5, timeout=1, bots={1: "greedy", 2: "greedy", 3: "greedy"}) \
                as srv:
            b = Silent(9, n=3)
            seat = Seat("sleepy", b, seat=0, games=1, timeout=1)
            c = Client(seat, "sleepy", idle=8)
            await run_table(srv.port, [c])
            assert seat.done
            assert_closed_cleanly(c)
            assert len(seat.timeouts) == 3, seat.timeouts
            for lat, action in seat.timeouts:
                assert 0.8 <= lat <= 4.0, f"default action after {lat:.2f}s with --timeout 1"
            await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            srv.check_no_traceback()
            assert re.search(r"time|no answer|default action", srv.stderr(), re.I), \
                "the timeout's default action is not logged on stderr"
    run(main(), 40)


class Quitter(Behavior):
    """Plays randomly, then leaves: `how` = DISCONNECT (TCP drop) or CLOSE
    (close frame); `when` = "asked" (on its k-th act, without answering) or
    "idle" (right after its own k-th play, while others are to act)."""

    def __init__(self, seed, k=4, how=DISCONNECT, when="asked"):
        super().__init__(seed)
        self.k, self.how, self.when = k, how, when

    def choose(self, seat, msg):
        if self.when == "asked" and self.acts + 1 >= self.k and msg["stage"] == "play":
            return self.how
        return super().choose(seat, msg)

    def after_own_play(self, seat):
        if self.when == "idle" and self.acts >= self.k:
            return [self.how]
        return []


QUIT_MODES = [pytest.param(DISCONNECT, "asked", id="drop-while-asked"),
              pytest.param(CLOSE, "idle", id="close-while-idle")]


@pytest.mark.parametrize("how,when", QUIT_MODES)
def test_disconnect_bot_takes_over(how, when):
    """--on-disconnect bot: a client leaves mid-game; the greedy bot plays its
    seat from then on (at once, not after --timeout) and the other client
    finishes the game."""
    async def main():
        with Server(games=1, seed=13, timeout=30, bots={2: "greedy", 3: "greedy"},
                    on_disconnect="bot") as srv:
            q = Quitter(4, k=4, how=how, when=when)
            seats = make_seats(2, games=1, behaviors=[q, Behavior(8)])
            clients = [Client(seats[0], "quitter"), Client(seats[1], "stayer", idle=10)]
            await run_table(srv.port, clients)
            quitter, stayer = clients
            assert seats[0].disconnected
            assert seats[1].done, "the other client did not finish the game"
            assert_closed_cleanly(stayer)
            after = [m for m in seats[1].public[len(seats[0].public):]
                     if m["stage"] == "play" and m["curPos"] == 0]
            assert after, "seat 0 never played after its disconnect"
            check_table(seats, complete=False)
            await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            srv.check_no_traceback()
    run(main(), 40)


@pytest.mark.parametrize("how,when", QUIT_MODES)
def test_disconnect_abort(how, when):
    """--on-disconnect abort: when a client leaves, the others are closed
    cleanly, get no message outside the protocol (no result of an unfinished
    game), and the server exits."""
    async def main():
        with Server(games=1, seed=17, timeout=30, bots={2: "greedy", 3: "greedy"},
                    on_disconnect="abort") as srv:
            q = Quitter(4, k=4, how=how, when=when)
            seats = make_seats(2, games=1, behaviors=[q, Behavior(8)])
            clients = [Client(seats[0], "quitter"), Client(seats[1], "stayer", idle=10)]
            await run_table(srv.port, clients)
            quitter, stayer = clients
            assert seats[0].disconnected
            assert not seats[1].done and seats[1].gameovers == 0, \
                "the session was aborted, yet a game result was announced"
            assert stayer.closed_at - quitter.disconnected_at < 5, "others closed too late"
            assert_closed_cleanly(stayer)
            extra = seats[1].public[len(seats[0].public):]
            assert all(m["stage"] == "play" for m in extra), \
                f"after the abort: {[m['stage'] for m in extra]}"
            check_table(seats, complete=False)
            rc = await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            assert rc is not None and rc >= 0, f"server killed by signal {rc}"
            srv.check_no_traceback()
    run(main(), 30)


def test_record_replays():
    """--record DIR: one JSON record per game; Game.replay accepts each and it
    matches the plays and deals the client saw."""
    async def main(d):
        with Server(games=2, seed=23, bots={1: "greedy", 2: "greedy", 3: "greedy"},
                    record=d) as srv:
            seat = Seat("rec", Behavior(3), seat=0, games=2)
            c = Client(seat, "rec")
            await run_table(srv.port, [c])
            assert seat.done
            await asyncio.get_running_loop().run_in_executor(None, srv.wait_exit, 10)
            srv.check_no_traceback()
            return seat

    with tempfile.TemporaryDirectory() as d:
        seat = run(main(d), 40)
        files = sorted(glob.glob(os.path.join(d, "*.json")))
        assert len(files) == 2, f"want one record per game, got {files}"
        seen_games = set()
        for fn in files:
            with open(fn) as f:
                rec = json.load(f)
            assert isinstance(rec, dict)
            for k in ("format", "seed", "actions"):
                assert k in rec, f"{fn}: missing {k}"
            g = guandan.Game.replay(rec)
            assert g.is_over, f"{fn}: the recorded game is not finished"
            def norm(p, a):
                return (p, a[0], a[1], tuple(sorted(a[2])))
            plays = [norm(p, a) for p, a in rec["actions"] if a[0] not in ("tribute", "back")]
            match = [n for n, ps in seat.plays.items() if [norm(p, a) for p, a in ps] == plays]
            assert match, f"{fn}: its actions are not the plays of any game the client saw"
            n = match[0]
            seen_games.add(n)
            if isinstance(rec.get("deals"), list):
                mine = [seat.deals[k] for k in sorted(seat.deals) if k[0] == n]
                assert len(rec["deals"]) == len(mine), f"{fn}: {len(rec['deals'])} deals, the " \
                    f"client saw {len(mine)} rounds"
                for i, (deal, hand) in enumerate(zip(rec["deals"], mine)):
                    rd = deal[0].split() if isinstance(deal[0], str) else list(deal[0])
                    assert sorted(rd) == sorted(hand), f"{fn}: deal {i} of seat 0 differs"
        assert seen_games == {1, 2}


class Recorder(Behavior):
    def __init__(self, seed):
        super().__init__(seed)
        self.choices = []

    def choose(self, seat, msg):
        i = super().choose(seat, msg)
        self.choices.append(i)
        return i


class Replayer(Behavior):
    def __init__(self, choices):
        super().__init__(0)
        self.choices = list(choices)

    def choose(self, seat, msg):
        return self.choices.pop(0) if self.choices else 0


def _find(log, pred, k=0):
    hits = [i for i, m in enumerate(log) if pred(m)]
    return hits[min(k, len(hits) - 1)]


def _mutations(log):
    """(name, expected error fragment, function mutating a copy of the log)."""
    act = lambda st: (lambda m: m["type"] == "act" and m["stage"] == st)  # noqa: E731
    note = lambda st: (lambda m: m["type"] == "notify" and m["stage"] == st)  # noqa: E731
    follow = _find(log, lambda m: act("play")(m) and m["greaterPos"] != -1
                   and m["indexRange"] >= 3, 5)
    lead = max((i for i, m in enumerate(log) if act("play")(m) and m["greaterPos"] == -1),
               key=lambda i: log[i]["indexRange"])
    other_play = _find(log, lambda m: note("play")(m) and m["curPos"] != 0
                       and m["curAction"] != PASS, 10)
    own_play = _find(log, lambda m: note("play")(m) and m["curPos"] == 0
                     and m["curAction"] != PASS, 3)
    ep = _find(log, note("episodeOver"))
    straight = [i for i, m in enumerate(log) if act("play")(m)
                and any(a[0] == "Straight" for a in m["actionList"])]

    def setf(i, f, v):
        def mut(L):
            L[i][f] = v
        return mut

    def swap_hand(L):
        h = L[lead]["handCards"]
        j = next(j for j in range(len(h) - 1) if h[j][1] != h[j + 1][1])
        h[j], h[j + 1] = h[j + 1], h[j]

    def drop_pass(L):
        L[follow]["actionList"].pop(0)
        L[follow]["indexRange"] -= 1

    def dup_action(L):
        L[lead]["actionList"].append(L[lead]["actionList"][0])
        L[lead]["indexRange"] += 1

    def bad_type_order(L):
        al = L[lead]["actionList"]
        al.insert(0, al.pop())

    def reverse_straight(L):
        m = L[straight[0]]
        a = next(a for a in m["actionList"] if a[0] == "Straight")
        a[2].reverse()

    def rest_off(L):
        L[follow]["publicInfo"][2]["rest"] -= 1

    def no_playarea(L):
        del L[follow]["publicInfo"][1]["playArea"]

    def drop_notify(L):
        del L[other_play]

    def alter_own(L):
        L[own_play]["curAction"] = L[own_play - 1]["actionList"][-1] \
            if L[own_play - 1]["actionList"][-1] != L[own_play]["curAction"] \
            else L[own_play - 1]["actionList"][-2]
        L[own_play]["greaterAction"] = L[own_play]["curAction"]

    def swap_order(L):
        o = L[ep]["order"]
        o[0], o[1] = o[1], o[0]

    def bad_victory(L):
        v = L[-1]["victoryNum"]
        L[-1]["victoryNum"] = [v[1], v[0], v[3], v[2]]

    def unknown(L):
        L.insert(3, {"type": "notify", "stage": "chat", "text": "hi"})

    def null_action(L):
        L[lead]["curAction"] = None

    def int_rank(L):
        L[follow]["curRank"] = 2

    def drop_tribute(L):
        i = _find(L, lambda m: m["type"] == "notify" and m["stage"] in ("tribute", "anti-tribute"))
        del L[i]
        while L[i]["type"] == "act" and L[i]["stage"] == "back" or \
                L[i]["type"] == "notify" and L[i]["stage"] == "back":
            del L[i]

    def greater_wrong(L):
        L[other_play]["greaterPos"] = (L[other_play]["curPos"] + 1) % 4

    muts = [
        ("hand order", "not sorted", swap_hand),
        ("no pass first", "actionList[0] must be", drop_pass),
        ("duplicate action", "duplicate", dup_action),
        ("type order", "type order", bad_type_order),
        ("indexRange", "indexRange", setf(lead, "indexRange", 0)),
        ("rest", "rest", rest_off),
        ("playArea key", "playArea", no_playarea),
        ("missing notify play", "", drop_notify),
        ("own action altered", "applied", alter_own),
        ("episode order", "order", swap_order),
        ("victoryNum", "victoryNum", bad_victory),
        ("unknown stage", "not one of the protocol's pairs", unknown),
        ("bare null", "curAction", null_action),
        ("int curRank in act", "rank letter", int_rank),
        ("myPos", "myPos", setf(0, "myPos", 2)),
        ("greaterPos", "greaterPos", greater_wrong),
        ("no tribute notices", "tribute", drop_tribute),
    ]
    if straight:
        muts.append(("straight card order", "position", reverse_straight))
    return muts


def test_checker_catches_deviations():
    """The checker itself: a real session's stream passes; each single
    deviation from the protocol injected into it is caught."""
    import copy

    async def main():
        with Server(games=1, seed=11, bots={1: "greedy", 2: "greedy", 3: "greedy"}) as srv:
            rec = Recorder(5)
            seat = Seat("orig", rec, seat=0, games=1)
            await run_table(srv.port, [Client(seat, "orig")])
            assert seat.done
            return rec.choices, [json.loads(r) for r in seat.raw]

    choices, log = run(main(), 40)

    def replay(L):
        s = Seat("replay", Replayer(choices), seat=0, games=1, engine_check=False)
        for m in L:
            s.feed(json.dumps(m))
        assert s.done, "stream ended before gameResult"

    replay(copy.deepcopy(log))
    missed = []
    for name, frag, mut in _mutations(log):
        L = copy.deepcopy(log)
        mut(L)
        try:
            replay(L)
        except AssertionError as e:
            if frag not in str(e):
                missed.append(f"{name}: caught for another reason: {str(e)[:200]}")
            continue
        missed.append(f"{name}: not caught")
    assert not missed, "\n".join(missed)


def test_ws4py_threaded_client():
    """A typical contest bot on ws4py's threaded client: remembers myPos from
    beginning, answers act with a random index, exits on close."""
    pytest.importorskip("ws4py")
    from ws4py.client.threadedclient import WebSocketClient

    errors = []
    finished = threading.Event()
    seat = Seat("ws4py", Behavior(42), seat=3, games=1)

    class ExampleClient(WebSocketClient):
        def __init__(self, url):
            super().__init__(url)
            self.myPos = None
            self.n = 0

        def opened(self):
            pass

        def closed(self, code, reason=None):
            self.close_code = code
            finished.set()

        def received_message(self, message):
            try:
                message = json.loads(str(message))
                self.n += 1
                if message["type"] == "notify" and message["stage"] == "beginning":
                    self.myPos = message["myPos"]
                frames = seat.feed(json.dumps(message))
                if message["type"] == "act":
                    assert self.myPos is not None, "act before beginning"
                    assert len(frames) == 1
                    self.send(frames[0])
            except Exception as e:       # report, and let the test fail
                errors.append(e)
                finished.set()

    srv = Server(games=1, seed=31, bots={0: "greedy", 1: "greedy", 2: "greedy"})
    with srv:
        ws = ExampleClient(f"ws://127.0.0.1:{srv.port}/game/client4")
        ws.connect()
        th = threading.Thread(target=ws.run_forever, daemon=True)
        th.start()
        ok = finished.wait(40)
        try:
            ws.close()
        except Exception:
            pass
        if errors:
            raise errors[0]
        assert ok, f"ws4py client: no close within 40s ({ws.n} messages, phase {seat.phase})"
        assert seat.done, f"ws4py client closed before gameResult (phase {seat.phase})"
        assert ws.myPos == 3
        srv.wait_exit(10)
        srv.check_no_traceback()
