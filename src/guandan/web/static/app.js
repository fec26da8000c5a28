// Guandan web table: Watch, Replay, Play. Plain JS, no build step.
// The page never decides a rule: legal plays, readings of a selection,
// refusals and wild cards all come from the server (the engine).
"use strict";

// ---- labels (zh / en) -------------------------------------------------------
const L = {
  en: {
    title: "Guandan", watch: "Watch", replay: "Replay", play: "Play", table: "Table",
    showHands: "show all hands", actions: "actions", record: "Record", open: "Open",
    upload: "Open a file", prevTrick: "◀ trick", back: "◀ back", forward: "forward ▶",
    nextTrick: "trick ▶", round: "Round", bots: "Bots", seat: "Seat", seed: "Seed",
    practice: "practice (undo)", newGame: "New game", playSel: "Play selection", pass: "Pass",
    clear: "Clear", hintFrom: "hint from", hint: "Hint", undo: "Undo",
    footer: "The engine decides every rule; this page only shows it.",
    seats: ["South", "East", "North", "West"], you: "you", cards: "cards",
    level: "level", levels: "levels", team: "team", toAct: "to act", lead: "leads",
    passWord: "pass", noTables: "no tables yet", hiddenHands: "hands hidden: people play at this table",
    hiddenProgramHands: "hands hidden until the round ends: the players could watch this page",
    finish: ["1st out", "2nd out", "3rd out", "last"],
    tribute: "tribute", back_: "return", anti: "anti-tribute", jiefeng: "partner leads (jiefeng)",
    paysTo: "pays", returnsTo: "returns", to: "to",
    roundOver: "Round over", gameOver: "Game over", wins: "wins", up: "up", stays: "stays",
    winsAtA: "wins the game at A", yourTeam: "your team", theirTeam: "their team",
    matchesNone: "no legal play of these cards — Play shows why",
    choose: "several readings: choose one", notYourTurn: "waiting for the bots…",
    hintSays: "would play", rule: "rule", connecting: "connecting…", connected: "connected",
    disconnected: "disconnected — reload", last: "last action", noRecord: "no record open",
    step: "step", winner: "winner", notOver: "not finished", undone: "undone",
    wild: "wild", smallJoker: "small joker", bigJoker: "big joker", value: "value",
    types: {
      single: "Single", pair: "Pair", trips: "Triple", three_pair: "Tube (3 pairs)",
      three_with_two: "Full house", two_trips: "Plate", straight: "Straight",
      straight_flush: "Straight flush", bomb: "Bomb", joker_bomb: "Joker bomb", pass: "Pass",
      tribute: "Tribute", back: "Return",
    },
  },
  zh: {
    title: "掼蛋", watch: "观战", replay: "复盘", play: "对局", table: "牌桌",
    showHands: "显示所有手牌", actions: "动作数", record: "牌谱", open: "打开",
    upload: "打开文件", prevTrick: "◀ 上一轮", back: "◀ 后退", forward: "前进 ▶",
    nextTrick: "下一轮 ▶", round: "局", bots: "机器人", seat: "座位", seed: "种子",
    practice: "练习（可悔牌）", newGame: "新对局", playSel: "出牌", pass: "不出",
    clear: "清除", hintFrom: "提示来自", hint: "提示", undo: "悔牌",
    footer: "所有规则由引擎判定；本页面只负责显示。",
    seats: ["南", "东", "北", "西"], you: "你", cards: "张",
    level: "级", levels: "级数", team: "队", toAct: "出牌中", lead: "首出",
    passWord: "不出", noTables: "暂无牌桌", hiddenHands: "有真人在此桌：手牌不可见",
    hiddenProgramHands: "本局结束前手牌不可见：玩家可能也在看此页",
    finish: ["头游", "二游", "三游", "末游"],
    tribute: "进贡", back_: "还贡", anti: "抗贡", jiefeng: "接风",
    paysTo: "进贡", returnsTo: "还贡", to: "给",
    roundOver: "本局结束", gameOver: "比赛结束", wins: "获胜", up: "升", stays: "不升级",
    winsAtA: "过A获胜", yourTeam: "我方", theirTeam: "对方",
    matchesNone: "这些牌不能合法打出 — 点“出牌”查看原因",
    choose: "有多种牌型：请选择", notYourTurn: "等待机器人…",
    hintSays: "建议出", rule: "规则", connecting: "连接中…", connected: "已连接",
    disconnected: "连接断开 — 请刷新", last: "上一动作", noRecord: "未打开牌谱",
    step: "步", winner: "胜方", notOver: "未结束", undone: "已悔牌",
    wild: "逢人配", smallJoker: "小王", bigJoker: "大王", value: "估值",
    types: {
      single: "单张", pair: "对子", trips: "三张", three_pair: "三连对",
      three_with_two: "三带二", two_trips: "钢板", straight: "顺子",
      straight_flush: "同花顺", bomb: "炸弹", joker_bomb: "天王炸", pass: "不出",
      tribute: "进贡", back: "还贡",
    },
  },
};
let lang = localStorage.getItem("guandan.lang") ||
  ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
