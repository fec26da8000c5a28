"""The web table in a real headless browser (Debian's chromium and
chromium-driver through Selenium; ``.ci/run`` installs them). Skipped with
the reason when they are missing. Screenshots of each view go to
``$GUANDAN_ARTIFACTS`` (default ``build/artifacts/``).

The page is compared with the engine's state after every move: the hand,
the counts and the trick the DOM shows are those of the server's Game."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter

import pytest

# CI (.ci/run) sets GUANDAN_REQUIRE_BROWSER=1: there a missing browser, driver
# or selenium is a failure, not a skip
REQUIRE = os.environ.get("GUANDAN_REQUIRE_BROWSER") == "1"
if REQUIRE:
    import selenium  # noqa: F401
else:
    selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install '.[test]')")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from guandan import Game  # noqa: E402
from guandan.web import WebApp  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..")
ARTIFACTS = os.environ.get("GUANDAN_ARTIFACTS") or os.path.join(ROOT, "build", "artifacts")


def _find(*names):
    for n in names:
        p = shutil.which(n) or (n if os.path.isabs(n) and os.path.exists(n) else None)
        if p:
            return p
    return None


CHROMIUM = _find("chromium", "chromium-browser", "google-chrome")
DRIVER = _find("chromedriver", "/usr/lib/chromium/chromedriver")
if REQUIRE and (CHROMIUM is None or DRIVER is None):
    raise RuntimeError("GUANDAN_REQUIRE_BROWSER=1 but chromium/chromedriver are missing")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no chromium/chromedriver on PATH (Debian: apt-get install chromium chromium-driver; "
           ".ci/run installs them)")


class _Served:
    """A WebApp in its own event loop thread."""

    def __init__(self, **kw):
        self.app = WebApp("127.0.0.1", 0, **kw)
        self.stop = self.app.start_thread()
        self.base = f"http://127.0.0.1:{self.app.bound_port}/"


@pytest.fixture(scope="module")
def record():
    g = Game(seed=21)
    g.play_out(("greedy",) * 4, until="round")
    g.play_out(("greedy",) * 4, until="round")
    return g.record()


@pytest.fixture(scope="module")
def web(tmp_path_factory, record):
    d = tmp_path_factory.mktemp("records")
    (d / "game.json").write_text(json.dumps(record))
    s = _Served(records=str(d), watch=[["expert", "greedy", "expert", "greedy"]],
                watch_delay=0.15, bot_delay=0)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def driver():
    o = Options()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--window-size=1100,900", "--lang=en-US"):
        o.add_argument(a)
    o.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
    d = webdriver.Chrome(service=Service(DRIVER), options=o)
    d.set_page_load_timeout(20)
    os.makedirs(ARTIFACTS, exist_ok=True)
    yield d
    d.quit()


def wait(d, cond, timeout=15):
    return WebDriverWait(d, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda _: cond())


def shot(d, name):
    d.save_screenshot(os.path.join(ARTIFACTS, f"web-{name}.png"))


# the DOM is read in one script (the page re-renders while a test reads it)
def dom_hand(d):
    return d.execute_script(
        "return [...document.querySelectorAll('#hand .card')].map(e => e.dataset.card)")


def dom_counts(d, board):
    return d.execute_script(
        "return [0,1,2,3].map(s => +document.querySelector(`#${arguments[0]}-seat-${s} .count`)"
        ".dataset.count)", board)


def dom_shown(d, board):
    return d.execute_script(
        "return [0,1,2,3].map(s => [...document.querySelectorAll(`#${arguments[0]}-seat-${s} .shown .card`)]"
        ".map(e => e.dataset.card))", board)


def dom_trick(d, board):
    got = d.execute_script(
        "return [0,1,2,3].map(s => { const m = document.querySelector(`#${arguments[0]}-seat-${s} .area .move`);"
        " return m ? [s, m.dataset.type, [...m.querySelectorAll('.card')].map(e => e.dataset.card)] : null; })",
        board)
    return sorted(tuple(x) for x in got if x)


def dom_actions(d, board):
    return int(d.execute_script(f"return document.getElementById('{board}').dataset.actions") or 0)


def engine_trick(g):
    last = {}
    for s, m in g.trick:
        last[s] = (s, m.type.name.lower(), list(m.cards))
    return sorted(last.values())


def session(web, seed=None):
    """The one game being played (of ``seed``; a page left before is closed soon after)."""
    import time
    for _ in range(100):
        plays = [c.play for c in web.app.clients if c.play is not None and not c.gone
                 and seed in (None, c.play.seed)]
        if len(plays) == 1:
            return plays[0]
        time.sleep(0.05)
    assert len(plays) == 1, [(p.seed, p.bot_specs, p.game.moves_played[:2]) for p in plays]
    return plays[0]


def my_turn(d):
    return d.find_element(By.ID, "play-btn").is_enabled()


def test_play_by_clicking_cards(web, driver):
    d = driver
    d.get(web.base + "#play&bots=greedy&seed=1&seat=0")
    wait(d, lambda: len(dom_hand(d)) == 27 and my_turn(d))
    p = session(web)
    g = p.game
    assert dom_hand(d) == g.hands[0].cards(g.level)
    assert any(e.get_attribute("class").count("wild") for e in d.find_elements(By.CSS_SELECTOR, "#hand .card"))
    shot(d, "play-start")
    for move_no in range(3):
        before = dom_actions(d, "play-board")
        legal = [m for m in g.legal_moves() if not m.is_pass]
        if not legal:
            d.find_element(By.ID, "pass-btn").click()
        else:
            m = legal[len(legal) // 2]
            picked = set()
            for c in m.cards:                 # click the cards of the move
                for e in d.find_elements(By.CSS_SELECTOR, f"#hand .card[data-card='{c}']"):
                    if e.get_attribute("data-i") not in picked:
                        picked.add(e.get_attribute("data-i"))
                        e.click()
                        break
            readings = [x for x in g.legal_moves() if Counter(x.cards) == Counter(m.cards)]
            wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#matches .reading")) == len(readings))
            if move_no == 0:
                shot(d, "play-selection")
            k = [str(x) for x in readings].index(str(m))
            d.find_elements(By.CSS_SELECTOR, "#matches .reading")[k].click()
        # the page shows the state after our move and the bots' answers
        wait(d, lambda: dom_actions(d, "play-board") > before)
        wait(d, lambda: (g.is_over or not p.bot_spec()) and (g.is_over or my_turn(d)))
        wait(d, lambda: dom_actions(d, "play-board") == len(g.moves_played))
        assert dom_hand(d) == g.hands[0].cards(g.level)
        assert dom_counts(d, "play-board") == g.card_counts
        assert dom_trick(d, "play-board") == engine_trick(g)
    shot(d, "play")


def test_illegal_selection_shows_the_engines_reason(web, driver):
    d = driver
    d.get(web.base + "#play&bots=greedy&seed=2&seat=0")
    wait(d, lambda: len(dom_hand(d)) > 0 and my_turn(d))
    p = session(web)
    g = p.game
    hand = g.hands[0].cards(g.level)
    bad = None
    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            if not p.matches([hand[i], hand[j]]):
                bad = (i, j)
                break
        if bad:
            break
    cards = d.find_elements(By.CSS_SELECTOR, "#hand .card")
    cards[bad[0]].click()
    cards[bad[1]].click()
    d.find_element(By.ID, "play-btn").click()
    wait(d, lambda: d.find_element(By.ID, "refusal").is_displayed())
    with pytest.raises(Exception) as e:
        g.copy().play(f"{hand[bad[0]]} {hand[bad[1]]}")
    from guandan.words import refusal_of
    assert d.find_element(By.ID, "refusal").text == refusal_of(e.value)      # the page's language: en
    assert dom_hand(d) == hand                   # nothing was played
    shot(d, "play-refused")


def test_replay_steps_back_and_forth(web, driver, record):
    d = driver
    d.get(web.base + "?record=game.json&step=5")
    wait(d, lambda: d.find_element(By.ID, "replay-step").text == "5")
    n = len(record["actions"])
    assert d.find_element(By.ID, "replay-steps").text == str(n)

    def check(step):
        wait(d, lambda: d.find_element(By.ID, "replay-step").text == str(step))
        ref = Game.replay(dict(record, actions=record["actions"][:step], deals=None))
        assert dom_shown(d, "replay-board") == [h.cards(ref.level) for h in ref.hands], step
        assert dom_counts(d, "replay-board") == ref.card_counts
        assert dom_trick(d, "replay-board") == engine_trick(ref)
        assert f"step={step}" in d.current_url
    check(5)
    d.find_element(By.ID, "replay-next").click()
    check(6)
    d.find_element(By.ID, "replay-prev").click()
    d.find_element(By.ID, "replay-prev").click()
    check(4)
    d.find_element(By.ID, "replay-next-trick").click()
    wait(d, lambda: int(d.find_element(By.ID, "replay-step").text) > 4)
    at = int(d.find_element(By.ID, "replay-step").text)
    check(at)
    for _ in range(3):
        d.find_element(By.ID, "replay-next").click()
    check(at + 3)
    shot(d, "replay")
    # a shared URL opens the same position
    d.get(web.base + "#replay=game.json&step=12")
    check(12)


def test_replay_a_file_from_the_browser(web, driver, tmp_path):
    d = driver
    g = Game(seed=22)
    g.play_out(("expert",) * 4, until="round")
    rec = g.record()
    f = tmp_path / "mine.json"
    f.write_text(json.dumps(rec))
    d.get(web.base + "#replay")
    wait(d, lambda: d.find_element(By.ID, "view-replay").is_displayed())
    d.find_element(By.ID, "replay-file").send_keys(str(f))
    n = len(rec["actions"])
    wait(d, lambda: d.find_element(By.ID, "replay-steps").text == str(n))
    assert "replay=upload-" in d.current_url and "step=0" in d.current_url     # opened at the start
    d.find_element(By.ID, "replay-last").click()
    wait(d, lambda: d.find_element(By.ID, "replay-step").text == str(n))
    d.find_element(By.ID, "replay-first").click()
    wait(d, lambda: d.find_element(By.ID, "replay-step").text == "0")
    g0 = Game(seed=22)
    assert dom_shown(d, "replay-board") == [h.cards(g0.level) for h in g0.hands]


def test_watch_a_live_table(web, driver):
    d = driver
    tid = web.app.spectators.tables()[0].id
    d.get(web.base + f"#watch={tid}")
    wait(d, lambda: d.find_element(By.ID, "watch-actions").text not in ("", "0"))
    d.find_element(By.ID, "watch-hands").click()
    wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#watch-board .shown .card")) > 0)
    a0 = int(d.find_element(By.ID, "watch-actions").text)
    wait(d, lambda: int(d.find_element(By.ID, "watch-actions").text) >= a0 + 3)
    assert len(d.find_elements(By.CSS_SELECTOR, "#watch-board .seat")) == 4
    wait(d, lambda: len(dom_trick(d, "watch-board")) >= 2)      # a trick under way, for the picture
    shot(d, "watch")


def test_chinese_labels_and_phone_size(web, driver):
    d = driver
    d.get(web.base + "#play&bots=expert&seed=3&seat=0")
    wait(d, lambda: len(dom_hand(d)) > 0)
    d.find_element(By.ID, "lang").click()
    assert d.find_element(By.ID, "tab-watch").text == "观战"
    # plays in words, in Chinese (guandan.words: 单张7, 一对9, 顺子3到7 ...), no engine notation
    zh = ("单张", "一对", "三张", "三连对", "三带二", "钢板", "顺子", "同花顺", "炸弹", "四王", "不出", "小王", "大王")
    wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#play-board .mtype"))
    for e in d.find_elements(By.CSS_SELECTOR, "#play-board .mtype"):
        assert any(w in e.text for w in zh) and not re.search(r"[A-Za-z]{2}", e.text), e.text
    d.refresh()
    wait(d, lambda: d.find_element(By.ID, "tab-replay").text == "复盘")     # kept in localStorage
    wait(d, lambda: len(dom_hand(d)) > 0)
    try:
        d.set_window_size(390, 844)
        wait(d, lambda: d.execute_script("return window.innerWidth") <= 400)
        assert d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        shot(d, "play-phone-zh")
    finally:
        d.find_element(By.ID, "lang").click()
        d.set_window_size(1100, 900)


# -- a whole game's flow: the round's end, tribute and return, replay, serve --web -------

def _seed_where(cond, tries=300):
    """The first seed whose first round, four greedy players (the session
    deals with ``policy_seed = seed``), leaves a round 2 that ``cond`` accepts."""
    for s in range(1, tries):
        g = Game(seed=s, policy_seed=s)
        g.play_out(("greedy",) * 4, until="round")
        if cond(g):
            return s
    raise AssertionError("no seed found")


def _page_send(d, msg):
    d.execute_script("send(Object.assign(arguments[0], {game: state.game}))", msg)


def _play_round_as_greedy(d, p):
    """Play the person's seat as the greedy bot would, through the page's
    socket, until the round's end holds the game."""
    for _ in range(400):
        wait(d, lambda: p.held or p.my_turn, timeout=20)
        if p.held:
            return
        g = p.game
        n = len(g.moves_played)
        m = g.copy().choose("greedy")
        if m.is_pass:
            _page_send(d, {"type": "pass"})
        else:
            k = [str(x) for x in p.matches(list(m.cards))].index(str(m))
            _page_send(d, {"type": "play", "cards": list(m.cards), "choice": k})
        wait(d, lambda: len(g.moves_played) > n or p.held)
    raise AssertionError("the round did not end")


