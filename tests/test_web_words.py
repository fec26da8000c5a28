"""The web table's words: every move it sends carries its description in
both languages, hints their reason as a sentence, refusals their sentence
(guandan.words); the page's label table has every key in both languages."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from guandan import Game
from guandan.errors import IllegalMoveError
from guandan.policies import EXPERT_RULES
from guandan.web.session import PlaySession, hint, refusal_words
from guandan.web.views import move_view, table_view
from guandan.words import LANGS, describe, reason

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_move_view_has_its_words_in_both_languages():
    g = Game(seed=3)
    for m in list(g.legal_moves())[:200]:
        v = move_view(m, g.level)
        assert set(v["words"]) == set(LANGS)
        assert v["words"]["en"] == describe(m) and v["words"]["zh"] == describe(m, "zh")
        assert CJK.search(v["words"]["zh"]) and not CJK.search(v["words"]["en"])
        assert v["text"] == str(m)                      # the engine's notation stays alongside
    g.play_out(("greedy",) * 4, until="round")
    v = table_view(g, "abcd")
    assert v["last_action"]["words"]["en"]
    g2 = Game(seed=3)
    for _ in range(6):
        g2.play(g2.choose("greedy"))
    v = table_view(g2, "abcd")
    assert v["trick"] and all(set(p["words"]) == set(LANGS) for p in v["trick"])


def test_hints_give_their_reason_as_a_sentence_in_both_languages():
    g = Game(seed=5)
    h = hint(g, "expert")
    assert h["rule"] in EXPERT_RULES
    assert h["reason"] == {lang: reason(h["rule"], lang) for lang in LANGS}
    assert "-" not in h["reason"]["en"] and CJK.search(h["reason"]["zh"])
    h = hint(g, "greedy")
    assert h["reason"]["en"] == h["text"] and CJK.search(h["reason"]["zh"])
    h = hint(g, "random")
    assert h["reason"]["en"] == "the random bot's choice"
    h = hint(g, "search:rollouts=20")
    assert h["reason"]["en"] and h["candidates"]


def test_refusals_are_sentences_in_both_languages():
    g = Game.from_position([["H2", "S3", "S9"], ["S4"], ["S5"], ["S6"]], level="2", to_act=0)
    p = PlaySession(["greedy"], 0, 0)
    p.game = g
    with pytest.raises(IllegalMoveError) as e:
        p.play(["S3", "S9"])
    w = refusal_words(e.value)
    assert w["en"].startswith("that is not a valid play") and CJK.search(w["zh"])
    with pytest.raises(IllegalMoveError) as e:
        p.pass_turn()
    assert refusal_words(e.value) == {"en": "you lead this trick: you cannot pass",
                                      "zh": "这一轮由你首出：不能不出"}
    several = p.matches(["H2", "S3"])
    if len(several) > 1:
        with pytest.raises(IllegalMoveError) as e:
            p.play(["H2", "S3"])
        w = refusal_words(e.value)
        assert w["en"].startswith("these cards can be played as") and "choose one" in w["en"]
        assert all(describe(m) in w["en"] for m in several)


def test_the_server_sends_the_words():
    pytest.importorskip("websockets")
    from websockets.asyncio.client import connect
    from guandan.web import WebApp

    async def main():
        app = WebApp("127.0.0.1", 0, bot_delay=0, watch_delay=0.01)
        await app.start()
        try:
            async with connect(f"ws://127.0.0.1:{app.bound_port}/ws") as ws:
                async def wait(*types):
                    while True:
                        m = json.loads(await asyncio.wait_for(ws.recv(), 20))
                        if m["type"] in types:
                            return m
                await ws.send(json.dumps({"type": "new_game", "bots": "greedy", "seed": 5}))
                m = await wait("play")
                while not m["state"]["your_turn"]:
                    m = await wait("play")
                assert all(set(p["words"]) == set(LANGS) for p in m["state"]["trick"])
                hand = [c["c"] for c in m["state"]["seats"][0]["hand"]]
                await ws.send(json.dumps({"type": "hint", "bot": "expert"}))
                h = await wait("hint")
                assert set(h["reason"]) == set(LANGS) and h["move"]["words"]["en"]
                if h["move"]["type"] != "pass":
                    await ws.send(json.dumps({"type": "select", "cards": [c["c"] for c in h["move"]["cards"]]}))
                    mm = await wait("matches")
                    assert mm["moves"] and all(set(x["words"]) == set(LANGS) for x in mm["moves"])
                other = next(c for c in hand if c[1] != hand[0][1] and c not in ("SB", "HR"))
                await ws.send(json.dumps({"type": "play", "cards": [hand[0], other]}))
                r = await wait("refused")
                assert set(r["text"]) == set(LANGS) and r["message"]
                assert CJK.search(r["text"]["zh"]) and "seat " not in r["text"]["en"]
        finally:
            await app.stop()
    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_page_labels_every_key_in_both_languages_and_shows_the_words():
    js = (Path(__file__).resolve().parents[1] / "src" / "guandan" / "web" / "static" / "app.js").read_text()
    # the page shows the server's sentences, never the rule name alone
    assert "said(m.words)" in js and "said(m.reason)" in js and "said(m.text)" in js
    assert '" — " + t("rule") + ": " + m.rule' not in js

    def keys(block):
        return set(re.findall(r"(?m)(?:^|[{,]\s*)\s*([A-Za-z_][A-Za-z_0-9]*):", block)) - {"en", "zh"}

    start = js.index("const L = {")
    table = js[start:js.index("let lang =")]
    en, zh = table.index("  en: {"), table.index("  zh: {")
    assert keys(table[en:zh]) == keys(table[zh:])
    words = js[js.index("const L_WORDS = {"):js.index("Object.assign(L.en")]
    we, wz = words.index("en: {"), words.index("zh: {")
    assert keys(words[we:wz]) == keys(words[wz:])