const t = (k) => (L[lang][k] !== undefined ? L[lang][k] : L.en[k]);

const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

// ---- cards --------------------------------------------------------------------
const SUIT = { S: "♠", H: "♥", C: "♣", D: "♦" };
function cardEl(card, opts) {
  const c = card.c, o = opts || {};
  const e = el("span", { class: "card" + (card.wild ? " wild" : "") + (o.small ? " small" : ""),
                         "data-card": c });
  if (c === "SB" || c === "HR") {
    e.classList.add(c === "HR" ? "joker-big" : "joker-small");
    e.append(el("span", { class: "r", text: c === "HR" ? "JK" : "jk" }),
             el("span", { class: "s", text: "★" }));
    e.title = c === "HR" ? t("bigJoker") : t("smallJoker");
  } else {
    e.classList.add("suit-" + c[0]);
    e.append(el("span", { class: "r", text: c[1] === "T" ? "10" : c[1] }),
             el("span", { class: "s", text: SUIT[c[0]] }));
    e.title = cardName(c) + (card.wild ? " (" + t("wild") + ")" : "");
  }
  if (card.wild) e.append(el("span", { class: "w", text: "✱", "aria-label": t("wild") }));
  return e;
}
function cardsEl(cards, opts) {
  const e = el("span", { class: "cards" });
  for (const c of cards) e.append(cardEl(c, opts));
  return e;
}
// ---- words -------------------------------------------------------------------------
// The server sends its sentences in every language (a move's `words`, a
// hint's `reason`, a refusal's `text`: {en: ..., zh: ...}); the page shows
// its own. The labels below name what the page draws itself.
const L_WORDS = {
  en: { start: "start", end: "end", position: "position", yourHand: "your hand", webTable: "web table",
        langTitle: "中文 / English", why: "why", suits: { S: "♠", H: "♥", C: "♣", D: "♦" },
        botNames: { greedy: "greedy", expert: "expert", random: "random", search: "search", net: "net" } },
  zh: { start: "开头", end: "结尾", position: "进度", yourHand: "你的手牌", webTable: "网页牌桌",
        langTitle: "中文 / English", why: "理由", suits: { S: "黑桃", H: "红桃", C: "梅花", D: "方块" },
        botNames: { greedy: "贪心", expert: "专家", random: "随机", search: "搜索", net: "神经网络" } },
};
Object.assign(L.en, L_WORDS.en);
Object.assign(L.zh, L_WORDS.zh);
function said(x) { return x && typeof x === "object" ? (x[lang] !== undefined ? x[lang] : x.en) : x; }
function botName(spec) {
  // a bot spec with its policy's name in the page's language (options as given: search:ms=300)
  if (!spec) return "";
  const i = spec.indexOf(":"), name = i < 0 ? spec : spec.slice(0, i);
  const word = t("botNames")[name];
  return word === undefined ? spec : word + (i < 0 ? "" : spec.slice(i));
}
function cardName(c) {
  if (c === "SB") return t("smallJoker");
  if (c === "HR") return t("bigJoker");
  return t("suits")[c[0]] + (c[1] === "T" ? "10" : c[1]);
}
function applyWords() {
  // titles and labels the document carries outside data-l, and the server's sentences shown
  const set = (id, k) => { const e = $(id); if (e) { e.title = t(k); e.setAttribute("aria-label", t(k)); } };
  set("replay-first", "start"); set("replay-last", "end"); set("replay-slider", "position");
  set("hand", "yourHand"); set("lang", "langTitle");
  for (const o of document.querySelectorAll("option[data-bot]")) o.textContent = botName(o.dataset.bot);
  if (state.refused && !$("refusal").hidden) $("refusal").textContent = said(state.refused.text) || state.refused.message;
  if (state.hint && !$("hint").hidden) showHint(state.hint);
}
function moveText(m) {
  if (m && m.words) return said(m.words);
  if (!m || m.type === "pass") return t("passWord");
  return t("types")[m.type] + (m.rank && m.type !== "single" && m.type !== "tribute" && m.type !== "back" ? " " + (m.rank === "T" ? "10" : m.rank) : "");
}
function moveEl(m, opts) {
  const e = el("span", { class: "move", "data-type": m ? m.type : "pass" },
               el("span", { class: "mtype", text: moveText(m) }));
  if (m && m.type !== "pass") e.append(cardsEl(m.cards, opts));
  return e;
}

