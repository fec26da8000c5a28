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
    // the game's flow: prompts, tribute, the round's end, empty views, contest tables
    finishNames: ["banker", "second", "third", "last"],
    emptyPlay: "Choose the bots and your seat, then press “New game” to play.",
    emptyWatch: "No table is playing here. Start bot tables with “guandan web --watch expert”, or play a game under Play.",
    emptyReplay: "No record open: choose a record and press “Open”, or “Open a file” (a game record, e.g. from “guandan play --record FILE”).",
    noTableState: "This table has not started yet.",
    contestWaiting: "Waiting for {n} program(s) to connect at {url} (seats {seats}); the game starts when all are connected.",
    contestOver: "The games are over ({played} of {games} played): this is the last table; its record is under Replay.",
    turnLead: "Your turn: lead any play.", turnFollow: "Your turn: beat {who}'s play, or pass.",
    turnTribute: "Your turn: pay tribute", turnBack: "Your turn: return a card", toWhom: " to {who}",
    ruleTribute: "your highest card (in level order), never a wild",
    ruleBack: "any card of rank 10 or lower that is not a level card",
    ruleBackLowest: "you hold no card of rank 2–10 that is not a level card, so your lowest card that is not a wild",
    allowed: "allowed", paidYou: "{who} paid you",
    waitFor: "Waiting for {who}…", waitTribute: "Waiting for {who} to pay tribute…",
    waitBack: "Waiting for {who} to return a card…", youAreOut: "You are out ({place}); the others play on…",
    tributeLine: "{p} pays tribute to {r}:", backLine: "{r} returns to {p}:",
    antiLine: "Anti-tribute: {who} hold both big jokers — no tribute this round.",
    roundN: "Round {n} over", lastTrick: "Last trick", finishOrder: "Finishing order",
    cardsLeft: "Cards left", levelChange: "Levels", nextRound: "Next round", heldNote: "Round over: see the result below, then press “Next round”.",
    noneLeft: "none", playAgain: "New game (new deal)",
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
    // 对局流程：提示、进贡、一局结束、空页面、比赛牌桌
    finishNames: ["头游", "二游", "三游", "末游"],
    emptyPlay: "选择机器人和座位，然后点“新对局”开始。",
    emptyWatch: "这里还没有牌桌。用“guandan web --watch expert”开机器人牌桌，或在“对局”里自己打一局。",
    emptyReplay: "未打开牌谱：选择一个牌谱并点“打开”，或“打开文件”（牌谱文件，例如“guandan play --record FILE”所存）。",
    noTableState: "此牌桌尚未开始。",
    contestWaiting: "等待 {n} 个程序连接 {url}（座位 {seats}）；全部连上后开始。",
    contestOver: "比赛已结束（已打 {played} / {games} 场）：这是最后的牌桌；牌谱在“复盘”里。",
    turnLead: "轮到你：首出任意牌型。", turnFollow: "轮到你：压过{who}的牌，或不出。",
    turnTribute: "轮到你：进贡", turnBack: "轮到你：还贡", toWhom: "给{who}",
    ruleTribute: "你最大的一张牌（按级牌顺序），不能是逢人配",
    ruleBack: "任意一张 10 或以下、且不是级牌的牌",
    ruleBackLowest: "你没有 2–10 之间的非级牌，所以还最小的一张非逢人配",
    allowed: "可选", paidYou: "{who}进贡给你",
    waitFor: "等待{who}…", waitTribute: "等待{who}进贡…",
    waitBack: "等待{who}还贡…", youAreOut: "你已出完（{place}）；其他人继续…",
    tributeLine: "{p} 向 {r} 进贡：", backLine: "{r} 还贡给 {p}：",
    antiLine: "抗贡：{who} 持有两张大王，本局不进贡。",
    roundN: "第 {n} 局结束", lastTrick: "最后一轮", finishOrder: "名次",
    cardsLeft: "剩余手牌", levelChange: "级数", nextRound: "下一局", heldNote: "本局结束：看下面的结果，然后点“下一局”。",
    noneLeft: "无", playAgain: "新对局（重新发牌）",
  },
};
let lang = localStorage.getItem("guandan.lang") ||
  ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
