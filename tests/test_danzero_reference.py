"""The plain-Python reference of DanZero's encoding (tests/danzero_reference.py)
on hand-made positions, field by field, and on played games."""

import os
import random
import re

import numpy as np
import pytest

import danzero_reference as dz
from guandan import Game

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "rl-encoding.md")

DECK = [s + r for r in dz.RANKS for s in dz.SUITS] + ["SB", "HR"]


def field(state, name):
    lo, hi = dz.OFFSET[name]
    return state[0, lo:hi]


def vec(cards):
    return dz.counts(cards).astype(np.float32)


def one_hot(n, i):
    v = np.zeros(n, np.float32)
    v[i] = 1
    return v


def encode(g, seat=None):
    seat = g.to_act if seat is None else seat
    moves = g.legal_moves(order="contest")
    return dz.encode(g.observation(seat), moves) + (moves,)


def play(g, *actions):
    for a in actions:
        g.play(a)


# -- the card order and the layout --------------------------------------------------------

def test_card_index_order():
    assert [dz.card_index(c) for c in DECK] == list(range(54))
    assert dz.card_index("H2") == 0 and dz.card_index("S2") == 1 and dz.card_index("C2") == 2
    assert dz.card_index("D2") == 3 and dz.card_index("H3") == 4 and dz.card_index("ST") == 33
    assert dz.card_index("DA") == 51 and dz.card_index("SB") == 52 and dz.card_index("HR") == 53
    for bad in ("", "X2", "H1", "B", "SBB"):
        with pytest.raises(ValueError):
            dz.card_index(bad)


def test_layout_matches_the_doc_table():
    assert dz.STATE_DIM == 501 and dz.ACTION_DIM == 54
    rows = re.findall(r"^\| (\d+) \| (\d+) \| ", open(DOC, encoding="utf-8").read(), re.M)
    assert [(int(o), int(n)) for o, n in rows] == [(o, n) for _, o, n in dz.FIELDS]
    assert sum(n for _, _, n in dz.FIELDS) == 501


# -- hand-made positions ----------------------------------------------------------------

def test_fresh_position_every_field():
    hands = [["S3", "S4", "H3"], ["HA"], ["D5", "D5", "SB"], ["C9", "HR"]]
    g = Game.from_position(hands, level="3", team_levels=["3", "7"], to_act=1)
    state, actions, moves = encode(g)
    assert state.shape == (len(moves), 501) and actions.shape == (len(moves), 54)
    assert state.dtype == np.float32 and actions.dtype == np.float32
    assert (state == state[0]).all()
    assert (field(state, "hand") == vec(["HA"])).all()
    assert (field(state, "others_cards") == 2 - vec(["HA"])).all()   # nothing played yet
    for name in ("last_entry", "mate_last_entry", "down_played", "mate_played", "up_played"):
        assert not field(state, name).any(), name
    assert (field(state, "down_left") == one_hot(28, 3)).all()      # seat 2
    assert (field(state, "mate_left") == one_hot(28, 2)).all()      # seat 3
    assert (field(state, "up_left") == one_hot(28, 3)).all()        # seat 0
    assert (field(state, "own_level") == one_hot(13, 5)).all()      # team 1 at 7
    assert (field(state, "opp_level") == one_hot(13, 1)).all()      # team 0 at 3
    assert (field(state, "round_level") == one_hot(13, 1)).all()
    assert [list(np.nonzero(a)[0]) for a in actions] == [[dz.card_index("HA")]]
    assert actions[0, dz.card_index("HA")] == 1


def test_action_vectors_count_cards_and_the_pass_is_zero():
    hands = [["S3"], ["H5", "H5", "S5", "H2"], ["D5"], ["C9"]]
    g = Game.from_position(hands, level="2", to_act=1, trick=[(0, "S3")])
    state, actions, moves = encode(g)
    assert moves[0].to_platform()[0] == "PASS" and not actions[0].any()
    for m, a in zip(moves, actions):
        assert (a == vec(dz._cards_of(m))).all()
    # a bomb using the wild heart 2: the real cards are counted
    bomb = [i for i, m in enumerate(moves) if len(dz._cards_of(m)) == 4]
    assert bomb and (actions[bomb[0]] == vec(["H5", "H5", "S5", "H2"])).all()
    assert actions[bomb[0], dz.card_index("H5")] == 2 and actions[bomb[0], dz.card_index("H2")] == 1
    # the initial trick counts as seen: seat 0's S3 is the last entry and played by up
    assert (field(state, "last_entry") == vec(["S3"])).all()
    assert (field(state, "up_played") == vec(["S3"])).all()
    assert (field(state, "others_cards") == 2 - vec(hands[1]) - vec(["S3"])).all()


