"""The web table in a real headless browser (Debian's chromium and
chromium-driver through Selenium; ``.ci/run`` installs them). Skipped with
the reason when they are missing. Screenshots of each view go to
``$GUANDAN_ARTIFACTS`` (default ``build/artifacts/``).

The page is compared with the engine's state after every move: the hand,
the counts and the trick the DOM shows are those of the server's Game."""

from __future__ import annotations

import json
import os
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


def session(web):
    plays = [c.play for c in web.app.clients if c.play is not None]
    assert len(plays) == 1
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
    assert d.find_element(By.ID, "refusal").text == str(e.value)
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
    zh = {"单张", "对子", "三张", "三连对", "三带二", "钢板", "顺子", "同花顺", "炸弹", "天王炸", "不出"}
    wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#play-board .mtype"))
    for e in d.find_elements(By.CSS_SELECTOR, "#play-board .mtype"):
        assert e.text.split()[0] in zh, e.text
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