const t = (k) => (L[lang][k] !== undefined ? L[lang][k] : L.en[k]);
// a label with {name} fields filled in
const tf = (k, vars) => t(k).replace(/\{(\w+)\}/g, (_, n) => (vars[n] !== undefined ? vars[n] : ""));

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
function renderBoard(box, st, me, empty) {
  box.textContent = "";
  box.dataset.actions = st ? st.actions : "";
  box.classList.toggle("empty", !st);
  if (!st) { box.append(el("p", { class: "empty-note", text: empty || t("noTables") })); return; }
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
  if (st.tribute) { const te = tributeEl(st); if (te.childNodes.length) mid.append(te); }
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
  // who paid what to whom (tribute and returns are public), or the anti-tribute
  const tr = st.tribute, e = el("div", { class: "tribute" });
  const who = (s) => (st.you === s ? t("seats")[s] + " (" + t("you") + ")" : t("seats")[s]);
  if (tr.anti) { e.append(el("span", { class: "anti", text: tf("antiLine", { who: tr.payers.map(who).join(", ") }) })); return e; }
  tr.payers.forEach((p, i) => {
    const r = tr.receivers[i];
    if (tr.paid[i]) {
      e.append(el("div", { class: "paid" }, el("span", { text: tf("tributeLine", { p: who(p), r: r === null ? "?" : who(r) }) + " " }),
                  cardsEl([{ c: tr.paid[i], wild: false }], { small: true })));
    }
    if (tr.returned[i] && r !== null) {
      e.append(el("div", { class: "returned" }, el("span", { text: tf("backLine", { p: who(p), r: who(r) }) + " " }),
                  cardsEl([{ c: tr.returned[i], wild: false }], { small: true })));
    }
  });
  return e;
}
// The end of a round: its last trick (Play), the finishing order, the cards
// left in hands and the level change. `r`: a play view's round_end, or a
// watched/replayed state's last_round (then the levels after are the state's).
function roundEndEl(r, st, me) {
  const e = el("div", { class: "re" });
  const who = (s) => (me === s ? t("seats")[s] + " (" + t("you") + ")" : t("seats")[s]);
  const n = r.round || (st.over ? st.round : st.round - 1);
  e.append(el("h2", { class: "re-title", text: tf("roundN", { n: n }) }));
  if (r.trick && r.trick.length) {
    const tr = el("div", { class: "re-trick" }, el("span", { class: "re-label", text: t("lastTrick") + ": " }));
    r.trick.forEach((p) => tr.append(el("span", { class: "re-play", "data-seat": p.seat },
      el("span", { text: who(p.seat) + " " }), moveEl(p, { small: true }))));
    e.append(tr);
  }
  const ol = el("ol", { class: "re-order" });
  r.order.forEach((s, i) => {
    let place = t("finishNames")[i];
    if (lang !== "zh") place += " (" + L.zh.finishNames[i] + ")";     // the terms a player meets at a table
    ol.append(el("li", { "data-seat": s }, el("span", { class: "re-place", text: place + ": " }),
                 el("span", { text: who(s) })));
  });
  e.append(el("div", { class: "re-label", text: t("finishOrder") }), ol);
  const rest = el("div", { class: "re-rest" }, el("span", { class: "re-label", text: t("cardsLeft") + ": " }));
  const left = Object.keys(r.rest || {});
  if (!left.length) rest.append(el("span", { text: t("noneLeft") }));
  for (const s of left) rest.append(el("span", { class: "re-hand", "data-seat": s }, el("span", { text: who(+s) + " " }),
                                       cardsEl(r.rest[s], { small: true })));
  e.append(rest);
  const after = r.levels_after || st.team_levels;
  const lv = el("div", { class: "re-levels" }, el("span", { class: "re-label", text: t("levelChange") + ": " }));
  for (const k of [0, 1]) {
    let text = teamName(k, me) + " ";
    if (r.levels_before) text += r.levels_before[k] + (r.levels_before[k] !== after[k] ? " → " + after[k] : "");
    else text += after[k];
    if (k === r.banker_team) text += " (" + (r.won_at_a ? t("winsAtA") : (r.levels_up ? t("up") + " " + r.levels_up : t("stays"))) + ")";
    lv.append(el("span", { class: "re-team", "data-team": k, text: text }));
  }
  e.append(lv);
  const over = r.over !== undefined ? r.over : st.over;
  if (over) {
    const w = r.winner !== undefined ? r.winner : st.winner;
    e.append(el("p", { class: "re-over", text: t("gameOver") + (w === null || w === undefined ? "" : ": " + teamName(w, me) + " " + t("wins")) + "." }));
  }
  return e;
}
function showRoundEnd(box, r, st, me) {
  box.textContent = "";
  box.hidden = !r;
  if (r) box.append(roundEndEl(r, st, me));
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
      const r = $("refusal"); r.textContent = m.message; r.hidden = false; inView(r); break; }
    case "hint": showHint(m); inView($("hint")); break;
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
  else if (!tables.length) { state.watchState = null; renderWatch(); }
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
function contestText(c) {
  // a contest table (serve --web): what it waits for and where, or that its games are over
  if (!c) return "";
  if (c.status === "over") return tf("contestOver", { played: c.played, games: c.games });
  if (c.status !== "waiting") return "";
  const wild = !c.host || c.host === "0.0.0.0" || c.host === "::";
  const host = wild ? location.hostname : c.host;
  const url = "ws://" + (host.includes(":") ? "[" + host + "]" : host) + ":" + c.port + "/game/NAME";
  return tf("contestWaiting", { n: c.seats.length, url: url, seats: c.seats.join(", ") });
}
function renderWatch() {
  const m = state.watchState;
  const cb = $("watch-hands");
  if (!m) {
    cb.disabled = true; $("watch-note").textContent = "";
    renderBoard($("watch-board"), null, 0, t("emptyWatch"));
    showRoundEnd($("watch-round-end"), null);
    $("watch-actions").textContent = 0;
    return;
  }
  cb.disabled = !m.open_hands;
  $("watch-note").textContent = m.open_hands ? "" : t(m.kind === "contest" ? "hiddenProgramHands" : "hiddenHands");
  const ct = contestText(m.contest);
  renderBoard($("watch-board"), m.state, 0, ct || t("noTableState"));
  if (ct && m.state) $("watch-board").querySelector(".center").append(el("p", { class: "board-note", text: ct }));
  $("watch-actions").textContent = m.state ? m.state.actions : 0;
  const st = m.state;
  showRoundEnd($("watch-round-end"), st && st.round_start ? st.last_round : null, st, null);
}

