"""Plays, refusals and reasons in words, in English (``lang="en"``) and
Chinese (``lang="zh"``): what the terminal game and the web table say to a
person instead of the engine's notation.

>>> from guandan import Move
>>> describe(Move.from_cards("SB SB", "2"))
'a pair of small jokers'
>>> describe(Move.from_cards("S9 H2", "2")), describe(Move.from_cards("S9 H2", "2"), "zh")
('a pair of 9s (one wild)', '一对9（含一张逢人配）')
>>> describe(Move.from_cards("S3 H4 C5 D6 S7", "2"))
'a straight 3 to 7'
>>> describe(Move.from_cards("SA HA S2 D2 C3 D3", "9"), "zh")
'三连对A到3'
>>> refusal("DOES_NOT_BEAT", move=Move.from_cards("SB", "2"),
...         top=Move.from_cards("S3 H4 C5 D6 S7", "2"))
'the small joker does not beat a straight 3 to 7'
>>> reason("pass-keep-hand")
'no play that beats it is worth what it costs the hand: pass'

The tables :data:`REFUSALS` (keyed by the names of
:class:`guandan.game.Refusal`, plus ``INVALID`` and ``AMBIGUOUS``) and
:data:`REASONS` (keyed by the expert's rule names and the greedy bot's
reasons) hold a sentence per language; a refusal names its cards through
``{move}``, ``{top}``, ``{cards}`` (missing from the hand, or forming no
play) and ``{choices}``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple

from .errors import GuandanError
from .moves import Move, MoveType

__all__ = ["LANGS", "describe", "card_name", "type_name", "rank_name", "wilds_in", "refusal",
           "refusal_of", "reason", "place_name", "trick_won", "term", "REFUSALS", "REASONS", "TERMS"]

#: the languages every sentence exists in
LANGS = ("en", "zh")

CardFn = Callable[[str], str]

_SUITS = {"en": {"S": "♠", "H": "♥", "C": "♣", "D": "♦"},
          "zh": {"S": "黑桃", "H": "红桃", "C": "梅花", "D": "方块"}}
_JOKERS = {"en": {"SB": "small joker", "HR": "big joker"},
           "zh": {"SB": "小王", "HR": "大王"}}
_RANK_EN = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
_NUM_EN = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_NUM_ZH = "零一两三四五六七八九十"
_ORDER = "A23456789TJQKA"          # sequence positions: ace-low first, ace-high last

_TYPE_EN: Dict[MoveType, Tuple[str, str]] = {
           MoveType.PASS: ("pass", "passes"), MoveType.SINGLE: ("single", "singles"),
           MoveType.PAIR: ("pair", "pairs"), MoveType.TRIPS: ("triple", "triples"),
           MoveType.THREE_PAIR: ("tube", "tubes"), MoveType.THREE_WITH_TWO: ("full house", "full houses"),
           MoveType.TWO_TRIPS: ("plate", "plates"), MoveType.STRAIGHT: ("straight", "straights"),
           MoveType.STRAIGHT_FLUSH: ("straight flush", "straight flushes"),
           MoveType.BOMB: ("bomb", "bombs"), MoveType.JOKER_BOMB: ("joker bomb", "joker bombs"),
           MoveType.TRIBUTE: ("tribute", "tributes"), MoveType.BACK: ("return", "returns")}
_TYPE_ZH: Dict[MoveType, str] = {
           MoveType.PASS: "不出", MoveType.SINGLE: "单张", MoveType.PAIR: "对子", MoveType.TRIPS: "三张",
           MoveType.THREE_PAIR: "三连对", MoveType.THREE_WITH_TWO: "三带二", MoveType.TWO_TRIPS: "钢板",
           MoveType.STRAIGHT: "顺子", MoveType.STRAIGHT_FLUSH: "同花顺", MoveType.BOMB: "炸弹",
           MoveType.JOKER_BOMB: "四王（天王炸）", MoveType.TRIBUTE: "进贡", MoveType.BACK: "还贡"}


def _lang(lang: str) -> str:
    if lang not in LANGS:
        raise GuandanError(f"lang must be one of {', '.join(LANGS)}, got {lang!r:.20}")
    return lang


def type_name(t: MoveType, lang: str = "en", plural: bool = False) -> str:
    """A move type's name: ``pair`` / ``pairs``, ``对子``."""
    t = MoveType(t)
    if _lang(lang) == "zh":
        return _TYPE_ZH[t]
    return _TYPE_EN[t][1] if plural else _TYPE_EN[t][0]