def test_short_game_from_a_deal():
    g = Game(seed=4)
    first = g.to_act
    lead = g.legal_moves()[0]                     # the lowest single
    play(g, lead)
    s1 = g.to_act
    follow = g.legal_moves()[0]                   # the pass
    assert follow.to_platform()[0] == "PASS"
    play(g, follow)
    seat = g.to_act                               # first + 2: seat 0's teammate position
    assert seat == (first + 2) % 4 and s1 == (first + 1) % 4
    state, actions, moves = encode(g)
    o = g.observation(seat)
    lead_cards = lead.to_platform()[2]
    assert not field(state, "last_entry").any()               # the newest entry is a pass
    assert (field(state, "mate_last_entry") == vec(lead_cards)).all()
    assert (field(state, "mate_played") == vec(lead_cards)).all()
    assert not field(state, "up_played").any() and not field(state, "down_played").any()
    assert (field(state, "others_cards") == 2 - vec(o["hand"]) - vec(lead_cards)).all()
    assert field(state, "others_cards").sum() == 108 - 27 - len(lead_cards)
    assert (field(state, "mate_left") == one_hot(28, 27 - len(lead_cards))).all()
    assert (field(state, "up_left") == one_hot(28, 27)).all()
    assert (field(state, "round_level") == one_hot(13, 0)).all()


def test_first_seat_out_everyone_passes_partner_leads():
    # seat 0 goes out with SA, nobody beats it: its partner, seat 2, leads
    hands = [["SA"], ["S3", "S4"], ["S5", "S6", "S7"], ["S8", "S9"]]
    g = Game.from_position(hands, level="2", to_act=0)
    play(g, "SA", "PASS", "PASS", "PASS")
    assert g.to_act == 2 and g.observation(2)["leading"]
    seq = dz.sequence_of(g.observation(2))
    assert seq.entries == [(0, ["SA"]), (1, []), (2, []), (3, []), (0, dz.OUT), (1, [])]
    state, _, _ = encode(g)
    assert not field(state, "last_entry").any()                # seat 1 skipped
    assert (field(state, "mate_last_entry") == -1).all()       # the teammate's marker
    assert (field(state, "mate_played") == vec(["SA"])).all()  # markers are not cards
    assert (field(state, "mate_left") == one_hot(28, 0)).all()
    # seat 2 leads, seat 3 beats it: seat 0's marker follows seat 3's play
    play(g, "S5", "S8")
    assert g.to_act == 1
    seq = dz.sequence_of(g.observation(1))
    assert seq.entries[-3:] == [(2, ["S5"]), (3, ["S8"]), (0, dz.OUT)]
    state, _, _ = encode(g)
    assert (field(state, "last_entry") == -1).all()            # the seat after an out seat
    assert (field(state, "mate_last_entry") == vec(["S8"])).all()
    assert (field(state, "up_played") == vec(["SA"])).all()    # seat 0 is up of seat 1


def test_teammate_out_shows_its_last_play_until_its_marker():
    # seat 0 goes out with SK, seat 1 beats it: seat 2 sees its partner's SK,
    # not the all -1 of "partner out" (DanZero overwrites that value)
    hands = [["SK"], ["SA", "S3"], ["S5", "S6"], ["S8", "S9"]]
    g = Game.from_position(hands, level="2", to_act=0)
    play(g, "SK", "SA")
    state, _, _ = encode(g)
    assert g.to_act == 2
    assert (field(state, "mate_last_entry") == vec(["SK"])).all()
    assert (field(state, "last_entry") == vec(["SA"])).all()
    assert (field(state, "mate_left") == one_hot(28, 0)).all()


def test_two_seats_out_markers_and_skipped_seat():
    # seats 0 then 1 go out; seats 2 and 3 pass; seat 3 (seat 1's partner) leads
    hands = [["SK"], ["SA"], ["S3", "S4"], ["S5", "S6"]]
    g = Game.from_position(hands, level="2", to_act=0)
    play(g, "SK", "SA", "PASS", "PASS")
    assert g.to_act == 3
    seq = dz.sequence_of(g.observation(3))
    assert seq.entries == [(0, ["SK"]), (1, ["SA"]), (2, []), (3, []), (0, dz.OUT), (1, dz.OUT), (2, [])]
    state, _, _ = encode(g)
    assert not field(state, "last_entry").any()
    assert (field(state, "mate_last_entry") == -1).all()
    assert (field(state, "down_played") == vec(["SK"])).all()   # seat 0 is down of seat 3
    assert (field(state, "mate_played") == vec(["SA"])).all()
    play(g, "S5")
    assert g.to_act == 2
    seq = dz.sequence_of(g.observation(2))
    assert seq.entries[-3:] == [(3, ["S5"]), (0, dz.OUT), (1, dz.OUT)]
    state, _, _ = encode(g)
    assert (field(state, "last_entry") == -1).all()
    assert (field(state, "mate_last_entry") == -1).all()        # seat 0's newest entry: a marker