// ---- the board (shared by the three views) -----------------------------------------
function seatName(st, s) {
  const n = st.seats[s].name;
  const base = t("seats")[s];
  if (st.you === s) return base + " · " + t("you");
  return n ? base + " · " + n : base;
}
function renderBoard(box, st, me) {
  box.textContent = "";
  box.dataset.actions = st ? st.actions : "";
  if (!st) { box.append(el("p", { class: "note", text: t("noTables") })); return; }
  const bottom = me === undefined || me === null ? 0 : me;
  const places = ["bottom", "right", "top", "left"];
  const lastBySeat = {};
  for (const p of st.trick) lastBySeat[p.seat] = p;
  for (let k = 0; k < 4; k++) {
    const s = (bottom + k) % 4, seat = st.seats[s];
    const box2 = el("div", { class: "seat " + places[k] + (st.to_act === s ? " active" : "") +
                              (seat.team === 0 ? " team0" : " team1"),
                             id: box.id + "-seat-" + s, "data-seat": s });
    const head = el("div", { class: "who" },
      el("span", { class: "name", text: seatName(st, s) }),
      el("span", { class: "count", "data-count": seat.count, text: seat.count + " " + t("cards") }));
    if (seat.out) head.append(el("span", { class: "out", text: t("finish")[Math.min(seat.out, 4) - 1] }));
    if (st.to_act === s) head.append(el("span", { class: "turn", text: "● " + t("toAct") }));
    box2.append(head);
    const play = lastBySeat[s];
    const area = el("div", { class: "area" + (st.top_seat === s ? " top" : ""), "data-seat": s });
    if (play) area.append(moveEl(play, { small: false }));
    box2.append(area);
    if (seat.hand && s !== st.you) box2.append(el("div", { class: "shown" }, cardsEl(seat.hand, { small: true })));
    box.append(box2);
  }
  const mid = el("div", { class: "center" });
  mid.append(el("div", { class: "info" },
    el("span", { text: t("round") + " " + st.round }),
    el("span", { class: "lvl", text: t("level") + " " + st.level }),
    el("span", { class: "levels", text: t("levels") + ": " + teamName(0, st.you) + " " + st.team_levels[0] + " · " +
                       teamName(1, st.you) + " " + st.team_levels[1] })));
  if (st.jiefeng) mid.append(el("div", { class: "badge", text: t("jiefeng") }));
  if (st.tribute) mid.append(tributeEl(st));
  if (st.finish_order.length) {
    mid.append(el("div", { class: "order", text: st.finish_order.map((s, i) =>
      t("finish")[i] + ": " + t("seats")[s]).join(" · ") }));
  }
  box.append(mid);
}
function teamName(k, me) {
  if (me !== undefined && me !== null) return k === (me & 1) ? t("yourTeam") : t("theirTeam");
  return t("seats")[k] + "/" + t("seats")[k + 2];
}
function tributeEl(st) {
  const tr = st.tribute, e = el("div", { class: "tribute" });
  if (tr.anti) { e.append(el("span", { text: t("anti") + ": " + tr.payers.map((s) => t("seats")[s]).join(", ") })); return e; }
  tr.payers.forEach((p, i) => {
    const r = tr.receivers[i];
    if (tr.paid[i]) {
      e.append(el("div", {}, el("span", { text: t("tribute") + ": " + t("seats")[p] + " → " + (r === null ? "?" : t("seats")[r]) + " " }),
                  cardsEl([{ c: tr.paid[i], wild: false }], { small: true })));
    }
    if (tr.returned[i] && r !== null) {
      e.append(el("div", {}, el("span", { text: t("back_") + ": " + t("seats")[r] + " → " + t("seats")[p] + " " }),
                  cardsEl([{ c: tr.returned[i], wild: false }], { small: true })));
    }
  });
  return e;
}
function resultText(st, me) {
  const r = st.last_round;
  if (!r) return "";
  const order = r.order.map((s, i) => t("finish")[i] + " " + t("seats")[s]).join(", ");
  const team = teamName(r.banker_team, me);
  const gain = r.won_at_a ? t("winsAtA") : (r.levels_up ? t("up") + " " + r.levels_up : t("stays"));
  let s = t("roundOver") + ": " + order + ". " + team + " " + gain + ".";
  if (st.over) s += " " + t("gameOver") + ": " + teamName(st.winner, me) + " " + t("wins") + ".";
  return s;
}