def rank_name(rank: str, lang: str = "en", plural: bool = False) -> str:
    """A rank letter in words: ``7`` / ``7s``, ``ace`` / ``aces``, ``10``,
    the jokers (``B``, ``R``); in Chinese the rank as printed on the card."""
    if rank in ("B", "R"):
        j = _JOKERS[_lang(lang)]["SB" if rank == "B" else "HR"]
        return j + ("s" if plural and lang == "en" else "")
    if _lang(lang) == "zh":
        return "10" if rank == "T" else rank
    w = _RANK_EN.get(rank, rank)
    return w + ("s" if plural else "")


def card_name(card: str, lang: str = "en") -> str:
    """One card: ``♠7`` / ``黑桃7``, ``small joker`` / ``小王``."""
    if card in ("SB", "HR"):
        return _JOKERS[_lang(lang)][card]
    if len(card) != 2 or card[0] not in "SHCD":
        raise GuandanError(f"not a card: {card!r:.10}")
    r = "10" if card[1] == "T" else card[1]
    return _SUITS[_lang(lang)][card[0]] + r


def _cards(cards: Iterable[str], lang: str, card: Optional[CardFn]) -> str:
    f = card or (lambda c: card_name(c, lang))
    return ("、" if lang == "zh" else " ").join(f(c) for c in cards)