// ---- replay --------------------------------------------------------------------------
function renderReplay() {
  const st = state.replay;
  if (!st) { renderBoard($("replay-board"), null, 0, t("emptyReplay")); return; }
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
  showRoundEnd($("replay-round-end"), st.round_start ? st.last_round : null, st, null);
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
function promptEl(st) {
  // what the player is asked to do now, or whom the table waits for
  const e = el("span", {});
  const who = (s) => seatName(st, s);
  const ex = st.exchange;
  if (st.your_turn && ex) {
    const head = t(ex.stage === "tribute" ? "turnTribute" : "turnBack") +
      (ex.to !== null && ex.to !== undefined ? tf("toWhom", { who: who(ex.to) }) : "");
    const rule = t(ex.rule === "tribute" ? "ruleTribute" : ex.rule === "back" ? "ruleBack" : "ruleBackLowest");
    e.append(el("strong", { text: head + ": " }), el("span", { class: "rule", text: rule + ". " }));
    if (ex.received) e.append(el("span", { text: tf("paidYou", { who: ex.to === null ? "?" : who(ex.to) }) + " " }),
                              cardsEl([ex.received], { small: true }), el("span", { text: ". " }));
    e.append(el("span", { text: t("allowed") + ": " }), cardsEl(ex.allowed, { small: true }));
    return e;
  }
  if (st.your_turn) {
    e.append(el("strong", { text: st.top_seat === null ? t("turnLead") : tf("turnFollow", { who: who(st.top_seat) }) }));
    return e;
  }
  if (st.over) return null;
  const out = st.seats[st.you].out;
  if (out) { e.textContent = tf("youAreOut", { place: t("finishNames")[Math.min(out, 4) - 1] }); return e; }
  const key = st.phase === "tribute" ? "waitTribute" : st.phase === "back" ? "waitBack" : "waitFor";
  e.textContent = tf(key, { who: who(st.to_act) });
  return e;
}
function renderPlay() {
  const st = state.play;
  if (!st) { renderBoard($("play-board"), null, 0, t("emptyPlay")); return; }
  $("play-panel").hidden = false;
  if (st.seed !== null) $("play-seed").value = st.seed;   // the server shows a seed you chose, or once the game is over
  // a round's end holds the game: its result in place of the table until "Next round"
  const ended = !!st.round_end && (st.held || st.over);
  $("play-board").hidden = ended;
  $("play-panel").hidden = ended;
  const re = $("round-end");
  showRoundEnd(re, ended ? st.round_end : null, st, st.you);
  if (ended) {
    const b = st.held ? el("button", { id: "next-round", class: "primary", text: t("nextRound") })
                      : el("button", { id: "play-again", class: "primary", text: t("playAgain") });
    b.onclick = st.held ? () => send({ type: "next_round", game: state.game })
                        : () => { $("play-seed").value = ""; newGame(); };
    re.append(b);
  }
  renderBoard($("play-board"), st, st.you);
  const pr = $("prompt"); pr.textContent = "";
  const p = promptEl(st);
  pr.hidden = !p; if (p) pr.append(p);
  pr.classList.toggle("yours", !!st.your_turn);
  const hand = $("hand"); hand.textContent = "";
  const mine = st.seats[st.you].hand || [];
  const allowed = st.your_turn && st.exchange ? st.exchange.allowed.map((c) => c.c) : null;
  mine.forEach((c, i) => {
    const e = cardEl(c);
    e.setAttribute("role", "button"); e.tabIndex = 0; e.dataset.i = i;
    if (state.selected.includes(i)) e.classList.add("sel");
    if (allowed) e.classList.add(allowed.includes(c.c) ? "allowed" : "dim");
    e.onclick = () => toggle(i);
    e.onkeydown = (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(i); } };
    hand.append(e);
  });
  $("play-btn").disabled = !st.your_turn;
  $("pass-btn").disabled = !st.can_pass;
  $("hint-btn").disabled = !st.your_turn;
  $("undo-btn").hidden = !st.practice; $("undo-btn").disabled = !st.can_undo;
  renderMatches();
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
function inView(e) {
  // a refusal or a hint is scrolled into view (a phone shows little of the page)
  if (e.scrollIntoView) e.scrollIntoView({ block: "nearest" });
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
  document.title = t("title") + " — " + t("webTable");
  renderPlay();
  renderReplay();
  renderWatch();
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
