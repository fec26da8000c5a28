"""The contest protocol's messages (``docs/protocol.md``) as pure functions
of a :class:`~guandan.game.Game`: no sockets, no state of their own.

Each function returns the message as a dict whose key order is the order
sent (the table sends ``json.dumps`` of it). What a message holds is what
its receiver may know: a seat's own hand, the public card counts and plays,
the levels, and the end-of-round hands every seat sees on the platform.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from ..errors import GuandanError
from ..game import Game
from ..moves import Move

__all__ = ["beginning", "public_info", "act", "anti_tribute", "played", "exchanged",
           "episode_over", "game_over", "game_result"]

_NULL = [None, None, None]


def beginning(g: Game, seat: int) -> Dict[str, Any]:
    """``notify/beginning`` for ``seat``: its hand and the levels."""
    team = seat & 1
    lv = [x + 2 for x in g.team_level_indices]       # the protocol's rank numbers 2..14
    return {"type": "notify", "stage": "beginning",
            "handCards": g.hands[seat].cards(g.level), "myPos": seat,
            "selfRank": lv[team], "oppoRank": lv[1 - team],
            "curRank": g.level_index + 2}


def public_info(g: Game) -> List[Dict[str, Any]]:
    """Every seat's card count and its play in the current trick."""
    areas: Dict[int, Any] = {}
    for s, m in g.trick:
        areas[s] = m.to_platform()
    return [{"rest": g.card_counts[i], "playArea": areas.get(i)} for i in range(4)]


def act(g: Game, seat: int, stage: str, actions: Sequence[Any]) -> Dict[str, Any]:
    """The question ``act`` to ``seat`` (the seat to act) in ``stage``
    (``"play"``, ``"tribute"``, ``"back"``); ``actions``: the platform
    triples of its legal moves, in the order the answer's index refers to."""
    top = g.top
    if stage != "play" or top is None:
        cur_pos, cur_act, gr_pos, gr_act = -1, _NULL, -1, _NULL
    else:
        s, m = g.trick[-1]
        cur_pos, cur_act = s, m.to_platform()
        gr_pos, gr_act = top.seat, top.move.to_platform()
    team = seat & 1
    return {
        "type": "act", "stage": stage,
        "handCards": g.hands[seat].cards(g.level),
        "publicInfo": public_info(g),
        "selfRank": g.team_levels[team], "oppoRank": g.team_levels[1 - team],
        "curRank": g.level,
        "curPos": cur_pos, "curAction": cur_act,
        "greaterPos": gr_pos, "greaterAction": gr_act,
        "actionList": list(actions),
        "indexRange": len(actions) - 1,
    }


def anti_tribute(g: Game) -> Dict[str, Any]:
    """``notify/anti-tribute``: the payers holding a red joker (the tribute is refused)."""
    pos = [p for p in g.tribute.payers if g.hands[p].count("HR") > 0]
    return {"type": "notify", "stage": "anti-tribute", "antiNums": len(pos),
            "antiNum": len(pos), "antiPos": pos}


def played(g: Game, move: Move) -> Dict[str, Any]:
    """``notify/play`` for ``move`` of the seat to act, built *before* it is
    played (the greater play is the trick's top before this move when it is
    a pass)."""
    seat, top = g.to_act, g.top
    if move.is_pass:
        if top is None:
            gr_pos, gr_act = -1, _NULL
        else:
            gr_pos, gr_act = top.seat, top.move.to_platform()
    else:
        gr_pos, gr_act = seat, move.to_platform()
    return {"type": "notify", "stage": "play", "curPos": seat,
            "curAction": move.to_platform(), "greaterPos": gr_pos,
            "greaterAction": gr_act}


def exchanged(g: Game, stage: str) -> Dict[str, Any]:
    """``notify/tribute`` or ``notify/back`` once that exchange is over:
    ``[from, to, card]`` for each card given."""
    t = g.tribute
    if stage == "tribute":
        result = [[p, r, c] for p, r, c in zip(t.payers, t.receivers, t.paid)]
    else:
        result = [[r, p, c] for p, r, c in zip(t.payers, t.receivers, t.returned)]
    return {"type": "notify", "stage": stage, "result": result}


def episode_over(g: Game, rank: str) -> Dict[str, Any]:
    """``notify/episodeOver`` once a round is over: the finishing order and
    the cards left in hand, written at the round's level ``rank``."""
    order = g.last_round_order
    hands = g.round_end_hands
    if order is None or hands is None:
        raise GuandanError("episode_over: no round of this game is over yet")
    rest = [[s, hands[s].cards(rank)] for s in order if len(hands[s])]
    return {"type": "notify", "stage": "episodeOver", "order": order,
            "curRank": rank, "restCards": rest}


def game_over(played_games: int, games: int) -> Dict[str, Any]:
    """``notify/gameOver`` after game number ``played_games`` of ``games``."""
    return {"type": "notify", "stage": "gameOver", "curTimes": played_games,
            "settingTimes": games}


def game_result(victory: List[int], draws: List[int]) -> Dict[str, Any]:
    """``notify/gameResult`` at the session's end: games won (and drawn) per seat."""
    return {"type": "notify", "stage": "gameResult", "victoryNum": victory, "draws": draws}