def _seq_ranks(m: Move) -> Sequence[str]:
    """The ranks of a sequence's slots, lowest first (``A`` low or high)."""
    per = {MoveType.STRAIGHT: 1, MoveType.STRAIGHT_FLUSH: 1, MoveType.THREE_PAIR: 2,
           MoveType.TWO_TRIPS: 3}[m.type]
    start = _ORDER.index(m.rank)
    return [_ORDER[start + i] for i in range(len(m) // per)]


def wilds_in(m: Move) -> int:
    """How many wild cards (逢人配: the level's heart) stand for another
    card in ``m``; a level heart that is itself (in a pair of level cards,
    as a single, in its own slot of a sequence) does not count."""
    wild = "H" + m.level
    cards = m.cards
    n = cards.count(wild)
    if n == 0 or m.type in (MoveType.SINGLE, MoveType.TRIBUTE, MoveType.BACK, MoveType.PASS):
        return 0
    t = m.type
    if t in (MoveType.PAIR, MoveType.TRIPS, MoveType.BOMB):
        return 0 if m.rank == m.level else n
    if t == MoveType.THREE_WITH_TWO:
        trip, pair = cards[:3], cards[3:]
        k = 0 if m.rank == m.level else trip.count(wild)
        natural = [c for c in pair if c != wild]
        if pair.count(wild) and natural and natural[0][1] != m.level:
            k += pair.count(wild)
        return k
    per = 1 if t in (MoveType.STRAIGHT, MoveType.STRAIGHT_FLUSH) else (2 if t == MoveType.THREE_PAIR else 3)
    suit = next((c[0] for c in cards if c != wild), "H")
    k = 0
    for i, r in enumerate(_seq_ranks(m)):
        for c in cards[i * per:(i + 1) * per]:
            if c == wild and not (r == m.level and (t != MoveType.STRAIGHT_FLUSH or suit == "H")):
                k += 1
    return k


def _wild_note(k: int, lang: str) -> str:
    if not k:
        return ""
    if lang == "zh":
        return f"（含{_NUM_ZH[k]}张逢人配）"
    return f" ({_NUM_EN[k]} wild{'s' if k > 1 else ''})"


def _count_en(n: int) -> str:
    return _NUM_EN[n] if n < len(_NUM_EN) else str(n)


def _count_zh(n: int) -> str:
    return _NUM_ZH[n] if n <= 10 else str(n)


def describe(move: Move, lang: str = "en", *, cards: bool = False,
             card: Optional[CardFn] = None) -> str:
    """A play in words: ``"a pair of 7s"``, ``"a straight 3 to 7"``,
    ``"a tube from A to 3"``, ``"the joker bomb"``, ``"pass"``; wild cards
    that stand for another card are said (``"(one wild)"``). ``cards``:
    the cards follow (``"a pair of 7s: ♠7 ♥7"``), drawn by ``card`` when
    given (a terminal's own style), else by :func:`card_name`."""
    if not isinstance(move, Move):
        raise GuandanError(f"describe takes a Move, got {type(move).__name__}")
    text = _describe(move, _lang(lang)) + _wild_note(wilds_in(move), lang)
    if cards and not move.is_pass:
        text += ("：" if lang == "zh" else ": ") + _cards(move.cards, lang, card)
    return text


def _describe(m: Move, lang: str) -> str:
    t = m.type
    zh = lang == "zh"
    if t == MoveType.PASS:
        return "不出" if zh else "pass"
    if t in (MoveType.TRIBUTE, MoveType.BACK):
        c = card_name(m.cards[0], lang)
        if zh:
            return ("进贡" if t == MoveType.TRIBUTE else "还贡") + c
        return f"{c} as {'tribute' if t == MoveType.TRIBUTE else 'the return card'}"
    if t == MoveType.JOKER_BOMB:
        return "四王（天王炸）" if zh else "the joker bomb (all four jokers)"
    r = m.rank
    if t == MoveType.SINGLE:
        if r in ("B", "R"):
            return rank_name(r, lang) if zh else "the " + rank_name(r, lang)
        return f"单张{rank_name(r, lang)}" if zh else f"a single {rank_name(r, lang)}"
    if t == MoveType.PAIR:
        return f"一对{rank_name(r, lang)}" if zh else f"a pair of {rank_name(r, lang, True)}"
    if t == MoveType.TRIPS:
        return f"三张{rank_name(r, lang)}" if zh else f"three {rank_name(r, lang, True)}"
    if t == MoveType.BOMB:
        n = len(m)
        if zh:
            return f"{_count_zh(n)}张{rank_name(r, lang)}的炸弹"
        return f"a bomb of {_count_en(n)} {rank_name(r, lang, True)}"
    if t == MoveType.THREE_WITH_TWO:
        pair = m.cards[3:]
        nat = [c for c in pair if c != "H" + m.level]
        pr = "B" if nat and nat[0] == "SB" else ("R" if nat and nat[0] == "HR" else (nat[0][1] if nat else m.level))
        if zh:
            return f"三带二（三张{rank_name(r, lang)}带一对{rank_name(pr, lang)}）"
        return f"a full house: three {rank_name(r, lang, True)} and a pair of {rank_name(pr, lang, True)}"
    ranks = _seq_ranks(m)
    lo, hi = ("10" if x == "T" else x for x in (ranks[0], ranks[-1]))
    if t == MoveType.STRAIGHT_FLUSH:
        suit = next((c[0] for c in m.cards if c != "H" + m.level), "H")
        if zh:
            return f"同花顺{_SUITS['zh'][suit]}{lo}到{hi}"
        return f"a straight flush in {dict(S='spades', H='hearts', C='clubs', D='diamonds')[suit]}, {lo} to {hi}"
    if zh:
        return f"{_TYPE_ZH[t]}{lo}到{hi}"
    if t == MoveType.STRAIGHT:
        return f"a straight {lo} to {hi}"
    return f"a {type_name(t, lang)} from {lo} to {hi}"


# -- refusals -------------------------------------------------------------------------

#: refusal name -> language -> sentence (``{move}`` the play refused, ``{top}``
#: the play on the table, ``{cards}`` the cards missing from the hand or
#: forming no play, ``{choices}`` the allowed cards, ``{readings}`` the
#: readings of a selection)
REFUSALS: Dict[str, Dict[str, str]] = {
    "NONE": {"en": "{move} is allowed", "zh": "{move}可以出"},
    "GAME_OVER": {"en": "the game is over", "zh": "比赛已经结束"},
    "TRIBUTE_DUE": {"en": "you must pay tribute now: {move} is not allowed",
                    "zh": "现在要先进贡（{move}不可以）"},
    "RETURN_DUE": {"en": "you must return a card now: {move} is not allowed",
                   "zh": "现在要先还贡（{move}不可以）"},
    "NOT_IN_HAND": {"en": "you do not hold {cards}", "zh": "你手里没有{cards}"},
    "TRIBUTE_CARD": {"en": "you must pay your highest card as tribute (never a wild): one of {choices}",
                     "zh": "进贡必须是你最大的牌（逢人配除外）：可选{choices}"},
    "RETURN_CARD": {"en": "the return card must be a 2 to 10 that is not a level card: one of {choices}",
                    "zh": "还贡的牌必须是2到10且不是级牌：可选{choices}"},
    "NOT_A_PLAY": {"en": "that is not a valid play: tribute and return are over, play cards",
                   "zh": "这不是合法的出牌：进贡和还贡已经结束，请出牌"},
    "LEADER_PASS": {"en": "you lead this trick: you cannot pass", "zh": "这一轮由你首出：不能不出"},
    "DOES_NOT_BEAT": {"en": "{move} does not beat {top}", "zh": "{move}管不上{top}"},
    "OTHER": {"en": "{move} is not allowed here", "zh": "这里不能出{move}"},
    "INVALID": {"en": "that is not a valid play: {cards} form no play",
                "zh": "这不是合法的出牌：{cards}组不成任何牌型"},
    "AMBIGUOUS": {"en": "these cards can be played as {readings}: choose one",
                  "zh": "这些牌有多种出法：{readings}，请选择一种"},
}


def refusal(code: Any, lang: str = "en", *, move: Optional[Move] = None, top: Optional[Move] = None,
            cards: Sequence[str] = (), choices: Sequence[str] = (), readings: Sequence[Move] = (),
            card: Optional[CardFn] = None) -> str:
    """Why a play was refused, as a sentence naming its cards. ``code``: a
    :class:`guandan.game.Refusal` member or its name, or ``"INVALID"`` (the
    cards form no play) or ``"AMBIGUOUS"`` (several readings: ``readings``)."""
    name = getattr(code, "name", code)
    if not isinstance(name, str) or name not in REFUSALS:
        raise GuandanError(f"no refusal named {name!r:.40}")
    lang = _lang(lang)
    sep = "、" if lang == "zh" else ", "
    orr = "或" if lang == "zh" else " or "
    what = describe(move, lang) if move is not None else ("这手牌" if lang == "zh" else "that play")
    if not cards and name == "INVALID":
        held = "这些牌" if lang == "zh" else "these cards"
    else:
        held = _cards(cards, lang, card)
    return REFUSALS[name][lang].format(
        move=what, top=describe(top, lang) if top is not None else ("桌上的牌" if lang == "zh" else "the table"),
        cards=held, choices=sep.join(card(c) if card else card_name(c, lang) for c in choices),
        readings=orr.join(describe(m, lang) for m in readings))


#: the web table's own refusals (not the engine's): name -> language -> sentence
MESSAGES: Dict[str, Dict[str, str]] = {
    "NOT_YOUR_TURN": {"en": "it is not your turn: {who} acts", "zh": "还没轮到你：现在是{who}出牌"},
    "ROUND_HELD": {"en": "the round is over: press Next round to go on", "zh": "本局已结束：点“下一局”继续"},
    "UNDO_PRACTICE": {"en": "undo is for practice games", "zh": "只有练习对局可以悔牌"},
    "NOTHING_TO_UNDO": {"en": "nothing of yours to undo", "zh": "你还没有可以悔的牌"},
    "NO_READING": {"en": "no reading {choice} of these cards", "zh": "这些牌没有第{choice}种读法"},
}


def message(name: str, lang: str = "en", **fields: Any) -> str:
    """One of :data:`MESSAGES` in ``lang``, its fields filled in."""
    if name not in MESSAGES:
        raise GuandanError(f"no message named {name!r:.40}")
    return MESSAGES[name][_lang(lang)].format(**fields)


def refusal_of(error: BaseException, lang: str = "en", card: Optional[CardFn] = None) -> str:
    """The sentence for an :class:`~guandan.errors.IllegalMoveError` that
    :meth:`Game.play` raised (its ``refusal``, ``move``, ``top``,
    ``missing``, ``cards``, ``choices`` and ``readings``); any other error
    as its message."""
    name = getattr(error, "refusal", None)
    said = getattr(error, "say", None)
    if name is None and isinstance(said, tuple) and len(said) == 2 and said[0] in MESSAGES:
        return message(said[0], lang, **said[1])
    if name is None:
        return str(error)
    cards = getattr(error, "missing", ()) if name == "NOT_IN_HAND" else getattr(error, "cards", ())
    return refusal(name, lang, move=getattr(error, "move", None), top=getattr(error, "top", None),
                   cards=cards, choices=getattr(error, "choices", ()),
                   readings=getattr(error, "readings", ()), card=card)


# -- reasons --------------------------------------------------------------------------

#: reason -> language -> sentence: the expert's rules (``Explanation.rule``)
#: and the greedy bot's reasons (``greedy-*``)
REASONS: Dict[str, Dict[str, str]] = {
    "none": {"en": "no rule applies", "zh": "没有适用的规则"},
    "only-move": {"en": "it is the only move allowed", "zh": "只有这一种出法"},
    "go-out": {"en": "this play empties the hand: out", "zh": "这手牌出完就走了"},
    "lead-weakest-group": {"en": "lead the weakest group of the hand and keep the strong ones for later",
                           "zh": "先出手里最弱的一组牌，大牌留到后面"},
    "lead-control-then-out": {"en": "lead what nobody can beat, then go out with the last group",
                              "zh": "先出没人管得上的牌，再用最后一手牌走掉"},
    "lead-unfollowable": {"en": "an opponent is close to going out: lead more cards than they hold",
                          "zh": "对手快走了：出比他手牌还多的牌型，让他接不上"},
    "lead-strong-vs-short-opponent": {"en": "an opponent is close to going out: lead the strongest group",
                                      "zh": "对手快走了：出最大的一组牌"},
    "lead-for-partner": {"en": "your partner has few cards left: lead a low play of their size",
                         "zh": "队友牌少：出队友接得上的小牌，送队友走"},
    "lead-bomb": {"en": "only bombs are left: lead the smallest", "zh": "只剩炸弹：先出最小的炸弹"},
    "let-partner-lead": {"en": "your partner's play is on top: pass and let them keep the lead",
                         "zh": "队友的牌最大：不出，让队友继续出"},
    "let-partner-go-out": {"en": "your partner is close to going out: pass and let them",
                           "zh": "队友快走了：不出，让队友走"},
    "follow-without-breaking": {"en": "beat it with the play that leaves the rest of the hand strongest",
                                "zh": "用最不伤牌型的牌管上"},
    "stop-opponent": {"en": "an opponent is close to going out: beat their play to stop them",
                      "zh": "对手快走了：管上拦住他"},
    "stop-opponent-with-bomb": {"en": "an opponent is close to going out: bomb to stop them",
                                "zh": "对手快走了：用炸弹拦住他"},
    "bomb-to-go-out": {"en": "bomb to take the lead, then go out with what is left",
                       "zh": "用炸弹夺回出牌权，然后把剩下的牌出完"},
    "pass-keep-hand": {"en": "no play that beats it is worth what it costs the hand: pass",
                       "zh": "管上不划算，会拆坏牌型：不出"},
    "tribute-forced": {"en": "the tribute is forced: the highest card, never a wild",
                       "zh": "进贡是规定的：最大的牌，逢人配除外"},
    "return-cheapest": {"en": "return the card the hand misses least",
                        "zh": "还一张最不影响牌型的牌"},
    "fallback": {"en": "no rule fits: the lowest play allowed", "zh": "没有合适的规则：出最小的合法牌"},
    "block-next-opponent": {"en": "the next opponent has few cards: play over your partner's weak play to block them",
                            "zh": "下家对手牌少：压过队友的小牌挡住他"},
    # the greedy bot
    "greedy-tribute": {"en": "the tribute must be your highest card in level order (never a wild)",
                       "zh": "进贡必须是按级牌顺序最大的牌（逢人配除外）"},
    "greedy-return": {"en": "it returns its lowest allowed card (2 to 10, not a level card)",
                      "zh": "还最小的可还的牌（2到10，不是级牌）"},
    "greedy-lead-lowest": {"en": "it leads its lowest play, keeping bombs for later",
                           "zh": "首出最小的牌，炸弹留到后面"},
    "greedy-partner-on-top": {"en": "your partner's play is on top: it never plays over its partner",
                              "zh": "队友的牌最大：从不压队友"},
    "greedy-keep-bombs": {"en": "only a bomb would beat it, and no opponent is close to going out",
                          "zh": "只有炸弹管得上，而对手都还没快走"},
    "greedy-cannot-beat": {"en": "nothing in your hand beats it", "zh": "手里没有管得上的牌"},
    "greedy-bomb-stop": {"en": "an opponent is close to going out: it bombs to take the trick",
                         "zh": "对手快走了：用炸弹抢下这一轮"},
    "greedy-lowest-beat": {"en": "it plays the lowest combination that beats the table",
                           "zh": "出能管上桌面的最小牌"},
    # the search
    "search-best-value": {"en": "it scored best in the simulated deals", "zh": "在模拟的牌局中得分最高"},
    # a learned network (net:path=FILE, learned)
    "net": {"en": "the trained network values it highest", "zh": "训练好的网络对它估值最高"},
}


def reason(rule: str, lang: str = "en") -> str:
    """A policy's reason as a sentence: an expert rule name
    (``pass-keep-hand``), a greedy reason (``greedy-*``); a name without a
    sentence (a policy's own name) as ``"the <name> bot's choice"``."""
    lang = _lang(lang)
    if rule in REASONS:
        return REASONS[rule][lang]
    return f"{rule}的选择" if lang == "zh" else f"the {rule} bot's choice"


# -- the table ------------------------------------------------------------------------

#: the game's terms: name -> language -> word
TERMS: Dict[str, Dict[str, str]] = {
    "tribute": {"en": "tribute", "zh": "进贡"},
    "return": {"en": "return", "zh": "还贡"},
    "anti-tribute": {"en": "anti-tribute", "zh": "抗贡"},
    "jiefeng": {"en": "jiefeng (the partner of a player who went out leads)", "zh": "接风"},
    "level card": {"en": "level card", "zh": "级牌"},
    "wild": {"en": "wild", "zh": "逢人配"},
    "small joker": {"en": "small joker", "zh": "小王"},
    "big joker": {"en": "big joker", "zh": "大王"},
    "joker bomb": {"en": "joker bomb", "zh": "四王（天王炸）"},
}


def term(name: str, lang: str = "en") -> str:
    """A term of the game (:data:`TERMS`): ``term("anti-tribute", "zh")`` is 抗贡."""
    if name not in TERMS:
        raise GuandanError(f"no term {name!r:.40}")
    return TERMS[name][_lang(lang)]


_PLACES = {"en": ("first out", "second out", "third out", "last"),
           "zh": ("头游", "二游", "三游", "末游")}


def place_name(i: int, lang: str = "en") -> str:
    """A finishing place, 0..3: ``first out`` .. ``last``, 头游 .. 末游."""
    return _PLACES[_lang(lang)][i]


def trick_won(who: str, move: Optional[Move], lang: str = "en", *, card: Optional[CardFn] = None) -> str:
    """The line that ends a trick: ``"East wins the trick with a pair of 9s"``
    (``who`` as the interface names the seat; with ``card``, the cards
    follow, drawn by it)."""
    said = "" if move is None else describe(move, lang, cards=card is not None, card=card)
    if _lang(lang) == "zh":
        return f"{who}赢得这一轮" + (f"（{said}）" if said else "")
    return f"{who} {'win' if who == 'you' else 'wins'} the trick" + (f" with {said}" if said else "")