def test_seats_finished_at_a_position_are_out_from_the_start():
    hands = [[], ["S3", "S4"], ["S5", "S6"], ["S8", "S9"]]
    g = Game.from_position(hands, level="2", to_act=3, finished=[0])
    play(g, "S8")
    state, _, _ = encode(g)
    seq = dz.sequence_of(g.observation(1))
    assert seq.out == [0] and seq.entries == [(3, ["S8"]), (0, dz.OUT)]
    assert (field(state, "last_entry") == -1).all()


def test_other_phases_are_refused():
    g = Game(seed=0)
    o = dict(g.observation(0), phase="tribute")
    with pytest.raises(ValueError):
        dz.encode(o, [])


# -- played games -----------------------------------------------------------------------

def _hands_of(g):
    return [re.findall(r"..", h) if h != "-" else [] for h in g.position.split()[0].split("/")]


def test_random_games_invariants():
    rng = random.Random(7)
    decisions = 0
    for seed in range(12):
        g = Game(seed=seed)
        while not g.is_over and g.round_index < 2:
            if g.phase.value == "play":
                seat = g.to_act
                o = g.observation(seat)
                state, actions, moves = encode(g)
                decisions += 1
                seq = dz.sequence_of(o)
                seats = [s for s, _ in seq.entries]
                # one entry per turn, in turn order, ending with the seat before
                assert all(b == (a + 1) % 4 for a, b in zip(seats, seats[1:]))
                assert not seats or (seats[-1] + 1) % 4 == seat
                hands = _hands_of(g)
                others = sum(vec(hands[s]) for s in range(4) if s != seat)
                assert (field(state, "others_cards") == others).all()
                for name, k in (("down", 1), ("mate", 2), ("up", 3)):
                    s = (seat + k) % 4
                    assert (field(state, f"{name}_left") == one_hot(28, o["card_counts"][s])).all()
                    mine = [c for p, t in o["history"] if p == s for c in dz._cards_of(t)]
                    assert (field(state, f"{name}_played") == vec(mine)).all()
                assert set(np.unique(state[0, 216:])) <= {0, 1, 2}
                assert state[0, :108].min() >= 0 and state[0, 108:216].min() >= -1
                assert actions.shape == (len(moves), 54)
            g.play(rng.choice(list(g.legal_moves())))
    assert decisions > 500


def test_encoding_reads_only_what_the_seat_may_know():
    """Replaying a round's opening with the unseen cards of the other seats
    permuted (each keeps the cards it plays and its count) gives the same
    encoding at every decision of the observing seat."""
    rng = random.Random(3)
    for seed in range(4):
        g = Game(seed=seed)
        deal = [d.split() for d in g.record()["deals"][0]]
        first = g.to_act
        played = []
        for _ in range(40):
            m = rng.choice(list(g.legal_moves()))
            played.append((g.to_act, m.to_platform()))
            g.play(m)
            if g.round_index > 0 or g.is_over:
                break
        observer = g.to_act
        keep = {s: [c for p, t in played if p == s for c in dz._cards_of(t)] for s in range(4)}
        pool, rest = [], {}
        for s in range(4):
            if s == observer:
                continue
            left = list(deal[s])
            for c in keep[s]:
                left.remove(c)
            rest[s] = len(left)
            pool += left
        rng.shuffle(pool)
        hands = [list(h) for h in deal]
        for s in sorted(rest):
            hands[s] = keep[s] + pool[:rest[s]]
            pool = pool[rest[s]:]
        assert hands != deal
        same = Game.from_position(deal, level="2", to_act=first)
        perm = Game.from_position(hands, level="2", to_act=first)
        compared = 0
        for seat, triple in played:
            if seat == observer:
                a, b = encode(same), encode(perm)
                assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
                compared += 1
            same.play(triple)
            perm.play(triple)
        a, b, c = encode(g), encode(same), encode(perm)
        assert (a[0] == b[0]).all() and (a[0] == c[0]).all() and (a[1] == c[1]).all()
        assert compared >= 5
