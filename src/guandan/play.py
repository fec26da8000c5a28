"""Terminal play (``guandan play``) and record printing (``guandan replay``)."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, List, Optional, TextIO

from ._core import Hand
from .errors import GuandanError
from .game import Game
from .moves import Move, MoveType, classify
from .rules import Rules

__all__ = ["play_terminal", "print_record"]

SEAT_NAMES = ("South", "East", "North", "West")
HELP = """commands: cards to play (e.g. S3 H3), a number from the listed moves,
  p / pass, m [type] (list moves, e.g. 'm pair'), h (hand), t (table), q (quit)"""


def _name(seat: int, human: int) -> str:
    return f"{SEAT_NAMES[seat]}{' (you)' if seat == human else ''}"


def _counts(g: Game, human: int) -> str:
    out = []
    for s in range(4):
        n = g.card_counts[s]
        shown = str(n) if n <= 10 else "11+"       # counts are announced at ten or fewer
        if s in g.finish_order:
            shown = f"out #{g.finish_order.index(s) + 1}"
        out.append(f"{SEAT_NAMES[s]}: {shown}")
    return ", ".join(out)


def _show_table(g: Game, human: int, out: TextIO) -> None:
    out.write(f"\nRound {g.round_index + 1}, level {g.level} (you {g.team_levels[human & 1]}, "
              f"them {g.team_levels[1 - (human & 1)]})  |  {_counts(g, human)}\n")
    if g.trick:
        out.write("  table: " + "; ".join(f"{SEAT_NAMES[s]} {m}" for s, m in g.trick) + "\n")
    else:
        out.write("  table: empty (lead)\n")


def _show_hand(g: Game, seat: int, out: TextIO) -> None:
    out.write(f"  your hand ({len(g.hands[seat])}): {' '.join(g.hands[seat].cards(g.level))}\n")


def _list(moves: List[Move], out: TextIO, limit: int = 60) -> None:
    for i, m in enumerate(moves[:limit]):
        out.write(f"   {i:>3}  {m}\n")
    if len(moves) > limit:
        out.write(f"   ... {len(moves) - limit} more (filter with 'm TYPE', e.g. 'm straight')\n")


def play_terminal(seat: int = 0, *, bots: str = "greedy", seed: Optional[int] = None,
                  rules: Optional[Rules] = None, rounds: Optional[int] = None,
                  inp: Callable[[str], str] = input, out: TextIO = sys.stdout) -> Game:
    """Play one seat against built-in bots in the terminal."""
    g = Game(rules=rules, seed=seed)
    listed: List[Move] = []
    out.write(f"Guandan: you are {SEAT_NAMES[seat]} (seat {seat}), partner {SEAT_NAMES[seat ^ 2]}; "
              f"bots play {bots}. Seed {g.seed}.\n{HELP}\n")
    last_round = g.round_index
    shown = False
    while not g.is_over and (rounds is None or g.round_index < rounds):
        if g.round_index != last_round:
            order = g.last_round_order or []
            out.write("\n=== round over: " + ", ".join(
                f"{i + 1}. {_name(s, seat)}" for i, s in enumerate(order)) + "\n")
            out.write(f"    levels now: you {g.team_levels[seat & 1]}, them {g.team_levels[1 - (seat & 1)]}\n")
            last_round = g.round_index
            shown = False
        if g.to_act != seat:
            actor = g.to_act
            m = g.play_policy(bots)
            out.write(f"  {SEAT_NAMES[actor]}: {m}\n")
            shown = False
            continue
        legal = list(g.legal_moves())
        if not shown:
            _show_table(g, seat, out)
            _show_hand(g, seat, out)
            if g.phase in ("tribute", "back") or len(legal) <= 40:
                what = {"tribute": "pay tribute", "back": "return a card"}.get(g.phase, "your moves")
                out.write(f"  {what}:\n")
                listed = legal
                _list(listed, out)
            shown = True
        try:
            line = inp("> ").strip()
        except EOFError:
            out.write("\n")
            break
        if not line:
            continue
        low = line.lower()
        if low in ("q", "quit", "exit"):
            break
        if low in ("h", "hand"):
            _show_hand(g, seat, out)
            continue
        if low in ("t", "table"):
            _show_table(g, seat, out)
            continue
        if low in ("?", "help"):
            out.write(HELP + "\n")
            continue
        if low == "m" or low.startswith("m "):
            word = low[2:].strip().replace("_", "").replace(" ", "")
            names = lambda m: (m.type.name.lower().replace("_", ""), m.type.platform.lower())
            listed = [m for m in legal if not word or word in names(m)]
            if not listed:
                listed = [m for m in legal if any(word in x for x in names(m))]
            _list(listed, out)
            continue
        try:
            move = _parse_input(g, line, listed, legal)
            g.play(move)
            out.write(f"  you: {move}\n")
            shown = False
        except GuandanError as e:
            out.write(f"  not allowed: {e}\n")
    if g.is_over:
        won = g.winner == (seat & 1)
        out.write(f"\nGame over after {g.round_index} rounds: {'your team wins' if won else 'the other team wins'}"
                  f" (levels {g.team_levels[0]} / {g.team_levels[1]}).\n")
    return g


def _parse_input(g: Game, line: str, listed: List[Move], legal: List[Move]) -> Any:
    if line.isdigit():
        i = int(line)
        if not 0 <= i < len(listed):
            raise GuandanError(f"no move number {i} in the last list")
        return listed[i]
    if line.lower() in ("p", "pass"):
        return "PASS"
    if g.phase in ("tribute", "back"):
        card = line.split()
        if len(card) != 1:
            raise GuandanError("give exactly one card")
        return [g.phase, g.phase, card]
    readings = classify(line.split(), g.level, rules=g.rules)
    if not readings:
        raise GuandanError(f"{line} is not a valid combination at level {g.level}")
    ok = [m for m in readings if m in legal]
    return ok[0] if ok else readings[0]


def print_record(record: Any, out: TextIO = sys.stdout) -> Game:
    """Print a game record readably (validating it by replaying it)."""
    if isinstance(record, str):
        record = json.loads(record)
    g = Game.replay(record)                  # validates every field and every action
    out.write(f"Guandan game, seed {g.seed}, rules {g.rules.name}\n")
    deals = g.deals
    r = -1
    replay = Game.replay(dict(record, actions=[], deals=None))     # the same start, no actions yet
    first = replay.round_index
    for seat, triple in record["actions"]:
        if replay.round_index != r:
            r = replay.round_index
            if r > 0 and replay.last_round_order:
                out.write("  order: " + ", ".join(SEAT_NAMES[s] for s in replay.last_round_order)
                          + f"; levels {replay.team_levels[0]} / {replay.team_levels[1]}\n")
            out.write(f"\n== round {r + 1}, level {replay.level}\n")
            if 0 <= r - first < len(deals):
                for s in range(4):
                    out.write(f"  {SEAT_NAMES[s]:<6} {deals[r - first][s]}\n")
        m = replay.parse_action(triple)
        out.write(f"  {SEAT_NAMES[seat]:<6} {m}\n")
        replay.play(m)
    if replay.last_round_order and replay.round_index != r:
        out.write("  order: " + ", ".join(SEAT_NAMES[s] for s in replay.last_round_order)
                  + f"; levels {replay.team_levels[0]} / {replay.team_levels[1]}\n")
    if g.is_over:
        out.write(f"\nwinner: team {g.winner} (seats {g.winner}, {g.winner + 2}) after {g.round_index} rounds\n")
    else:
        out.write(f"\nnot finished ({g.round_index} rounds, levels {g.team_levels[0]} / {g.team_levels[1]})\n")
    return g