def _visible(d, el_id):
    return d.execute_script("const e = document.getElementById(arguments[0]);"
                            " return !!e && e.offsetParent !== null && e.getClientRects().length > 0", el_id)


@pytest.mark.parametrize("stage", ["tribute", "back"])
def test_round_end_then_the_exchange_prompt(web, driver, stage):
    """Round 1 played to its end: the result (last trick, finishing order with
    头游 … 末游, cards left, level change) stays until "Next round"; then the
    person who must pay tribute (their team lost) or return a card (they are
    the banker) is told so, with the rule and the cards the engine allows."""
    from guandan.game import return_choices, tribute_choices
    d = driver
    if stage == "tribute":
        seed = _seed_where(lambda g: g.phase == "tribute" and g.to_act == 0 and g.tribute.payers == (0,))
    else:
        seed = _seed_where(lambda g: g.phase == "tribute" and g.last_round.order[0] == 0
                           and len(g.tribute.payers) == 1)
    d.get("about:blank")
    d.get(web.base + f"#play&bots=greedy&seed={seed}&seat=0")
    wait(d, lambda: len(dom_hand(d)) == 27)
    p = session(web, seed)
    _play_round_as_greedy(d, p)
    g = p.game
    wait(d, lambda: _visible(d, "round-end"))
    assert not _visible(d, "play-board") and not _visible(d, "play-panel")
    last = g.last_round
    order = d.execute_script("return [...document.querySelectorAll('#round-end .re-order li')]"
                             ".map(e => [+e.dataset.seat, e.textContent])")
    assert [s for s, _ in order] == list(last.order)
    assert "banker (头游)" in order[0][1] and "last (末游)" in order[3][1]
    rest = d.execute_script("return [...document.querySelectorAll('#round-end .re-hand')].map(e =>"
                            " [+e.dataset.seat, [...e.querySelectorAll('.card')].map(c => c.dataset.card)])")
    end = g.round_end_hands
    assert sorted(rest) == sorted([s, end[s].cards(p.round_end["level"])] for s in range(4) if len(end[s]))
    levels = d.find_element(By.CSS_SELECTOR, "#round-end .re-levels").text
    before, after = p.round_end["levels_before"], list(g.team_levels)
    assert before != after
    for k in (0, 1):
        assert (f"{before[k]} → {after[k]}" if before[k] != after[k] else before[k]) in levels
    assert d.find_elements(By.CSS_SELECTOR, "#round-end .re-trick .re-play")
    # readable: dark ink on light paper
    fg, bg = d.execute_script("const s = getComputedStyle(document.getElementById('round-end'));"
                              " return [s.color, s.backgroundColor]")
    lum = lambda c: sum(int(x) for x in c[c.index("(") + 1:c.index(")")].split(",")[:3])
    assert lum(fg) < 200 and lum(bg) > 600, (fg, bg)
    assert p.held and not p.my_turn and p.bot_spec() is None       # the game waits for the person
    shot(d, f"round-end-{stage}")
    d.find_element(By.ID, "next-round").click()
    wait(d, lambda: not _visible(d, "round-end") and _visible(d, "play-board"))
    wait(d, lambda: p.my_turn and g.phase == stage)
    lv = g.level
    hand = g.hands[0].cards(lv)
    want = tribute_choices(hand, lv) if stage == "tribute" else return_choices(hand, lv)
    words = ("Your turn: pay tribute", "your highest card (in level order), never a wild") \
        if stage == "tribute" else ("Your turn: return a card", "rank 10 or lower that is not a level card")
    wait(d, lambda: all(w in d.find_element(By.ID, "prompt").text for w in words))
    allowed = d.execute_script("return [...document.querySelectorAll('#prompt .card')].map(e => e.dataset.card)")
    if stage == "back":
        assert allowed[0] == g.tribute.paid[0]          # the tribute received, then the choices
        allowed = allowed[1:]
    assert sorted(allowed) == sorted(set(want))
    marked = d.execute_script("return [...document.querySelectorAll('#hand .card.allowed')].map(e => e.dataset.card)")
    assert set(marked) == set(want)
    shot(d, f"prompt-{stage}")
    # pay (or return) by clicking the card and its reading
    d.find_element(By.CSS_SELECTOR, f"#hand .card.allowed[data-card='{want[0]}']").click()
    wait(d, lambda: len(d.find_elements(By.CSS_SELECTOR, "#matches .reading")) == 1)
    d.find_element(By.CSS_SELECTOR, "#matches .reading").click()
    wait(d, lambda: g.phase == "play")
    who = "paid" if stage == "tribute" else "returned"
    wait(d, lambda: any("South (you)" in e.text for e in
                        d.find_elements(By.CSS_SELECTOR, f"#play-board .tribute .{who}")))
    assert not _visible(d, "round-end")
    shot(d, f"after-{stage}")


