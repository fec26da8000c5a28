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
from typing import Any, Callable, Dict, List, Optional, TextIO, Tuple, Union

from collections import Counter

from .errors import GuandanError, IllegalMoveError
from .game import Game, Phase
from .moves import Move, MoveType
from .policies import GreedyPolicy, check_policy, get_policy, parse_policy
from .rules import Rules
from . import words

__all__ = ["play_terminal", "PlayInterrupted", "print_record", "describe", "Style", "explain_greedy",
           "greedy_reason", "hint_for", "undo_own", "SEAT_NAMES"]

SEAT_NAMES = ("South", "East", "North", "West")        # by seat number, in records
_REL_NAMES = ("you", "East", "North", "West")          # relative to you, in the terminal game
HELP = """commands: cards to play (S3 H3; 10 is T), a number from the last list, p: pass
  h  hint: what the hint policy would play, with its number in the list
  y  or Enter on an empty line: play the hint shown for this turn
  m [type]  list moves, 20 at a time: m again for more (m pair, m fullhouse ...)
  t  the whole table    c  your cards    undo (--practice)    ?  help    q  quit"""
PAGE = 20                     # moves per page of 'm'

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


def describe(move: Move, style: Optional[Style] = None, level: Optional[str] = None,
             article: bool = True) -> str:
    """A play in words with its cards: ``"a pair of 5s: S5 D5"``
    (``article=False``: ``"pair of 5s: S5 D5"``), ``"pass"``
    (:func:`guandan.words.describe`, the cards drawn in ``style``)."""
    st = style or Style()
    lv = level or move.level
    if move.is_pass:
        return "pass"
    if move.type in (MoveType.TRIBUTE, MoveType.BACK):
        return st.cards(move.cards, lv)
    text = words.describe(move, "en", cards=True, card=lambda c: st.card(c, lv))
    if not article:
        text = re.sub(r"^(a|the) ", "", text)
    return text


def greedy_reason(game: Game, move: Move) -> str:
    """Why the built-in greedy bot chooses ``move``: a reason name of
    :data:`guandan.words.REASONS` (``greedy-*``)."""
    phase = game.phase
    if phase is Phase.TRIBUTE:
        return "greedy-tribute"
    if phase is Phase.BACK:
        return "greedy-return"
    top = game.top
    if top is None:
        return "greedy-lead-lowest"
    partner = (game.to_act + 2) % 4
    if move.is_pass:
        if top.seat == partner:
            return "greedy-partner-on-top"
        if any(m.type.is_bomb for m in game.legal_moves()):
            return "greedy-keep-bombs"
        return "greedy-cannot-beat"
    if move.type.is_bomb and not top.move.type.is_bomb:
        return "greedy-bomb-stop"
    return "greedy-lowest-beat"


def explain_greedy(game: Game, move: Move, lang: str = "en") -> str:
    """Why the built-in greedy bot chooses ``move``, as a sentence."""
    return words.reason(greedy_reason(game, move), lang)


