"""Terminal play (``guandan play``) and record printing (``guandan replay``).

The terminal game seats you at South, your partner North, the opponents
East and West (whatever seat number you play). Plays, tributes and returns
are written as words; cards use the suit symbols ♠♥♣♦ (hearts and diamonds
in red) when the terminal supports them, the letters otherwise; a wild card
is marked ``*``. Type cards in the platform notation (``S3 H3``, any case).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from typing import Any, Callable, Dict, List, Optional, TextIO

from .errors import GuandanError
from .game import Game, Phase
from .moves import Move, MoveType
from .policies import GreedyPolicy, check_policy
from .rules import Rules

__all__ = ["play_terminal", "PlayInterrupted", "print_record", "describe", "Style", "explain_greedy",
           "undo_own", "SEAT_NAMES"]

SEAT_NAMES = ("South", "East", "North", "West")        # by seat number, in records
_REL_NAMES = ("you", "East", "North", "West")          # relative to you, in the terminal game
HELP = """commands: cards to play (e.g. S3 H3; 10 is T), a number from the last list, p,
  m [type] (list moves: m pair, m fullhouse, m bombs ...), h (hand), t (table),
  hint (what the greedy bot would play), undo (--practice), ? (help), q (quit)"""

# 'm WORD' -> the move types it lists
_TYPE_WORDS: Dict[str, tuple] = {}
for _t, _words in (
        (MoveType.SINGLE, ("single", "singles")),
        (MoveType.PAIR, ("pair", "pairs")),
        (MoveType.TRIPS, ("trips", "triple", "triples", "three")),
        (MoveType.THREE_PAIR, ("threepair", "tube", "tubes", "pairs3")),
        (MoveType.THREE_WITH_TWO, ("threewithtwo", "fullhouse", "fullhouses", "full", "house")),
        (MoveType.TWO_TRIPS, ("twotrips", "plate", "plates")),
        (MoveType.STRAIGHT, ("straight", "straights")),
        (MoveType.STRAIGHT_FLUSH, ("straightflush", "straightflushes", "flush", "sf")),
        (MoveType.BOMB, ("bomb",)),
        (MoveType.JOKER_BOMB, ("jokerbomb", "jokers")),
        (MoveType.PASS, ("pass",)),
        (MoveType.TRIBUTE, ("tribute",)),
        (MoveType.BACK, ("back", "return")),
):
    for _w in _words:
        _TYPE_WORDS[_w] = (_t,)
_TYPE_WORDS["bombs"] = (MoveType.BOMB, MoveType.STRAIGHT_FLUSH, MoveType.JOKER_BOMB)
_TYPE_NAMES = {
    MoveType.SINGLE: ("single", "singles"), MoveType.PAIR: ("pair", "pairs"),
    MoveType.TRIPS: ("triple", "triples"), MoveType.THREE_PAIR: ("tube", "tubes"),
    MoveType.THREE_WITH_TWO: ("full house", "full houses"), MoveType.TWO_TRIPS: ("plate", "plates"),
    MoveType.STRAIGHT: ("straight", "straights"),
    MoveType.STRAIGHT_FLUSH: ("straight flush", "straight flushes"),
    MoveType.BOMB: ("bomb", "bombs"), MoveType.JOKER_BOMB: ("joker bomb", "joker bombs"),
}
_RANK_WORDS = {"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A", "B": "small joker", "R": "big joker"}


class Style:
    """How cards are drawn: suit symbols (``unicode``) and ANSI colour
    (``color``); the wild cards of the level are marked ``*``."""

    SUITS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}

    def __init__(self, unicode: bool = False, color: bool = False) -> None:
        self.unicode = unicode
        self.color = color

    @classmethod
    def for_stream(cls, out: TextIO, mode: str = "auto") -> "Style":
        """``mode``: ``"always"``, ``"never"`` or ``"auto"`` (symbols when the
        stream's encoding has them; colour on a terminal, unless NO_COLOR is
        set or TERM is dumb)."""
        if mode not in ("auto", "always", "never"):
            raise GuandanError(f"color must be auto, always or never, got {mode!r:.20}")
        if mode == "never":
            return cls(False, False)
        enc = getattr(out, "encoding", None) or ""
        try:
            "♠♥♣♦".encode(enc or "ascii")
            can_unicode = True
        except (LookupError, UnicodeEncodeError):
            can_unicode = False
        if mode == "always":
            return cls(True, True)
        try:
            tty = out.isatty()
        except (AttributeError, ValueError):
            tty = False
        color = tty and "NO_COLOR" not in os.environ and os.environ.get("TERM", "") != "dumb"
        return cls(can_unicode and tty, color)

    def card(self, c: str, level: str) -> str:
        wild = c == "H" + level
        if c in ("SB", "HR"):
            text = c                          # small (black) and big (red) joker, as typed
            red = c == "HR"
        else:
            suit, rank = c[0], c[1]
            text = (self.SUITS[suit] + ("10" if rank == "T" else rank)) if self.unicode else c
            red = suit in "HD"
        if wild:
            text += "*"
        if self.color:
            code = "1;33" if wild else ("31" if red else "")
            if code:
                text = f"\x1b[{code}m{text}\x1b[0m"
        return text

    def cards(self, cards: Any, level: str) -> str:
        return " ".join(self.card(c, level) for c in cards)


def _visible_len(s: str) -> int:
    return len(re.sub(r"\x1b\[[0-9;]*m", "", s))


def _wrap(text: str, width: int, indent: str = "  ", subsequent: str = "    ") -> str:
    """Wrap at spaces only (never inside a card), colour codes not counted."""
    words = text.split(" ")
    lines: List[str] = []
    cur, cur_len = indent, len(indent)
    for w in words:
        wl = _visible_len(w)
        if cur_len + wl + (0 if cur.strip() == "" else 1) > width and cur.strip():
            lines.append(cur)
            cur, cur_len = subsequent + w, len(subsequent) + wl
        else:
            sep = "" if cur.strip() == "" else " "
            cur += sep + w
            cur_len += len(sep) + wl
    lines.append(cur)
    return "\n".join(lines)


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def describe(move: Move, style: Optional[Style] = None, level: Optional[str] = None,
             article: bool = True) -> str:
    """A play in words: ``"a pair of 5s: S5 D5"`` (``article=False``:
    ``"pair of 5s: S5 D5"``), ``"pass"``."""
    st = style or Style()
    lv = level or move.level
    if move.is_pass:
        return "pass"
    t = move.type
    cards = st.cards(move.cards, lv)
    if t in (MoveType.TRIBUTE, MoveType.BACK):
        return cards
    r = move.rank
    rw = _RANK_WORDS.get(r, r)
    a = "a " if article else ""
    if t == MoveType.SINGLE:
        return f"{a}single {cards}"
    if t == MoveType.JOKER_BOMB:
        return f"{'the ' if article else ''}joker bomb: {cards}"
    if t in (MoveType.STRAIGHT, MoveType.STRAIGHT_FLUSH, MoveType.THREE_PAIR, MoveType.TWO_TRIPS):
        return f"{a}{_TYPE_NAMES[t][0]} from {rw}: {cards}"
    if t == MoveType.BOMB:
        return f"{a}bomb of {_NUMBER_WORDS[len(move)]} {rw}s: {cards}"
    return f"{a}{_TYPE_NAMES[t][0]} of {rw}s: {cards}"


def explain_greedy(game: Game, move: Move) -> str:
    """Why the built-in greedy bot chooses ``move`` (its rule, in words)."""
    phase = game.phase
    if phase is Phase.TRIBUTE:
        return "the tribute must be your highest card in level order (never a wild)"
    if phase is Phase.BACK:
        return "it returns its lowest allowed card (rank 2..10, not a level card)"
    top = game.top
    if top is None:
        return "it leads its lowest play, keeping bombs for later"
    partner = (game.to_act + 2) % 4
    if move.is_pass:
        if top.seat == partner:
            return "your partner's play is on top: it never plays over its partner"
        if any(m.type.is_bomb for m in game.legal_moves()):
            return "only a bomb would beat it, and no opponent is close to going out"
        return "nothing in your hand beats it"
    if move.type.is_bomb and not top.move.type.is_bomb:
        return "an opponent is close to going out: it bombs to take the trick"
    return "it plays the lowest combination that beats the table"


_SYMBOL_SUIT = {"♠": "S", "♥": "H", "♣": "C", "♦": "D"}


def _normalise_cards(line: str) -> str:
    """Cards as typed: any case, suit symbols, '10' for T (``♠10 h3`` -> ``ST H3``)."""
    out = []
    for tok in line.split():
        t = tok.upper()
        if t and t[0] in _SYMBOL_SUIT:
            t = _SYMBOL_SUIT[t[0]] + t[1:]
        if len(t) == 3 and t[1:] == "10":
            t = t[0] + "T"
        out.append(t.rstrip("*"))
    return " ".join(out)


def _name(seat: int, human: int) -> str:
    return _REL_NAMES[(seat - human) % 4]


def _seat_words(text: str, human: int) -> str:
    """Engine messages name seats by number: use the terminal's names."""
    text = re.sub(r"seat (\d)'s hand", lambda m: "your hand" if int(m.group(1)) == human
                  else f"{_name(int(m.group(1)), human)}'s hand", text)
    return re.sub(r"seat (\d)", lambda m: _name(int(m.group(1)), human), text)


