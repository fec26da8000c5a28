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
    g, text = run(zeros(200) + ["h", "t", "m", "m", "m single"], seed=7, rounds=1, color="always")
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


def _turns(text):
    return text.count("your hand (")


def test_y_and_enter_play_the_hint_shown_for_this_turn():
    for key in ("y", ""):
        g, text = run(["h", key], seed=5)
        m = re.search(r"hint \(greedy\): play (.*?) \[(\d+)\]", text.replace("\n    ", " "))
        assert m, text
        said = m.group(1)
        assert f"you play {said}" in text.replace("\n    ", " ")
        assert g.moves_played and any(s == 0 for s, _ in g.moves_played)
    g, text = run(["y"], seed=5)
    assert "no hint shown for this turn" in text
    assert not any(s == 0 for s, _ in g.moves_played)
    g, text = run([""], seed=5)                # Enter without a hint: nothing is played
    assert not any(s == 0 for s, _ in g.moves_played)


def test_the_hint_number_is_the_list_number():
    g, text = run(["m", "h", "q"], seed=5)
    flat = text.replace("\n    ", " ")
    m = re.search(r"hint \(greedy\): play .*?: (.*?) \[(\d+)\]", flat)
    assert m
    assert re.search(rf"(?m)(^|\s){m.group(2)} \w[\w ]* {re.escape(m.group(1))}(\s|$)", text)


def test_the_hint_comes_from_the_bots_or_the_policy_named():
    from guandan.words import REASONS
    g, text = run(["h"], seed=5, bots="expert")
    assert "Hints from expert" in text and "hint (expert):" in text
    flat = text.replace("\n    ", " ")
    assert any(REASONS[r]["en"] in flat for r in REASONS if not r.startswith("greedy"))
    assert not re.search(r"\b[a-z]+-[a-z]+-[a-z]+\b", flat.split("hint (expert):")[1])   # no rule names
    g, text = run([], seed=5, hint="expert")         # shown at every turn without asking
    assert "hint (expert):" in text
    g, text = run([""], seed=5, hint=True, bots="greedy")   # Enter plays the automatic hint
    assert "hint (greedy):" in text and any(s == 0 for s, _ in g.moves_played)
    with pytest.raises(ValueError, match="unknown policy"):
        play_terminal(0, hint="smart", inp=lambda p: "q", out=io.StringIO())


def test_m_pages_twenty_at_a_time():
    g, text = run(["m", "m"], seed=5)           # 22 plays at the first turn
    nums = [int(x) for x in re.findall(r"(?m)(?:^|  )\s*(\d+) (?:pass|single|pair|bomb|triple)", text)]
    assert nums[:20] == list(range(20)) and nums[20:22] == [20, 21]
    assert "... 2 more: 'm' for the next 2" in text
    g, text = run(["m pair", "m", "m"], seed=5)
    assert "no pairs" in text or re.search(r"\n +0 pair", text)


def test_t_shows_the_whole_table_and_no_other_hand():
    g, text = run(["t"], seed=5)
    part = text.split("-- table:")[1]
    for who in ("you ", "East", "North", "West"):
        assert re.search(rf"\n  {who}", part)
    assert "level 2 (you 2, them 2)" in part and "this trick, led by West" in part
    assert "to act: you" in part
    # counts of other seats follow the announcement rule, and no other hand is listed
    assert "11+ cards" in part
    own = set(g.hands[0].cards())
    for line in part.splitlines()[1:5]:
        assert not any(c in line.split() for c in own)


def test_a_line_says_who_won_each_trick():
    g, text = run(zeros(600), seed=3, rounds=1)
    flat = text.replace("\n    ", " ")
    wins = re.findall(r"\* (you|East|North|West) wins? the trick with (a|an|the|three) ", flat)
    assert len(wins) >= 3
    assert re.search(r"\* you win the trick|\* (East|North|West) wins the trick", flat)


def test_refusals_are_sentences():
    g, text = run(["ST SJ", "S3 S3 S3 S3 S3", "SB"], seed=5)
    flat = text.replace("\n    ", " ")
    assert "not allowed: that is not a valid play" in flat
    assert re.search(r"not allowed: (you do not hold|you hold S3 only once)", flat)
    assert "Pair" not in flat and "Single" not in flat and "seat " not in flat


def test_typed_cards_take_the_hinted_reading_among_several():
    from guandan.play import Style, _Terminal
    g = Game.from_position([["H2", "S3", "S4", "S5", "S6", "D9"], ["C9"], ["D5"], ["C7"]], level="2")
    out = io.StringIO()
    t = _Terminal(g, 0, "greedy", out, Style(), "greedy", False, False)
    legal = list(g.legal_moves(order="contest"))
    ok = [m for m in legal if sorted(m.cards) == sorted("H2 S3 S4 S5 S6".split())]
    assert len(ok) > 1
    with pytest.raises(GuandanError) as e:
        t.parse("S3 S4 S5 S6 H2", legal)
    t.refused(e.value)
    assert "can be played several ways" in out.getvalue() and t.listed == ok
    t.last_hint = (g.decisions, ok[1])
    assert t.parse("s3 s4 s5 s6 h2", legal) == ok[1]
    assert t.parse("D9", legal).cards == ("D9",)


from guandan import GuandanError  # noqa: E402


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")
def test_in_tmux_hint_expert_enter_plays_it_and_t_m_show_the_table(tmp_path):
    name = f"gdh{os.getpid()}"
    src = os.path.dirname(os.path.dirname(os.path.abspath(__import__("guandan").__file__)))
    cmd = (f"cd {tmp_path} && PYTHONPATH={src} {sys.executable} -m guandan play --seed 5 "
           f"--hint expert; sleep 20")
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd], check=True)
    try:
        def screen():
            return subprocess.run(["tmux", "capture-pane", "-t", name, "-p", "-S", "-200"],
                                  capture_output=True, text=True).stdout

        def send(*keys):
            subprocess.run(["tmux", "send-keys", "-t", name, *keys], check=True)
            time.sleep(0.3)
            for _ in range(100):
                s = screen()
                if s.rstrip().endswith(">"):
                    return s
                time.sleep(0.1)
            return screen()

        s = send("")                       # the first prompt (an empty key: nothing typed)
        assert "hint (expert):" in s, s
        s = send("t", "Enter")
        assert "-- table:" in s and "to act: you" in s
        s = send("m", "Enter")
        assert "more: 'm' for the next" in s
        s = send("Enter")                  # Enter on an empty line plays the hint
        assert "you play " in s or "you pass" in s, s
        s = send("?", "Enter")
        assert "y  or Enter on an empty line: play the hint" in s
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
