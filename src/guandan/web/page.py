"""The web table's page: the HTML document served at ``/`` (its script and
style sheet are package data in ``static/``). Kept as a module rather than a
file under the package so that every ``*.html`` there is a build output
(``cython -a`` annotations)."""

__all__ = ["INDEX_HTML"]

INDEX_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Guandan 掼蛋 — web table</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="style.css">
</head>
<body>
<header>
  <h1 data-l="title">Guandan</h1>
  <nav role="tablist">
    <button id="tab-watch" class="tab" data-view="watch" data-l="watch">Watch</button>
    <button id="tab-replay" class="tab" data-view="replay" data-l="replay">Replay</button>
    <button id="tab-play" class="tab" data-view="play" data-l="play">Play</button>
  </nav>
  <button id="lang" title="中文 / English">中文</button>
  <span id="conn" class="conn" aria-live="polite"></span>
</header>
<p id="error" class="error" role="alert" hidden></p>

<main>
<section id="view-watch" class="view" hidden>
  <div class="bar">
    <label><span data-l="table">Table</span> <select id="watch-table"></select></label>
    <label><input type="checkbox" id="watch-hands"> <span data-l="showHands">show all hands</span></label>
    <span id="watch-note" class="note"></span>
  </div>
  <div id="watch-board" class="board"></div>
  <div id="watch-round-end" class="roundend" aria-live="polite" hidden></div>
  <p class="note"><span data-l="actions">actions</span>: <span id="watch-actions">0</span></p>
</section>

<section id="view-replay" class="view" hidden>
  <div class="bar">
    <label><span data-l="record">Record</span> <select id="replay-name"></select></label>
    <button id="replay-open" data-l="open">Open</button>
    <label class="file"><span data-l="upload">Open a file</span> <input type="file" id="replay-file" accept=".json,application/json"></label>
  </div>
  <div class="bar controls">
    <button id="replay-first" title="start" aria-label="start">|◀◀</button>
    <button id="replay-prev-trick" data-l="prevTrick">◀ trick</button>
    <button id="replay-prev" data-l="back">◀ back</button>
    <span id="replay-pos"><span id="replay-step">0</span> / <span id="replay-steps">0</span></span>
    <button id="replay-next" data-l="forward">forward ▶</button>
    <button id="replay-next-trick" data-l="nextTrick">trick ▶</button>
    <button id="replay-last" title="end" aria-label="end">▶▶|</button>
    <label><span data-l="round">Round</span> <select id="replay-round"></select></label>
    <input type="range" id="replay-slider" min="0" max="0" value="0" aria-label="position">
  </div>
  <div id="replay-board" class="board"></div>
  <p id="replay-last-action" class="note"></p>
  <div id="replay-round-end" class="roundend" hidden></div>
</section>

<section id="view-play" class="view" hidden>
  <form id="play-setup" class="bar">
    <label><span data-l="bots">Bots</span> <select id="play-bots"></select></label>
    <label><span data-l="seat">Seat</span> <select id="play-seat">
      <option value="0">0</option><option value="1">1</option><option value="2">2</option><option value="3">3</option></select></label>
    <label><span data-l="seed">Seed</span> <input id="play-seed" type="number" min="0" step="1" inputmode="numeric"></label>
    <label><input type="checkbox" id="play-practice"> <span data-l="practice">practice (undo)</span></label>
    <button id="play-start" type="submit" data-l="newGame">New game</button>
  </form>
  <div id="play-board" class="board"></div>
  <div id="round-end" class="roundend" aria-live="polite" hidden></div>
  <div id="play-panel" hidden>
    <p id="prompt" class="prompt" aria-live="polite"></p>
    <div id="hand" class="hand" aria-label="your hand"></div>
    <div class="bar actions">
      <button id="play-btn" data-l="playSel">Play selection</button>
      <button id="pass-btn" data-l="pass">Pass</button>
      <button id="clear-btn" data-l="clear">Clear</button>
      <label><span data-l="hintFrom">hint from</span> <select id="hint-bot"></select></label>
      <button id="hint-btn" data-l="hint">Hint</button>
      <button id="undo-btn" data-l="undo">Undo</button>
    </div>
    <div id="matches" class="matches" aria-live="polite"></div>
    <div class="msgs">
      <p id="refusal" class="refusal" role="alert" hidden></p>
      <p id="hint" class="hint" aria-live="polite" hidden></p>
    </div>
  </div>
</section>
</main>
<footer><span data-l="footer">The engine decides every rule; this page only shows it.</span></footer>
<script src="app.js"></script>
</body>
</html>
"""