def test_replay_opens_at_the_first_step_and_lists_the_rounds(web, driver, tmp_path):
    """A finished six-round game: the page opens at step 0, its round menu
    has six entries and its last step says round 6 (not 7)."""
    g = Game(seed=8, policy_seed=8)
    g.play_out(("greedy",) * 4)
    assert g.is_over and g.round_index == 6
    rec = g.record()
    name = "six-rounds.json"
    with open(os.path.join(web.app.records_dir, name), "w") as f:
        json.dump(rec, f)
    d = driver
    d.get(web.base + f"?record={name}")
    wait(d, lambda: d.find_element(By.ID, "replay-steps").text == str(len(rec["actions"])))
    assert d.find_element(By.ID, "replay-step").text == "0"
    opts = d.execute_script("return [...document.querySelectorAll('#replay-round option')].map(o => o.textContent)")
    assert opts == [f"Round {i}" for i in range(1, 7)]
    d.find_element(By.ID, "replay-last").click()
    wait(d, lambda: d.find_element(By.ID, "replay-step").text == str(len(rec["actions"])))
    info = d.find_element(By.CSS_SELECTOR, "#replay-board .info").text
    assert "Round 6" in info and "Round 7" not in info
    assert d.execute_script("return document.getElementById('replay-round').selectedIndex") == 5
    wait(d, lambda: _visible(d, "replay-round-end"))
    assert "Game over" in d.find_element(By.ID, "replay-round-end").text