def hint_for(game: Game, spec: str, lang: str = "en") -> Tuple[Move, str]:
    """``(move, why)``: what the policy ``spec`` would play for the seat to
    act, and why as a sentence (the expert's rule, the greedy bot's reason,
    the search's best value; another policy: its name). Decided on a copy
    from what that seat knows (``game`` is not changed)."""
    g = game.copy()
    name, _ = parse_policy(spec)
    if name == "greedy":
        m = GreedyPolicy()(g.observation(g.to_act), g.legal_moves())
        return m, explain_greedy(g, m, lang)
    pol = get_policy(spec, seed=g.decisions)
    explain = getattr(pol, "explain", None)
    if callable(explain):
        res = explain(g)
        rule = getattr(res, "rule", None)
        if isinstance(rule, str):
            return res.move, words.reason(rule, lang)
        if hasattr(res, "candidates"):
            return res.move, words.reason("only-move" if res.legal == 1 else "search-best-value", lang)
    return g.choose(spec), words.reason(name, lang)


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
    def __init__(self, g: Game, human: int, bots: str, out: TextIO, style: Style, hint: str,
                 auto_hint: bool, practice: bool) -> None:
        self.g = g
        self.human = human
        self.bots = bots
        self.out = out
        self.style = style
        self.hint_spec = hint
        self.auto_hint = auto_hint
        self.practice = practice
        self.width = max(40, min(shutil.get_terminal_size((80, 24)).columns, 120))
        self.listed: List[Move] = []
        self.shown_to = 0                     # how many of `listed` are shown ('m' shows more)
        self.last_hint: Optional[Tuple[int, Move]] = None    # (decisions, move) of this turn's hint
        self.round_seen = g.round_index
        self.tribute_told = -1

    # -- output --------------------------------------------------------------------
    def w(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def wrap(self, text: str, indent: str = "  ", subsequent: str = "    ") -> None:
        self.w(_wrap(text, self.width - 1, indent, subsequent))

    def cards(self, cards: Any) -> str:
        return self.style.cards(cards, self.g.level)

    def say(self, m: Move) -> str:
        """A play in words with its cards in this terminal's style."""
        return describe(m, self.style, self.g.level)

    def count_of(self, s: int) -> str:
        g = self.g
        if s in g.finish_order:
            return f"out ({words.place_name(g.finish_order.index(s))})"
        n = g.card_counts[s]
        if s == self.human:
            return f"{n} cards"
        return f"{n} cards" if n <= 10 else "11+ cards"   # counts are announced at ten or fewer

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

    def levels(self) -> str:
        g = self.g
        mine, theirs = g.team_levels[self.human & 1], g.team_levels[1 - (self.human & 1)]
        return f"level {g.level} (you {mine}, them {theirs})"

    def show_table(self) -> None:
        g = self.g
        self.w(f"-- round {g.round_index + 1}, {self.levels()} | {self.counts()}")
        top = g.top
        if g.phase is not Phase.PLAY:
            return
        if top is None:
            self.w("  you lead")
        else:
            self.wrap(f"to beat: {_name(top.seat, self.human)}'s "
                      f"{describe(top.move, self.style, g.level, article=False)}")

    def show_whole_table(self) -> None:
        """'t': every seat's cards left, the levels, the trick so far and who
        leads it, who acts."""
        g = self.g
        self.w(f"-- table: round {g.round_index + 1}, {self.levels()}, phase {g.phase.value}")
        for k in range(4):
            s = (self.human + k) % 4
            team = "your team" if (s & 1) == (self.human & 1) else "their team"
            self.w(f"  {_name(s, self.human):<6} {SEAT_NAMES[s]:<6} {team:<10} {self.count_of(s)}")
        if g.phase is not Phase.PLAY:
            return
        trick = g.trick
        if not trick:
            self.w(f"  no play yet in this trick: {_name(g.to_act, self.human)} "
                   f"{'lead' if g.to_act == self.human else 'leads'}")
        else:
            self.w(f"  this trick, led by {_name(trick[0].seat, self.human)}:")
            for p in trick:
                who = _name(p.seat, self.human)
                self.wrap(f"{who}: {describe(p.move, self.style, g.level)}", indent="    ",
                          subsequent="      ")
        if not g.is_over:
            self.w(f"  to act: {_name(g.to_act, self.human)}")

    def show_hand(self) -> None:
        g = self.g
        hand = g.hands[self.human].cards(g.level)
        self.wrap(f"your hand ({len(hand)}): {self.cards(hand)}")

    def show_list(self, moves: List[Move], limit: int = 16, start: int = 0) -> None:
        """Numbered moves in columns, ``limit`` of them from ``start`` (the
        screen stays readable at 80x24); the numbers index ``moves``."""
        end = min(len(moves), start + limit)
        items = [f"{i:>2} {self._short(moves[i])}" for i in range(start, end)]
        colw = max((_visible_len(x) for x in items), default=0) + 2
        ncol = max(1, min(3, (self.width - 2) // max(colw, 1)))
        for r in range(0, len(items), ncol):
            row = items[r:r + ncol]
            self.w("  " + "".join(x + " " * (colw - _visible_len(x)) for x in row).rstrip())
        self.shown_to = end
        if len(moves) > end:
            self.wrap(f"... {len(moves) - end} more: 'm' for the next {min(PAGE, len(moves) - end)}, "
                      f"'m TYPE' lists one type (m pair, m bombs ...)")

    def _short(self, m: Move) -> str:
        if m.is_pass:
            return "pass"
        if m.type in (MoveType.TRIBUTE, MoveType.BACK):
            return self.cards(m.cards)
        name = words.type_name(m.type)
        return f"{name} {self.cards(m.cards)}"

    def show_turn(self, legal: List[Move]) -> None:
        g = self.g
        self.show_table()
        self.show_hand()
        self.listed = list(legal)
        self.shown_to = 0
        if g.phase is Phase.TRIBUTE:
            self.w("  pay tribute (your highest card, never a wild):")
            self.show_list(legal)
        elif g.phase is Phase.BACK:
            tr = g.tribute
            for i, payer in enumerate(tr.payers):
                if tr.receivers[i] == self.human and tr.paid[i] is not None:
                    self.w(f"  {_name(payer, self.human)} paid you {self.cards([tr.paid[i]])} as tribute")
            self.w("  return a card (2 to 10, not a level card):")
            self.show_list(legal)
        elif len(legal) <= 16:
            self.w("  your moves:")
            self.show_list(legal)
        else:
            self.wrap(f"{len(legal)} moves: type the cards, 'm' to list them {PAGE} at a time, "
                      f"'m TYPE' one type (m pair, m straight, m bombs)")
        if self.auto_hint:
            self.show_hint()

    def show_hint(self) -> None:
        g = self.g
        m, why = hint_for(g, self.hint_spec)
        self.last_hint = (g.decisions, m)
        try:
            num = f" [{self.listed.index(m)}]"
        except ValueError:
            num = ""
        self.wrap(f"hint ({self.hint_spec}): {self._verb(m)}{num} — {why}. "
                  f"y or Enter plays it")

    def hint_now(self) -> Optional[Move]:
        """The hint shown for this very turn, if any."""
        h = self.last_hint
        return h[1] if h is not None and h[0] == self.g.decisions else None

    def _verb(self, m: Move) -> str:
        if m.is_pass:
            return "pass"
        if m.type == MoveType.TRIBUTE:
            return f"pay {self.cards(m.cards)}"
        if m.type == MoveType.BACK:
            return f"return {self.cards(m.cards)}"
        return f"play {self.say(m)}"

    def tell_action(self, seat: int, m: Move, level: str) -> None:
        who = _name(seat, self.human)
        if m.is_pass:
            self.w(f"  {who} {'pass' if seat == self.human else 'passes'}")
        elif m.type in (MoveType.TRIBUTE, MoveType.BACK):
            return                      # told with the receiver once the exchange is known
        else:
            verb = "play" if seat == self.human else "plays"
            self.wrap(f"{who} {verb} {describe(m, self.style, level)}")

    def tell_trick(self, before: Any, round_before: int) -> None:
        """After an action: the line that says who won the trick it ended."""
        g = self.g
        if before is None or g.top is not None or g.round_index != round_before or g.phase is not Phase.PLAY:
            return
        who = _name(before.seat, self.human)
        line = words.trick_won(who, before.move, card=lambda c: self.style.card(c, g.level))
        if before.seat in g.finish_order and not g.is_over:
            line += f"; {who} {'are' if before.seat == self.human else 'is'} out, so " \
                    f"{_name(g.to_act, self.human)} {'lead' if g.to_act == self.human else 'leads'} " \
                    f"(jiefeng, {words.term('jiefeng', 'zh')})"
        self.wrap("* " + line)

    def tell_exchange(self) -> None:
        """The tribute and the returns of this round, once known."""
        g = self.g
        t = g.tribute
        if self.tribute_told == g.round_index or g.phase is not Phase.PLAY:
            return
        self.tribute_told = g.round_index
        if t.anti:
            who = " and ".join(_name(s, self.human) for s in t.payers)
            verb = 'hold' if len(t.payers) > 1 or t.payers[0] == self.human else 'holds'
            self.w(f"  anti-tribute ({words.term('anti-tribute', 'zh')}): {who} {verb}"
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
            if self.listed and self.shown_to < len(self.listed):
                self.show_list(self.listed, limit=PAGE, start=self.shown_to)    # the next page
            else:
                self.listed = list(legal)
                self.show_list(self.listed, limit=PAGE)
            return
        types = _TYPE_WORDS.get(word)
        if types is None:
            known = ", ".join(("single", "pair", "triple", "tube", "fullhouse", "plate", "straight",
                               "flush", "bombs"))
            self.w(f"  no move type '{word}': try {known}")
            return
        moves = [m for m in legal if m.type in types]
        if not moves:
            what = "bombs" if len(types) > 1 else words.type_name(types[0], plural=True)
            self.w(f"  no {what} to play now")
            return
        self.listed = moves
        self.show_list(moves, limit=PAGE)

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
            return [g.phase.value, g.phase.value, [_normalise_cards(card[0])]]
        line = _normalise_cards(line)
        self._check_held(line)
        return self._reading(line, legal)

    def _reading(self, line: str, legal: List[Move]) -> Any:
        """Typed cards: the one legal reading; several: the hinted one if it
        is among them, else the readings are listed to choose by number."""
        parts = line.split()
        if not parts or parts[0].lower() in _TYPE_WORDS or line.startswith("["):
            return line
        want = Counter(parts)
        ok = [m for m in legal if not m.is_pass and Counter(m.cards) == want]
        if len(ok) <= 1:
            return ok[0] if ok else line
        hinted = self.hint_now()
        if hinted is not None and hinted in ok:
            return hinted
        self.listed = ok
        raise IllegalMoveError("several readings", refusal="AMBIGUOUS", readings=ok)

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

    def refused(self, e: GuandanError) -> None:
        if getattr(e, "refusal", None) == "AMBIGUOUS":
            self.w("  not allowed: these cards can be played several ways; type a number:")
            self.show_list(self.listed)
            return
        text = words.refusal_of(e, card=lambda c: self.style.card(c, self.g.level))
        self.wrap(f"not allowed: {_seat_words(text, self.human)}")

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
                  hint: Union[bool, str, None] = False, practice: bool = False,
                  color: str = "auto") -> Game:
    """Play one seat against built-in bots in the terminal (``inp``/``out``
    may be replaced for scripted play). ``rounds``: stop after that many
    rounds (the last result shown); ``hint``: show a hint and its reason at
    each of your turns, from the bots' policy (``True``) or the policy
    named (``"expert"``); ``h`` shows one on demand either way, ``y`` or
    Enter plays it; ``practice``: allow ``undo``; ``color``: ``"auto"``,
    ``"always"`` or ``"never"``."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise GuandanError(f"seat must be 0..3, got {seat!r:.20}")
    check_policy(bots)                            # unknown bots fail before anything is shown
    hint_spec = bots if hint is True or not hint else hint
    if not isinstance(hint_spec, str):
        raise GuandanError(f"hint must be True, False or a policy name, got {hint!r:.30}")
    check_policy(hint_spec)
    if rounds is not None and (not isinstance(rounds, int) or rounds < 1):
        raise GuandanError(f"rounds must be at least 1, got {rounds!r:.20}")
    style = Style.for_stream(out, color)
    g = Game(rules=rules, seed=seed)
    t = _Terminal(g, seat, bots, out, style, hint_spec, bool(hint), practice)
    t.wrap(f"Guandan: you play against {bots} bots; your partner is North, East plays after "
           f"you. Seed {g.seed}. Hints from {hint_spec}.", indent="", subsequent="")
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
        before, r0 = g.top, g.round_index
        if g.to_act != seat:
            actor, lv = g.to_act, g.level
            m = g.play_policy(bots)
            t.tell_action(actor, m, lv)
            t.tell_trick(before, r0)
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
        low = line.lower()
        if not line or low == "y":
            hinted = t.hint_now()
            if hinted is None:
                if low == "y":
                    t.w("  no hint shown for this turn: 'h' asks for one")
                continue
            action: Any = hinted
        elif low in ("q", "quit", "exit"):
            break
        elif low in ("c", "cards", "hand"):
            t.show_hand()
            continue
        elif low in ("t", "table"):
            t.show_whole_table()
            continue
        elif low in ("?", "help"):
            t.w(HELP)
            continue
        elif low in ("h", "hint"):
            t.show_hint()
            continue
        elif low == "undo":
            if not practice:
                t.w("  undo is for practice games: start with 'guandan play --practice'")
            elif t.undo():
                shown = False
            continue
        elif low == "m" or low.startswith("m "):
            t.list_type(low[2:].strip(), legal)
            continue
        else:
            action = None
        try:
            move = g.parse_action(t.parse(line, legal) if action is None else action)
            lv = g.level
            g.play(move)
            t.tell_action(seat, move, lv)        # tribute and return: told with both sides, below
            t.tell_trick(before, r0)
            shown = False
        except GuandanError as e:
            t.refused(e)
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
    return f"plays {describe(m)}"


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
