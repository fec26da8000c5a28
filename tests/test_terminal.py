"""The terminal game (guandan play), driven by scripted input and,
for the 80x24 screen, through tmux."""

import io
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from guandan import Game
from guandan.play import Style, describe, play_terminal

ANSI = re.compile(r"\x1b\[[0-9;]*m")
CARD = re.compile(r"^([SHCD]([2-9TJQKA]|10)|SB|HR)\*?$|^[♠♥♣♦]([2-9TJQKA]|10)\*?$")


def run(answers, seat=0, **kw):
    """Play with scripted answers (then 'q'); returns (game, output)."""
    it = iter(answers)
    buf = io.StringIO()
    g = play_terminal(seat, inp=lambda prompt: next(it, "q"), out=buf, **kw)
    return g, buf.getvalue()


def zeros(n):
    return ["0"] * n


def test_a_number_after_paying_tribute_refers_to_the_play_list():
    paid = False
    for seed in range(12):
        g, text = run(zeros(600), seed=seed, rounds=3)
        assert "there is no tribute" not in text and "no move number" not in text, text[-2000:]
        paid = paid or "you pay" in text
    assert paid, "no seed made you pay tribute"


def test_actions_are_words_and_seats_are_named():
    g, text = run(zeros(600), seed=4, rounds=3, seat=2)
    assert "tribute tribute" not in text and "back back" not in text and "['" not in text
    assert not re.search(r"\bseat \d", text)
    assert "seat 2's hand" not in text and "your hand (" in text
    assert re.search(r"\b(East|North|West) (plays|passes)", text)
    if "tribute" in text.replace("tribute (your", ""):
        assert re.search(r"(pays?|you pay) .*tribute|tribute .* to (you|East|North|West)", text)


def test_returns_and_tributes_name_both_sides():
    for seed in range(12):
        g, text = run(zeros(600), seed=seed, rounds=2)
        m = re.search(r"(you|East|North|West) returns? \S+ to (you|East|North|West)", text)
        if m:
            assert re.search(r"(you|East|North|West) pays? tribute \S+ to (you|East|North|West)", text)
            return
    pytest.fail("no seed had a tribute in round 2")


def test_a_card_held_once_typed_twice_says_so():
    g = Game(seed=5)
    seat = g.to_act
    hand = g.hands[seat]
    once = next(c for c in hand.cards() if hand.count(c) == 1)
    g2, text = run([f"{once} {once}"], seat=seat, seed=5)
    assert f"you hold {once} only once" in text


def test_m_queries_list_or_say_there_is_nothing():
    g, text = run(["m xyz", "m bombs", "m fullhouse", "m plate", "m pair"], seed=5)
    assert "no move type 'xyz'" in text
    for word, nothing in (("bombs", "no bombs"), ("fullhouse", "no full houses"),
                          ("plate", "no plates")):
        # either listed (numbered lines) or told there is none
        assert nothing in text or re.search(r"\n +0 ", text)
    g, text = run(["m bombs"], seed=1)
    assert "no bombs to play now" in text or re.search(r" 0 (bomb|straight flush|joker bomb)", text)


def test_rounds_one_shows_the_round_result_before_exiting():
    g, text = run(zeros(600), seed=3, rounds=1)
    assert g.round_index == 1
    assert "== round over: " in text and "levels now: you" in text
    assert text.rstrip().splitlines()[-1].strip().startswith(("your team", "their team"))


def test_no_line_wraps_inside_a_card_at_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    g, text = run(zeros(200) + ["h", "m single"], seed=7, rounds=1, color="always")
    for line in text.splitlines():
        plain = ANSI.sub("", line)
        assert len(plain) <= 80, plain
    # every word of a hand line is a whole card
    for line in text.splitlines():
        plain = ANSI.sub("", line)
        if plain.startswith("  your hand ("):
            cards = plain.split(":", 1)[1].split()
            assert all(CARD.match(c) for c in cards), plain
        elif plain.startswith("    ") and not plain.strip()[0].isdigit():
            words = plain.split()
            if all(CARD.match(w) for w in words[:1]):
                assert all(CARD.match(w) for w in words), plain


def test_suit_symbols_colour_and_the_wild_mark():
    color = Style(unicode=True, color=True)
    assert color.card("H5", "2") == "\x1b[31m♥5\x1b[0m"
    assert color.card("S5", "2") == "♠5"
    assert "♥2*" in color.card("H2", "2") and "\x1b[" in color.card("H2", "2")
    plain = Style()
    assert plain.card("H2", "2") == "H2*" and plain.card("ST", "2") == "ST"
    # a stream that is not a terminal gets plain text; always forces symbols and colour
    assert not Style.for_stream(io.StringIO()).color
    assert Style.for_stream(io.StringIO(), "always").unicode
    g, text = run(["q"], seed=5, color="never")
    assert "♠" not in text and "\x1b[" not in text
    g, text = run(["q"], seed=5, color="always")
    assert "\x1b[" in text and any(s in text for s in "♠♥♣♦")


def test_describe_in_words():
    from guandan import Move
    assert describe(Move.from_cards("S5 D5", "2")) == "a pair of 5s: S5 D5"
    assert describe(Move.from_cards("S5 D5 C5 H5", "2")) == "a bomb of four 5s: S5 H5 C5 D5"
    assert describe(Move.pass_move()) == "pass"


def test_undo_in_practice_mode():
    g = Game(seed=5)
    seat = g.to_act
    g2, text = run(["0", "undo", "q"], seat=seat, seed=5, practice=True)
    assert "undone: your last action" in text
    assert all(s != seat for s, _ in g2.moves_played)
    g3, text = run(["undo", "q"], seat=seat, seed=5)
    assert "undo is for practice games" in text


def test_hint_shows_the_greedy_choice_and_why():
    g, text = run(["hint", "q"], seed=5)
    assert re.search(r"hint \(greedy\): (play|pass|pay|return) .* — ", text.replace("\n    ", " "))


def test_bots_are_validated_before_the_banner():
    buf = io.StringIO()
    with pytest.raises(ValueError, match="unknown policy"):
        play_terminal(0, bots="smart", inp=lambda p: "q", out=buf)
    assert buf.getvalue() == ""


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
def test_at_80x24_the_bots_plays_stay_on_screen(tmp_path):
    name = f"gd{os.getpid()}"
    src = os.path.dirname(os.path.dirname(os.path.abspath(__import__("guandan").__file__)))
    cmd = (f"cd {tmp_path} && PYTHONPATH={src} {sys.executable} -m guandan play --seed 9; sleep 20")
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd], check=True)
    try:
        def screen():
            return subprocess.run(["tmux", "capture-pane", "-t", name, "-p"], capture_output=True,
                                  text=True).stdout

        def wait_prompt():
            for _ in range(100):
                s = screen()
                if s.rstrip().endswith(">"):
                    return s
                time.sleep(0.1)
            return screen()

        wait_prompt()
        for _ in range(4):
            subprocess.run(["tmux", "send-keys", "-t", name, "0", "Enter"], check=True)
            time.sleep(0.3)
            s = wait_prompt()
            lines = s.rstrip("\n").splitlines()
            assert len(lines) <= 24
            assert re.search(r"(East|North|West) (plays|passes)", s), s
            assert "you " in s and "your hand (" in s
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