def test_empty_views_say_what_to_do(web, driver):
    d = driver
    d.get("about:blank")
    d.get(web.base + "#play")
    wait(d, lambda: "New game" in d.find_element(By.ID, "play-board").text)
    d.find_element(By.ID, "tab-replay").click()
    wait(d, lambda: "Open a file" in d.find_element(By.ID, "replay-board").text)
    icon = d.execute_script("return document.querySelector('link[rel=icon]').href")
    assert icon.endswith("/favicon.svg")


def _phone(d):
    d.set_window_size(375, 812)
    wait(d, lambda: d.execute_script("return window.innerWidth") <= 380)


def _no_overflow(d):
    """Nothing sticks out sideways (else the offending elements, for the message)."""
    wide = d.execute_script(
        "if (document.documentElement.scrollWidth <= window.innerWidth + 1) return [];"
        " return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right >"
        " window.innerWidth + 1).slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className)")
    assert not wide, wide
    return True


def test_phone_width_has_no_sideways_overflow(web, driver, record):
    d = driver
    try:
        _phone(d)
        d.get(web.base + "?record=game.json&step=40")
        wait(d, lambda: d.find_element(By.ID, "replay-step").text == "40")
        wait(d, lambda: len(dom_shown(d, "replay-board")[0]) > 0)
        assert _no_overflow(d)
        shot(d, "replay-phone")
        d.get(web.base + f"#watch={web.app.spectators.tables()[0].id}")
        wait(d, lambda: d.find_element(By.ID, "watch-actions").text not in ("", "0"))
        assert _no_overflow(d)
        # a refusal stays in view on a phone, below a long hand
        d.get("about:blank")
        d.get(web.base + "#play&bots=greedy&seed=4&seat=0")
        wait(d, lambda: len(dom_hand(d)) > 0 and my_turn(d))
        assert _no_overflow(d)
        p = session(web, 4)
        hand = p.game.hands[0].cards(p.game.level)
        bad = next((i, j) for i in range(len(hand)) for j in range(i + 1, len(hand))
                   if not p.matches([hand[i], hand[j]]))
        d.execute_script("window.scrollTo(0, 0)")
        cards = d.find_elements(By.CSS_SELECTOR, "#hand .card")
        cards[bad[0]].click()
        cards[bad[1]].click()
        d.find_element(By.ID, "play-btn").click()
        wait(d, lambda: d.find_element(By.ID, "refusal").is_displayed())
        wait(d, lambda: d.execute_script(
            "const r = document.getElementById('refusal').getBoundingClientRect();"
            " return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0"))
        assert _no_overflow(d)
        shot(d, "play-phone-refusal")
    finally:
        d.set_window_size(1100, 900)


