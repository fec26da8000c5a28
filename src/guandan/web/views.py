"""What the web table sends about a game: JSON views built from the public
:class:`~guandan.Game` API only. The one rule about hands lives here: a
hand is put into a view only for the seats in ``visible``, and the deal
seed only when ``show_seed`` says so (the seed deals every hand of every
round: it is as secret as the hands; the caller decides who may see what,
see :mod:`guandan.web.session` and :mod:`guandan.web.server`)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

from ..game import Game, Phase
from ..moves import Hand, Move, MoveType
from ..words import LANGS, describe

__all__ = ["move_view", "cards_view", "table_view"]

_EXCHANGE = (MoveType.TRIBUTE, MoveType.BACK)


def cards_view(cards: Sequence[str], level: str) -> List[Dict[str, Any]]:
    """Cards as ``{"c": "H2", "wild": true}`` (the engine says which are wild)."""
    return [{"c": c, "wild": Hand([c]).wilds(level) > 0} for c in cards]


def move_view(m: Move, level: Optional[str] = None) -> Dict[str, Any]:
    """A move: its type (the engine's name, lower case: ``single``,
    ``three_with_two`` ...), rank, cards, its text (``Pair 5 S5 D5``) and
    its words in every language (``words``: ``{"en": "a pair of 5s", "zh":
    "一对5"}``, :func:`guandan.words.describe`)."""
    lv = level or m.level
    return {"type": m.type.name.lower(), "rank": "" if m.is_pass else m.rank,
            "cards": cards_view(m.cards, lv), "text": str(m), "bomb": m.is_bomb,
            "words": {lang: describe(m, lang) for lang in LANGS}}


def table_view(g: Game, names: Sequence[str], visible: Iterable[int] = (), *,
               show_seed: bool = False) -> Dict[str, Any]:
    """The table as everyone may see it (counts, trick, levels, finishing
    order, tribute, results; ``round_start``: the last round's result is
    news, no card of the next round played yet), plus the hands of the seats in ``visible``
    and, with ``show_seed``, the deal seed (else ``seed`` is None: from the
    seed anyone can deal every hand of the game). Hands left at a round's
    end are public (the contest protocol's ``restCards``).

    >>> from guandan import Game
    >>> v = table_view(Game(seed=7), ["a", "b", "c", "d"], visible=[0])
    >>> v["seed"], v["seats"][0]["hand"] is not None, v["seats"][1]["hand"]
    (None, True, None)
    >>> table_view(Game(seed=7), "abcd", show_seed=True)["seed"]
    7
    """
    g = g.copy()                          # one consistent state, whoever plays on
    show = set(visible)
    lv = g.level
    hands = g.hands
    counts = g.card_counts
    fin = g.finish_order
    seats = []
    for s in range(4):
        seats.append({"seat": s, "name": str(names[s])[:40], "count": counts[s],
                      "team": s & 1, "out": fin.index(s) + 1 if s in fin else None,
                      "hand": cards_view(hands[s].cards(lv), lv) if s in show else None})
    trick = [{"seat": s, **move_view(m, lv)} for s, m in g.trick]
    top = g.top
    t = g.tribute
    tribute = None
    # the seats pay (and return) at once: a card is shown once every card of
    # its stage is in (as the contest protocol tells the seats), but to its
    # own seat's viewer
    paying, returning = g.phase is Phase.TRIBUTE, g.phase is Phase.BACK
    if t.payers or t.anti:
        tribute = {"payers": list(t.payers),
                   "paid": [c if not paying or s in show else None for s, c in zip(t.payers, t.paid)],
                   "receivers": list(t.receivers),
                   "returned": [c if not returning or s in show else None
                                for s, c in zip(t.receivers, t.returned)],
                   "anti": t.anti}
    last = g.last_round
    result = None
    if last is not None:
        end = g.round_end_hands or []
        result = {"order": list(last.order), "banker_team": last.banker_team,
                  "levels_up": last.levels_up, "won_at_a": last.won_at_a,
                  "rest": {str(s): cards_view(end[s].cards(lv), lv) for s in range(len(end)) if len(end[s])}}
    played = g.moves_played
    last_action = None
    if played:
        s, m = played[-1]
        if not ((paying or returning) and m.type in _EXCHANGE and s not in show):
            last_action = {"seat": s, **move_view(m)}
    over = g.is_over
    # 接风: the round's last play was by a seat now out, and its partner leads
    jiefeng = False
    if top is None and fin and g.phase is Phase.PLAY:
        plays = [s for s, m in played if not m.is_pass and m.type not in _EXCHANGE]
        jiefeng = bool(plays) and plays[-1] in fin and g.to_act == (plays[-1] + 2) % 4
    # the last round's result is news until the next round's first card is played
    fresh = last is not None and (over or g.phase is not Phase.PLAY or not len(g.played_cards()))
    return {
        "phase": str(g.phase), "to_act": None if over else g.to_act, "level": lv,
        "team_levels": list(g.team_levels), "round": g.round_index + (0 if over else 1),
        "round_start": fresh,
        "seed": g.seed if show_seed else None,
        "seats": seats, "trick": trick, "top_seat": top.seat if top is not None else None,
        "finish_order": list(fin), "tribute": tribute, "last_round": result,
        "last_action": last_action, "actions": len(played), "over": over, "winner": g.winner, "jiefeng": jiefeng,
    }