// ---- the socket --------------------------------------------------------------------
let ws = null, bots = [], tables = [], records = [];
const state = { view: "play", watch: null, watchState: null, play: null, game: null, replay: null,
                selected: [], matches: [], pending: null };
function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }
function connect() {
  $("conn").textContent = t("connecting");
  ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onopen = () => { $("conn").textContent = t("connected"); send({ type: "hello" }); };
  ws.onclose = () => { $("conn").textContent = t("disconnected"); };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
}
function showError(text) {
  const e = $("error");
  e.textContent = text; e.hidden = !text;
}
function onMessage(m) {
  if (m.type === "refused") { state.refused = m; if (m.text) m.message = said(m.text); }
  if (m.type === "hint") state.hint = m;
  switch (m.type) {
    case "welcome":
      bots = m.bots; fillBots(); onLists(m); route(); break;
    case "lists": onLists(m); break;
    case "table":
      if (m.table === state.watch) { state.watchState = m; renderWatch(); }
      break;
    case "play":
      if (state.pending === "new") state.pending = null;
      state.game = m.game; state.play = m.state; state.selected = []; state.matches = [];
      $("refusal").hidden = true;
      if (m.played !== undefined || m.undone) $("hint").hidden = true;
      renderPlay(); break;
    case "matches": onMatches(m); break;
    case "refused": {
      const r = $("refusal"); r.textContent = m.message; r.hidden = false; break; }
    case "hint": showHint(m); break;
    case "replay": state.replay = m.state; renderReplay(); break;
    case "error": showError(m.message); break;
  }
}
function onLists(m) {
  tables = m.tables; records = m.records;
  const sel = $("watch-table"), cur = state.watch;
  sel.textContent = "";
  for (const tb of tables) sel.append(el("option", { value: tb.id, text: tb.id + " · " + tb.title }));
  if (cur && tables.some((x) => x.id === cur)) sel.value = cur;
  else if (state.view === "watch" && tables.length) { sel.value = tables[0].id; startWatch(tables[0].id); }
  const rs = $("replay-name"), rc = rs.value;
  rs.textContent = "";
  for (const r of records) rs.append(el("option", { value: r, text: r }));
  if (rc) rs.value = rc;
}
function fillBots() {
  for (const id of ["play-bots", "hint-bot"]) {
    const s = $(id); s.textContent = "";
    for (const b of bots) s.append(el("option", { value: b, "data-bot": b, text: botName(b) }));
  }
  if (bots.includes("expert")) $("hint-bot").value = "expert";
}