def test_serve_web_says_what_it_waits_for_and_stays_up(driver):
    """``serve --web``: before a program connects, the contest table's page
    says how many it waits for and at which URL; after the (one-round)
    session the page is still served, the last table viewable and its game
    offered for replay."""
    import asyncio
    import threading
    from guandan.server import TableServer
    from guandan.web.server import run_with_tables
    from websockets.asyncio.client import connect

    loop = asyncio.new_event_loop()
    srv = TableServer("127.0.0.1", 0, bots={1: "greedy", 2: "greedy", 3: "greedy"}, games=1,
                      until="round", timeout=5, seed=5)
    app = WebApp("127.0.0.1", 0)
    said = []
    task = loop.create_task(run_with_tables(srv, app, linger=True, announce=said.append))
    th = threading.Thread(target=loop.run_forever, daemon=True)
    th.start()
    try:
        wait(driver, lambda: app.bound_port is not None and srv.bound_port is not None)
        d = driver
        base = f"http://127.0.0.1:{app.bound_port}/"
        d.get(base + "#watch")
        text = f"Waiting for 1 program(s) to connect at ws://127.0.0.1:{srv.bound_port}/game/NAME (seats 0)"
        wait(d, lambda: text in d.find_element(By.ID, "watch-board").text)
        shot(d, "serve-web-waiting")

        async def client():
            async with connect(f"ws://127.0.0.1:{srv.bound_port}/game/me") as ws:
                async for raw in ws:
                    if json.loads(raw).get("type") == "act":
                        await ws.send(json.dumps({"actIndex": 0}))
        asyncio.run_coroutine_threadsafe(client(), loop).result(60)
        wait(d, lambda: said, timeout=30)
        assert not task.done()                         # still serving
        wait(d, lambda: "The games are over" in d.find_element(By.ID, "watch-board").text)
        assert d.find_elements(By.CSS_SELECTOR, "#watch-board .seat")
        d.get(base + "?record=t1-game1")
        wait(d, lambda: d.find_element(By.ID, "replay-steps").text not in ("", "0"))
        assert d.find_element(By.ID, "replay-step").text == "0"
    finally:
        loop.call_soon_threadsafe(task.cancel)
        for _ in range(100):
            if task.done():
                break
            threading.Event().wait(0.05)
        loop.call_soon_threadsafe(loop.stop)
        th.join(10)