class _Terminal:
    def __init__(self, g: Game, human: int, bots: str, out: TextIO, style: Style, hint: bool,
                 practice: bool) -> None:
        self.g = g
        self.human = human
        self.bots = bots
        self.out = out
        self.style = style
        self.hint = hint
        self.practice = practice
        self.width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 120))
        self.listed: List[Move] = []
        self.round_seen = g.round_index
        self.tribute_told = -1

    # -- output --------------------------------------------------------------------
    def w(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def wrap(self, text: str, indent: str = "  ", subsequent: str = "    ") -> None:
        self.w(_wrap(text, self.width - 1, indent, subsequent))

    def cards(self, cards: Any) -> str:
        return self.style.cards(cards, self.g.level)

    def counts(self) -> str:
        g = self.g
        out = []
        for k in (1, 2, 3):
            s = (self.human + k) % 4
            n = g.card_counts[s]
            shown = f"{n}" if n <= 10 else "11+"          # counts are announced at ten or fewer
            if s in g.finish_order:
                shown = f"out #{g.finish_order.index(s) + 1}"
            out.append(f"{_name(s, self.human)} {shown}")
        return ", ".join(out)

    def show_table(self) -> None:
        g = self.g
        mine, theirs = g.team_levels[self.human & 1], g.team_levels[1 - (self.human & 1)]
        self.w(f"-- round {g.round_index + 1}, level {g.level} (you {mine}, them {theirs}) | "
               f"{self.counts()}")
        top = g.top
        if g.phase is not Phase.PLAY:
            return
        if top is None:
            self.w("  you lead")
        else:
            self.wrap(f"to beat: {_name(top.seat, self.human)}'s "
                      f"{describe(top.move, self.style, g.level, article=False)}")

    def show_hand(self) -> None:
        g = self.g
        hand = g.hands[self.human].cards(g.level)
        self.wrap(f"your hand ({len(hand)}): {self.cards(hand)}")

    def show_list(self, moves: List[Move], limit: int = 16) -> None:
        """Numbered moves in columns, at most ``limit`` (the screen stays readable at 80x24)."""
        items = [f"{i:>2} {self._short(m)}" for i, m in enumerate(moves[:limit])]
        colw = max((_visible_len(x) for x in items), default=0) + 2
        ncol = max(1, min(3, (self.width - 2) // max(colw, 1)))
        for r in range(0, len(items), ncol):
            row = items[r:r + ncol]
            self.w("  " + "".join(x + " " * (colw - _visible_len(x)) for x in row).rstrip())
        if len(moves) > limit:
            self.w(f"  ... {len(moves) - limit} more: 'm TYPE' lists one type (m pair, m bombs ...)")

    def _short(self, m: Move) -> str:
        if m.is_pass:
            return "pass"
        if m.type in (MoveType.TRIBUTE, MoveType.BACK):
            return self.cards(m.cards)
        name = _TYPE_NAMES[m.type][0]
        return f"{name} {self.cards(m.cards)}"

    def show_turn(self, legal: List[Move]) -> None:
        g = self.g
        self.show_table()
        self.show_hand()
        self.listed = list(legal)
        if g.phase is Phase.TRIBUTE:
            self.w("  pay tribute (your highest card, never a wild):")
            self.show_list(legal)
        elif g.phase is Phase.BACK:
            tr = g.tribute
            for i, payer in enumerate(tr.payers):
                if tr.receivers[i] == self.human and tr.paid[i] is not None:
                    self.w(f"  {_name(payer, self.human)} paid you {self.cards([tr.paid[i]])} as tribute")
            self.w("  return a card:")
            self.show_list(legal)
        elif len(legal) <= 16:
            self.w("  your moves:")
            self.show_list(legal)
        else:
            self.w(f"  {len(legal)} moves: type the cards, 'm TYPE' to list (m pair, m straight, m bombs)")
        if self.hint:
            self.show_hint()

    def show_hint(self) -> None:
        g = self.g
        m = GreedyPolicy()(g.observation(self.human), g.legal_moves())
        verb = self._verb(m)
        self.wrap(f"hint: the greedy bot would {verb} — {explain_greedy(g, m)}")

    def _verb(self, m: Move) -> str:
        if m.is_pass:
            return "pass"
        if m.type == MoveType.TRIBUTE:
            return f"pay {self.cards(m.cards)}"
        if m.type == MoveType.BACK:
            return f"return {self.cards(m.cards)}"
        return f"play {describe(m, self.style, self.g.level)}"

    def tell_action(self, seat: int, m: Move, level: str) -> None:
        who = _name(seat, self.human)
        if m.is_pass:
            self.w(f"  {who} {'pass' if seat == self.human else 'passes'}")
        elif m.type in (MoveType.TRIBUTE, MoveType.BACK):
            return                      # told with the receiver once the exchange is known
        else:
            verb = "play" if seat == self.human else "plays"
            self.wrap(f"{who} {verb} {describe(m, self.style, level)}")

    def tell_exchange(self) -> None:
        """The tribute and the returns of this round, once known."""
        g = self.g
        t = g.tribute
        if self.tribute_told == g.round_index or g.phase is not Phase.PLAY:
            return
        self.tribute_told = g.round_index
        if t.anti:
            who = " and ".join(_name(s, self.human) for s in t.payers)
            self.w(f"  anti-tribute: {who} {'hold' if len(t.payers) > 1 or t.payers[0] == self.human else 'holds'}"
                   f" both big jokers, no tribute this round")
            return
        for i, payer in enumerate(t.payers):
            card, recv = t.paid[i], t.receivers[i]
            if card is None or recv is None:
                continue
            p, r = _name(payer, self.human), _name(recv, self.human)
            self.w(f"  {p} {'pay' if payer == self.human else 'pays'} tribute {self.cards([card])} to {r}")
        for i, payer in enumerate(t.payers):
            card, recv = t.returned[i], t.receivers[i]
            if card is None or recv is None:
                continue
            p, r = _name(recv, self.human), _name(payer, self.human)
            self.w(f"  {p} {'return' if recv == self.human else 'returns'} {self.cards([card])} to {r}")

    def tell_round_end(self) -> None:
        g = self.g
        res = g.last_round
        if res is None:
            return
        order = ", ".join(f"{i + 1}. {_name(s, self.human)}" for i, s in enumerate(res.order))
        self.w(f"== round over: {order}")
        team = "your team" if res.banker_team == (self.human & 1) else "their team"
        gain = f"goes up {res.levels_up}" if res.levels_up else "stays"
        if res.won_at_a:
            gain = "wins the game at A"
        self.w(f"   {team} {gain}; levels now: you {g.team_levels[self.human & 1]}, "
               f"them {g.team_levels[1 - (self.human & 1)]}")

    # -- input ---------------------------------------------------------------------
    def list_type(self, word: str, legal: List[Move]) -> None:
        word = word.replace("_", "").replace(" ", "").replace("-", "")
        if not word:
            self.listed = list(legal)
            self.show_list(self.listed, limit=45)
            return
        types = _TYPE_WORDS.get(word)
        if types is None:
            known = ", ".join(("single", "pair", "triple", "tube", "fullhouse", "plate", "straight",
                               "flush", "bombs"))
            self.w(f"  no move type '{word}': try {known}")
            return
        moves = [m for m in legal if m.type in types]
        if not moves:
            what = "bombs" if len(types) > 1 else _TYPE_NAMES.get(types[0], (word, word + "s"))[1]
            self.w(f"  no {what} to play now")
            return
        self.listed = moves
        self.show_list(moves, limit=45)

    def parse(self, line: str, legal: List[Move]) -> Any:
        g = self.g
        if line.isdigit():
            i = int(line)
            if not 0 <= i < len(self.listed):
                raise GuandanError(f"no move number {i} in the last list (0..{len(self.listed) - 1})")
            return self.listed[i]
        if line.lower() in ("p", "pass"):
            return "PASS"
        if g.phase in (Phase.TRIBUTE, Phase.BACK):
            card = line.split()
            if len(card) != 1:
                raise GuandanError("give exactly one card")
            return [g.phase.value, g.phase.value, [card[0].upper()]]
        line = _normalise_cards(line)
        self._check_held(line)
        return line

    def _check_held(self, line: str) -> None:
        """'S3 S3' with one S3: say so, rather than only 'not in your hand'."""
        want: Dict[str, int] = {}
        for c in line.upper().split():
            want[c] = want.get(c, 0) + 1
        hand = self.g.hands[self.human]
        for c, k in want.items():
            try:
                have = hand.count(c)
            except GuandanError:
                return                   # an unknown card: the engine's message names it
            if 0 < have < k:
                raise GuandanError(f"you hold {c} only once, and typed it {k} times")

    def undo(self) -> bool:
        """Take back the last action of yours (and the bots' after it)."""
        g = self.g
        start_round = g.round_index
        n = undo_own(g, self.human)
        if not n:
            self.w("  nothing of yours to undo")
            return False
        self.w(f"  undone: your last action{' (and the bots after it)' if n > 1 else ''}")
        if g.round_index != start_round:
            self.round_seen = g.round_index
        return True


def undo_own(game: Game, seat: int) -> int:
    """Take back ``seat``'s last action and every action after it (the bots'
    answers): practice-mode undo, in the terminal and the web table. Returns
    the number of actions undone (0: ``seat`` has not acted yet)."""
    mine = [i for i, (s, _) in enumerate(game.moves_played) if s == seat]
    if not mine:
        return 0
    n = len(game.moves_played) - mine[-1]
    for _ in range(n):
        game.undo()
    return n


def play_terminal(seat: int = 0, *, bots: str = "greedy", seed: Optional[int] = None,
                  rules: Optional[Rules] = None, rounds: Optional[int] = None,
                  inp: Callable[[str], str] = input, out: TextIO = sys.stdout,
                  hint: bool = False, practice: bool = False, color: str = "auto") -> Game:
    """Play one seat against built-in bots in the terminal (``inp``/``out``
    may be replaced for scripted play). ``rounds``: stop after that many
    rounds (the last result shown); ``hint``: show the greedy bot's choice
    and its reason at each of your turns; ``practice``: allow ``undo``;
    ``color``: ``"auto"``, ``"always"`` or ``"never"``."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise GuandanError(f"seat must be 0..3, got {seat!r:.20}")
    check_policy(bots)                            # unknown bots fail before anything is shown
    if rounds is not None and (not isinstance(rounds, int) or rounds < 1):
        raise GuandanError(f"rounds must be at least 1, got {rounds!r:.20}")
    style = Style.for_stream(out, color)
    g = Game(rules=rules, seed=seed)
    t = _Terminal(g, seat, bots, out, style, hint, practice)
    t.wrap(f"Guandan: you play against {bots} bots; your partner is North, East plays after "
           f"you. Seed {g.seed}.", indent="", subsequent="")
    t.w(HELP)
    try:
        _loop(g, t, seat, bots, rounds, inp, practice)
    except KeyboardInterrupt:
        t.w("")
        raise PlayInterrupted(g) from None
    return g


class PlayInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`play_terminal`: ``game`` is the game as far as
    it was played (its :meth:`~guandan.Game.record` replays it)."""

    def __init__(self, game: Game) -> None:
        super().__init__("interrupted")
        self.game = game


def _loop(g: Game, t: "_Terminal", seat: int, bots: str, rounds: Optional[int],
          inp: Callable[[str], str], practice: bool) -> None:
    shown = False
    while not g.is_over:
        if g.round_index != t.round_seen:
            t.tell_round_end()
            t.round_seen = g.round_index
            shown = False
            if rounds is not None and g.round_index >= rounds:
                break
        if g.phase is Phase.PLAY:
            t.tell_exchange()
        if g.to_act != seat:
            actor, lv = g.to_act, g.level
            m = g.play_policy(bots)
            t.tell_action(actor, m, lv)
            shown = False
            continue
        legal = list(g.legal_moves(order="contest"))      # game value: 3 .. A, the level rank, jokers
        if not shown:
            t.show_turn(legal)
            shown = True
        try:
            line = inp("> ").strip()
        except EOFError:
            t.w("")
            break
        if not line:
            continue
        low = line.lower()
        if low in ("q", "quit", "exit"):
            break
        if low in ("h", "hand"):
            t.show_hand()
            continue
        if low in ("t", "table"):
            t.show_table()
            continue
        if low in ("?", "help"):
            t.w(HELP)
            continue
        if low == "hint":
            t.show_hint()
            continue
        if low == "undo":
            if not practice:
                t.w("  undo is for practice games: start with 'guandan play --practice'")
            elif t.undo():
                shown = False
            continue
        if low == "m" or low.startswith("m "):
            t.list_type(low[2:].strip(), legal)
            continue
        try:
            move = g.parse_action(t.parse(line, legal))
            lv = g.level
            g.play(move)
            t.tell_action(seat, move, lv)        # tribute and return: told with both sides, below
            shown = False
        except GuandanError as e:
            t.wrap(f"not allowed: {_seat_words(str(e), seat)}")
    if g.is_over:
        if g.round_index != t.round_seen:
            t.tell_round_end()
        won = g.winner == (seat & 1)
        t.w(f"\nGame over after {g.round_index} rounds: {'your team wins' if won else 'the other team wins'}"
            f" (levels {g.team_levels[0]} / {g.team_levels[1]}).")


def _record_words(seat: int, m: Move, replay: Game) -> str:
    if m.is_pass:
        return "passes"
    if m.type == MoveType.TRIBUTE:
        return f"pays tribute {m.cards[0]}"
    if m.type == MoveType.BACK:
        return f"returns {m.cards[0]}"
    return f"plays {m}"


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
        out.write(f"  {SEAT_NAMES[seat]:<6} {_record_words(seat, m, replay)}\n")
        replay.play(m)
    if replay.last_round_order and replay.round_index != r:
        out.write("  order: " + ", ".join(SEAT_NAMES[s] for s in replay.last_round_order)
                  + f"; levels {replay.team_levels[0]} / {replay.team_levels[1]}\n")
    w = g.winner
    if w is not None:
        out.write(f"\nwinner: team {w} (seats {w}, {w + 2}) after {g.round_index} rounds\n")
    elif g.is_over:
        out.write(f"\nover after {g.round_index} rounds without a winner (the rules' max_rounds), levels "
                  f"{g.team_levels[0]} / {g.team_levels[1]}\n")
    else:
        out.write(f"\nnot finished ({g.round_index} rounds, levels {g.team_levels[0]} / {g.team_levels[1]})\n")
    return g