// ---- routing: #watch=ID, #replay=NAME&step=N, #play&bots=..&seed=..&seat=..&practice=1, ?record=NAME&step=N
function parseHash() {
  const h = new URLSearchParams(location.hash.replace(/^#/, ""));
  const q = new URLSearchParams(location.search);
  if (q.get("record")) return { view: "replay", name: q.get("record"), step: +q.get("step") || 0 };
  if (h.has("replay")) return { view: "replay", name: h.get("replay"), step: +h.get("step") || 0 };
  if (h.has("watch")) return { view: "watch", table: h.get("watch") };
  if (h.has("play")) return { view: "play", bots: h.get("bots"), seed: h.get("seed"), seat: h.get("seat"), practice: h.get("practice") === "1", start: h.has("seed") };
  return { view: "play" };
}
function setHash(s) { history.replaceState(null, "", location.pathname + "#" + s); }
function route() {
  const r = parseHash();
  showView(r.view, false);
  if (r.view === "replay" && r.name) { state.replayWant = r.step; send({ type: "replay_open", name: r.name }); }
  if (r.view === "watch") {
    const id = r.table || (tables[0] && tables[0].id);
    if (id) { $("watch-table").value = id; startWatch(id); }
  }
  if (r.view === "play") {
    if (r.bots && bots.includes(r.bots)) $("play-bots").value = r.bots;
    if (r.seed !== null && r.seed !== undefined) $("play-seed").value = r.seed;
    if (r.seat) $("play-seat").value = r.seat;
    $("play-practice").checked = !!r.practice;
    if (r.start) newGame();
  }
}
function showView(v, hash) {
  state.view = v;
  for (const x of ["watch", "replay", "play"]) {
    $("view-" + x).hidden = x !== v;
    $("tab-" + x).classList.toggle("on", x === v);
    $("tab-" + x).setAttribute("aria-selected", x === v);
  }
  if (v !== "watch" && state.watch) { send({ type: "unwatch" }); state.watch = null; }
  if (hash !== false) {
    if (v === "watch") { const id = $("watch-table").value || (tables[0] && tables[0].id); if (id) startWatch(id); else setHash("watch"); }
    else if (v === "replay") setHash(state.replay ? "replay=" + encodeURIComponent(state.replay.name) + "&step=" + state.replay.step : "replay");
    else setHash("play");
  }
}

// ---- watch ---------------------------------------------------------------------------
function startWatch(id) {
  state.watch = id;
  send({ type: "watch", table: id, hands: $("watch-hands").checked });
  setHash("watch=" + encodeURIComponent(id));
}
function renderWatch() {
  const m = state.watchState;
  const cb = $("watch-hands");
  cb.disabled = !m.open_hands;
  $("watch-note").textContent = m.open_hands ? "" : t(m.kind === "contest" ? "hiddenProgramHands" : "hiddenHands");
  renderBoard($("watch-board"), m.state, 0);
  $("watch-actions").textContent = m.state ? m.state.actions : 0;
  const res = m.state && m.state.last_round ? resultText(m.state) : "";
  if (res) $("watch-board").append(el("p", { class: "note result-line", text: res }));
}

// ---- replay --------------------------------------------------------------------------
function renderReplay() {
  const st = state.replay;
  if (state.replayWant !== undefined && state.replayWant !== null) {
    const want = state.replayWant; state.replayWant = null;
    if (want !== st.step) { send({ type: "replay_goto", step: want }); return; }
  }
  $("replay-step").textContent = st.step; $("replay-steps").textContent = st.steps;
  const sl = $("replay-slider"); sl.max = st.steps; sl.value = st.step;
  const rs = $("replay-round");
  if (rs.options.length !== st.rounds.length || rs.dataset.name !== st.name) {
    rs.textContent = ""; rs.dataset.name = st.name;
    st.rounds.forEach((p, i) => rs.append(el("option", { value: p, text: t("round") + " " + (i + 1) })));
  }
  let ri = 0; st.rounds.forEach((p, i) => { if (p <= st.step) ri = i; });
  rs.selectedIndex = ri;
  renderBoard($("replay-board"), st, 0);
  const la = $("replay-last-action"); la.textContent = "";
  if (st.last_action) {
    la.append(el("span", { text: t("last") + ": " + t("seats")[st.last_action.seat] + " " }), moveEl(st.last_action, { small: true }));
  }
  const res = resultText(st);
  if (res) la.append(el("div", { class: "result-line", text: res }));
  if (state.view === "replay") setHash("replay=" + encodeURIComponent(st.name) + "&step=" + st.step);
}
function replayGo(step) { if (state.replay) send({ type: "replay_goto", step: Math.max(0, Math.min(step, state.replay.steps)) }); }
function trickJump(dir) {
  const st = state.replay; if (!st) return;
  const marks = st.tricks.concat(st.rounds).sort((a, b) => a - b);
  let to = dir > 0 ? st.steps : 0;
  for (const p of marks) { if (dir > 0 && p > st.step) { to = p; break; } if (dir < 0 && p < st.step) to = p; }
  replayGo(to);
}

// ---- play ----------------------------------------------------------------------------
function newGame() {
  const msg = { type: "new_game", bots: $("play-bots").value, seat: +$("play-seat").value,
                practice: $("play-practice").checked };
  const seed = $("play-seed").value;
  if (seed !== "") msg.seed = +seed;
  state.pending = "new";
  send(msg);
}
function renderPlay() {
  const st = state.play;
  if (!st) return;
  $("play-panel").hidden = false;
  if (st.seed !== null) $("play-seed").value = st.seed;   // the server shows a seed you chose, or once the game is over
  renderBoard($("play-board"), st, st.you);
  const hand = $("hand"); hand.textContent = "";
  const mine = st.seats[st.you].hand || [];
  mine.forEach((c, i) => {
    const e = cardEl(c);
    e.setAttribute("role", "button"); e.tabIndex = 0; e.dataset.i = i;
    if (state.selected.includes(i)) e.classList.add("sel");
    e.onclick = () => toggle(i);
    e.onkeydown = (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(i); } };
    hand.append(e);
  });
  $("play-btn").disabled = !st.your_turn;
  $("pass-btn").disabled = !st.can_pass;
  $("hint-btn").disabled = !st.your_turn;
  $("undo-btn").hidden = !st.practice; $("undo-btn").disabled = !st.can_undo;
  renderMatches();
  const res = $("result");
  const text = resultText(st, st.you);
  res.hidden = !text; res.textContent = text;
  if (!st.your_turn && !st.over) $("matches").textContent = t("notYourTurn");
  setHash("play&bots=" + encodeURIComponent(st.bots.filter((b) => b)[0] || "") +
          (st.seed !== null ? "&seed=" + st.seed : "") +
          "&seat=" + st.you + (st.practice ? "&practice=1" : ""));
}
function selectedCards() {
  const mine = state.play.seats[state.play.you].hand || [];
  return state.selected.map((i) => mine[i].c);
}
function toggle(i) {
  if (!state.play || !state.play.your_turn) return;
  const k = state.selected.indexOf(i);
  if (k >= 0) state.selected.splice(k, 1); else state.selected.push(i);
  state.matches = [];
  $("refusal").hidden = true;
  for (const e of $("hand").children) e.classList.toggle("sel", state.selected.includes(+e.dataset.i));
  const cards = selectedCards();
  if (cards.length) send({ type: "select", cards: cards, game: state.game });
  renderMatches();
}
function sameCards(a, b) { return a.length === b.length && a.slice().sort().join() === b.slice().sort().join(); }
function onMatches(m) {
  if (!state.play || !sameCards(m.cards, selectedCards())) return;   // an older selection
  state.matches = m.moves; renderMatches();
}
function renderMatches() {
  const box = $("matches"); box.textContent = "";
  if (!state.play || !state.play.your_turn || !state.selected.length) return;
  if (!state.matches.length) { box.append(el("span", { class: "note", text: t("matchesNone") })); return; }
  if (state.matches.length > 1) box.append(el("span", { class: "note", text: t("choose") + ": " }));
  state.matches.forEach((mv, i) => {
    const b = el("button", { class: "reading", "data-choice": i }, moveEl(mv, { small: true }));
    b.onclick = () => send({ type: "play", cards: selectedCards(), choice: i, game: state.game });
    box.append(b);
  });
}
function showHint(m) {
  const h = $("hint"); h.textContent = ""; h.hidden = false;
  h.append(el("span", { text: botName(m.bot) + " " + t("hintSays") + ": " }), moveEl(m.move, { small: true }));
  if (m.reason) h.append(el("span", { class: "reason", title: m.rule || "", text: " — " + said(m.reason) }));
  else if (m.text) h.append(el("span", { text: " — " + m.text }));
  if (m.candidates) {
    const ul = el("ul", { class: "cands" });
    for (const c of m.candidates) ul.append(el("li", {}, moveEl(c.move, { small: true }),
      el("span", { text: " " + t("value") + " " + (c.value === null ? "–" : c.value) + " (n=" + c.n + ")" })));
    h.append(ul);
  }
}

// ---- wiring --------------------------------------------------------------------------
function applyLang() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const e of document.querySelectorAll("[data-l]")) e.textContent = t(e.dataset.l);
  applyWords();
  $("lang").textContent = lang === "zh" ? "English" : "中文";
  document.title = (lang === "zh" ? "掼蛋" : "Guandan") + " — web table";
  if (state.play) renderPlay();
  if (state.replay) renderReplay();
  if (state.watchState) renderWatch();
}
window.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll(".tab")) b.onclick = () => showView(b.dataset.view);
  $("lang").onclick = () => { lang = lang === "zh" ? "en" : "zh"; localStorage.setItem("guandan.lang", lang); applyLang(); };
  $("watch-table").onchange = () => startWatch($("watch-table").value);
  $("watch-hands").onchange = () => { if (state.watch) startWatch(state.watch); };
  $("replay-open").onclick = () => { const n = $("replay-name").value; if (n) send({ type: "replay_open", name: n }); };
  $("replay-file").onchange = (ev) => {
    const f = ev.target.files[0]; if (!f) return;
    f.text().then((txt) => {
      let rec; try { rec = JSON.parse(txt); } catch (e) { showError("not JSON: " + f.name); return; }
      send({ type: "replay_open", record: rec });
    });
  };
  $("replay-first").onclick = () => replayGo(0);
  $("replay-last").onclick = () => state.replay && replayGo(state.replay.steps);
  $("replay-prev").onclick = () => state.replay && replayGo(state.replay.step - 1);
  $("replay-next").onclick = () => state.replay && replayGo(state.replay.step + 1);
  $("replay-prev-trick").onclick = () => trickJump(-1);
  $("replay-next-trick").onclick = () => trickJump(1);
  $("replay-round").onchange = () => replayGo(+$("replay-round").value);
  $("replay-slider").oninput = () => replayGo(+$("replay-slider").value);
  document.addEventListener("keydown", (ev) => {
    if (state.view !== "replay" || ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight") $("replay-next").click();
    if (ev.key === "ArrowLeft") $("replay-prev").click();
  });
  $("play-setup").onsubmit = (ev) => { ev.preventDefault(); newGame(); };
  $("play-btn").onclick = () => { if (state.play) { $("refusal").hidden = true; send({ type: "play", cards: selectedCards(), game: state.game }); } };
  $("pass-btn").onclick = () => send({ type: "pass", game: state.game });
  $("clear-btn").onclick = () => { state.selected = []; state.matches = []; if (state.play) renderPlay(); };
  $("hint-btn").onclick = () => send({ type: "hint", bot: $("hint-bot").value, game: state.game });
  $("undo-btn").onclick = () => send({ type: "undo", game: state.game });
  window.addEventListener("hashchange", () => { if (ws && ws.readyState === 1) route(); });
  applyLang();
  connect();
});
