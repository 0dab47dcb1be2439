// The table page: lobby (create / join), room (seats, start), hand (play), settlement.
// Everything the rules decide comes from the server: this page offers only view.legal.
import { cardRow } from "./cards.js";
import { h } from "./dom.js";
import { randomEntropy } from "./fairness.js";
import { lang, setLang, t, termOfZh } from "./i18n.js";
import { houseForm, loadOptions, rulesetField } from "./lobby.js";
import { closeRulesSheet, rulesButton, rulesPanel } from "./rules-sheet.js";
import { afterUpdate, beforeUpdate, noteDiscardFrom, tableTick } from "./cues.js";
import { muteButton, table } from "./table.js";
import "./pwa.js"; // offline worker, offline banner
import { onSaid, sayButton, saySheet } from "./phrases.js";
import { afterVote, finalScores, nearWarning, proposeButton, shareButton, tickVote, voteBox, watchersEl, watchSwitch } from "./social.js";
import { matchHistory, optionsTitle, settleWords, settlementBody, shareBar } from "./settle.js";

const $app = document.getElementById("app");
const S = { code: null, token: null, seat: null, ws: null, v: null, upd: null, sel: null, busy: false,
  retry: 0, deadlineAt: null, closed: false, log: [] };
const newId = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
// A request id for create / join: the server answers a repeat (a double tap, a retry) with its first answer.
const newRid = () => (crypto.randomUUID ? crypto.randomUUID()
  : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));
// Run a request with its button disabled until the answer is back.
const once = (fn) => async (ev) => {
  const btn = ev?.currentTarget;
  if (btn?.disabled) return;
  if (btn) btn.disabled = true;
  try { await fn(); } finally { if (btn) btn.disabled = false; }
};
const tokenKey = (code) => `daer.seat.${code}`;

function toast(msg) {
  const el = document.getElementById("toast");
  el.textContent = msg; el.hidden = false;
  clearTimeout(toast.t); toast.t = setTimeout(() => { el.hidden = true; }, 3500);
}
const errText = (e) => (lang === "en" ? `${e.en}` : `${e.zh}（${e.en}）`);

// GET /api/rooms/{code}: resolves when the room exists, throws the server's error ({zh, en}) otherwise
async function lookup(code) {
  const res = await fetch(`/api/rooms/${encodeURIComponent(code)}`).catch(() => null);
  if (res && res.ok) return;
  throw (res && await res.json().catch(() => null)) || { zh: t("netError"), en: "network error" };
}

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await res.json();
  if (!res.ok) throw data;
  return data;
}

// -- lobby ------------------------------------------------------------------------------------
async function lobby() {
  const opts = await loadOptions();
  const name = h("input", { id: "name", value: localStorage.getItem("daer.name") || "", maxlength: 24 });
  const rules = rulesetField(opts, "luzhou", (p) => house.setPreset(p)); // names and descriptions from the server
  const house = houseForm(opts, "luzhou"); // a form built from GET /api/options, never key=value text
  const hands = h("input", { id: "hands", type: "number", min: 1, max: 64, value: 8 });
  const timer = h("input", { id: "timer", type: "number", min: 0, max: 600, value: 30 });
  const bot = h("select", { id: "bot" },
    opts.bots.map((b) => h("option", { value: b, selected: b === "normal" }, t("bot_" + b) || b)));
  const pace = h("select", { id: "pace" }, // 节奏: the room's bot delay and claim window (RoomConfig.pace)
    (opts.bounds?.paces || ["fast", "normal", "slow"]).map((p) => h("option", { value: p, selected: p === "normal" }, t("pace_" + p))));
  const hint = h("input", { type: "checkbox", role: "switch", id: "hint" }); // 提示 (RoomConfig.hint): off by default
  const code = h("input", { id: "code", placeholder: "ABCD2345EFGH", maxlength: 16, style: "text-transform:uppercase" });
  const rid = newRid();
  const create = once(async () => {
    localStorage.setItem("daer.name", name.value);
    const overrides = house.overrides();
    try {
      const r = await api("/api/rooms", { name: name.value, rid, config: { rules: rules.value, hands: +hands.value,
        timer: +timer.value, bot: bot.value, pace: pace.value, hint: hint.checked, overrides } });
      localStorage.setItem(tokenKey(r.code), r.token);
      history.pushState({ code: r.code }, "", r.link);
      enter(r.code);
    } catch (e) { toast(errText(e)); }
  });
  // a typed code is looked up before anything else is asked (no nickname for a room that does not exist)
  const join = once(async () => {
    const c = code.value.trim().toUpperCase();
    if (!c) return;
    try { await lookup(c); } catch (e) { toast(errText(e)); return; }
    history.pushState({ code: c }, "", `/r/${c}`);
    enter(c);
  });
  if (location.pathname !== "/") return; // the player went on (forward) while the options loaded
  const back = S.left && localStorage.getItem(tokenKey(S.left))
    ? h("div", { class: "panel", id: "backto" }, h("a", { href: `/r/${S.left}`, id: "backlink", onclick: (ev) => {
      ev.preventDefault(); history.pushState({ code: S.left }, "", `/r/${S.left}`); route(); } }, t("backTo", { code: S.left })))
    : "";
  $app.replaceChildren( // (replaceChildren(null) would write "null")
    back,
    h("div", { class: "bar" }, h("span", { class: "grow" }, t("title")),
      h("a", { href: "/clubs", id: "clubslink", class: "calclink" }, lang === "en" ? "Clubs" : "亲友圈"),
      h("a", { href: "/me", id: "melink", class: "calclink" }, lang === "en" ? "Me" : "我的"),
      h("a", { href: "/calc", id: "calclink", class: "calclink" }, t("calc")), langButton()),
    h("div", { class: "panel" }, h("h2", {}, t("create")),
      h("label", { for: "name" }, t("name")), name,
      rules.el,
      h("div", { class: "row" }, h("div", { class: "grow" }, h("label", { for: "hands" }, t("hands")), hands),
        h("div", { class: "grow" }, h("label", { for: "timer" }, t("timer")), timer)),
      h("label", { for: "bot" }, t("bot")), bot,
      h("label", { for: "pace" }, t("pace")), pace,
      h("label", { class: "opt switch", for: "hint", id: "hintrow" }, h("span", { class: "grow" }, t("hintOpt")), hint),
      house.el,
      h("p", {}, h("button", { class: "primary", id: "create", onclick: create, style: "width:100%" }, t("create")))),
    h("div", { class: "panel" }, h("h2", {}, t("join2")),
      h("div", { class: "row" }, code, h("button", { id: "join", onclick: join }, t("join")))),
  );
}

function langButton() {
  return h("button", { id: "lang", onclick: () => { setLang(lang === "zh" ? "en" : "zh"); document.documentElement.lang = lang; route(); } }, t("lang"));
}

// -- room: join, then a socket ---------------------------------------------------------------------
async function enter(code) {
  S.code = code.toUpperCase();
  S.token = localStorage.getItem(tokenKey(S.code));
  S.upd = null; S.v = null; S.closed = false;
  if (!S.token) {
    const c = S.code;
    try { await lookup(c); } catch (e) {
      if (S.code !== c) return;
      $app.replaceChildren(
        h("div", { class: "bar" }, h("span", {}, t("room")), h("span", { class: "code" }, c), h("span", { class: "grow" }), langButton()),
        h("div", { class: "panel", id: "noroom" }, h("p", {}, errText(e)), h("p", {}, h("a", { href: "/" }, t("toLobby")))));
      return;
    }
    if (S.code !== c || S.token) return;
    const name = h("input", { id: "name", value: localStorage.getItem("daer.name") || "", maxlength: 24 });
    const rid = newRid();
    const join = once(async () => {
      localStorage.setItem("daer.name", name.value);
      try {
        const r = await api(`/api/rooms/${S.code}/join`, { name: name.value, rid });
        localStorage.setItem(tokenKey(S.code), r.token);
        S.token = r.token; connect();
      } catch (e) { toast(errText(e)); }
    });
    $app.replaceChildren(
      h("div", { class: "bar" }, h("span", {}, t("room")), h("span", { class: "code" }, S.code), h("span", { class: "grow" }), langButton()),
      h("div", { class: "panel" }, h("h2", {}, t("join2")), h("label", { for: "name" }, t("name")), name,
        h("p", { class: "row" }, h("button", { class: "primary grow", id: "joinseat", onclick: join }, t("join")),
          h("button", { id: "watch", onclick: () => { localStorage.setItem("daer.name", name.value); connect(); } }, t("spectate")))));
    return;
  }
  connect();
}

function connect() {
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${encodeURIComponent(S.code)}`);
  S.ws = ws;
  ws.onopen = () => { S.retry = 0; ws.send(JSON.stringify({ t: "hello", room: S.code, token: S.token, v: S.v,
    ...(S.token ? {} : { name: (localStorage.getItem("daer.name") || "").slice(0, 24) }) })); };
  ws.onmessage = (ev) => { if (S.ws === ws) onMessage(JSON.parse(ev.data)); };
  ws.onclose = () => {
    if (S.closed || S.ws !== ws) return;
    document.body.dataset.conn = "lost";
    toast(t("reconnecting"));
    S.retry = Math.min(S.retry + 1, 5);
    setTimeout(connect, 400 * S.retry);
  };
}

function send(msg) { if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(msg)); }
function act(action) {
  if (S.busy) return;
  S.busy = true; S.sel = null;
  send({ t: "act", id: newId(), v: S.v, action });
  render();
}
const cmd = (name) => send({ t: "cmd", id: newId(), name, v: S.v });
// Our own random bytes for every deal we sit in, sent once per commitment (docs/fairness.md).
function addEntropy(room) {
  if (S.seat === null || S.seat === undefined || !room.commit || room.commit === S.entropyFor) return;
  if (room.status !== "waiting" && room.status !== "between") return;
  S.entropyFor = room.commit;
  send({ t: "cmd", id: newId(), name: "entropy", entropy: randomEntropy() });
}

function onMessage(m) {
  if (m.t === "welcome") { S.seat = m.seat; document.body.dataset.conn = "ok"; }
  else if (m.t === "update") {
    const prev = S.upd;
    beforeUpdate(m);
    S.upd = m; S.v = m.v; S.busy = false;
    addEntropy(m.room);
    afterVote(m.room, prev, S, toast);
    S.deadlineAt = m.room.deadline === null ? null : Date.now() + m.room.deadline * 1000;
    render();
    afterUpdate(m, prev, ctx);
  } else if (m.t === "error") {
    S.busy = false;
    if (m.code === "bad_token") { localStorage.removeItem(tokenKey(S.code)); S.token = null; enter(S.code); }
    if (m.code !== "stale") toast(errText(m));
    render();
  } else if (m.t === "said") { onSaid(m, ctx);
  } else if (m.t === "closed") { S.closed = true; toast(errText(m)); render(); }
}

// -- rendering --------------------------------------------------------------------------------------
const spectating = () => S.seat === null || S.seat === undefined;
const rel = (seat) => {
  if (spectating()) return S.upd?.room.seats[seat]?.name || `${seat + 1}`; // a spectator has no "me": seats by name
  const n = S.upd?.room.seats.length || 4; // 3 seats (跑胡子): 下家 and 上家 only; 2: 对家
  const words = n === 3 ? [t("you"), t("next"), t("prev")] : n === 2 ? [t("you"), t("across")] : [t("you"), t("next"), t("across"), t("prev")];
  return words[(seat - S.seat + n) % n];
};
const seatName = (room, s) => `${room.seats[s].name || t("emptySeat")}`;

function render() {
  const u = S.upd;
  if (!u) return;
  const room = u.room;
  const top = h("div", { class: "bar" },
    h("span", { class: "code", id: "roomcode" }, room.code),
    h("span", {}, room.status === "waiting" ? "" : t("hand", { n: Math.max(room.hand_no, 1), N: room.hands })),
    h("span", { class: "grow" }),
    watchersEl(room, toast),
    room.status !== "dissolved" && !S.closed ? sayButton(ctx) : null,
    room.status !== "waiting" && u.view ? rulesButton(room) : null,
    muteButton(render),
    langButton(),
    S.seat !== null && room.status !== "dissolved" ? h("button", { id: "leave", onclick: () => { if (confirm(t("confirmLeave"))) { cmd("leave"); localStorage.removeItem(tokenKey(S.code)); S.closed = true; setTimeout(() => { location.href = "/"; }, 300); } } }, t("leave")) : null,
    proposeButton(room, ctx),
    S.seat !== null && S.seat === room.host && room.status === "waiting" ? h("button", { class: "danger", id: "dissolve", onclick: () => { if (confirm(t("confirmDissolve"))) cmd("dissolve"); } }, t("dissolve")) : null,
  );
  const parts = [top];
  if (S.closed || room.status === "dissolved") parts.push(h("div", { class: "panel", id: "closedmsg" }, t("closed")), finalScores(room, amt));
  else if (room.status === "waiting" || !u.view) parts.push(waitingRoom(room));
  else parts.push(table(u, ctx));
  if (u.view && u.view.result && (room.status === "between" || room.status === "finished")) parts.push(settlement(u));
  parts.push(voteBox(room, ctx), saySheet(room, ctx));
  document.body.classList.toggle("at-table", Boolean(u.view) && room.status !== "waiting");
  const scrolled = document.getElementById("settlement")?.scrollTop || 0;
  $app.replaceChildren(...parts.filter(Boolean));
  const sheet = document.getElementById("settlement");
  if (sheet && scrolled) sheet.scrollTop = scrolled; // an update while reading the settlement keeps its place
}
// what the table's modules (table.js, cues.js) use of the page
const ctx = { S, act: (a) => act(a), cmd: (c) => cmd(c), render: () => render(), rel: (s) => rel(s), amt: (x) => amt(x),
  spectating: () => spectating(), noteDiscardFrom, send: (m) => send(m), newId: () => newId() };

function waitingRoom(room) {
  const link = `${location.origin}/r/${room.code}`;
  return h("div", { class: "panel", id: "waiting" },
    h("p", {}, t("share"), " ", h("b", { class: "code" }, room.code)),
    h("p", { class: "row" }, h("input", { value: link, readonly: true, id: "link", "aria-label": t("copy") }),
      h("button", { id: "copy", onclick: () => copyLink(link) }, t("copy"))),
    h("p", {}, shareButton(room, link, toast, () => copyLink(link))),
    h("h2", {}, t("seatsTitle")),
    nearWarning(room),
    h("div", { class: "seatlist" }, room.seats.map((s) => h("div", { "data-seat": s.seat }, `${s.seat + 1}. ${s.name || t("emptySeat")}`,
      s.seat === S.seat ? ` (${t("you")})` : "", s.kind === "human" && !s.online ? h("span", { class: "badge off" }, t("offline")) : null))),
    S.seat === room.host ? h("p", {}, h("button", { class: "primary", id: "start", style: "width:100%", onclick: () => cmd("start") }, t("start")))
      : h("p", { class: "muted" }, t("waitingHost")),
    watchSwitch(room, ctx),
    rulesPanel(room)); // the rules in force, from room.rules / room.overrides and GET /api/options
}

// Copy the room link: the Clipboard API where the page is a secure context (https, localhost); on a plain-http
// LAN address there is none, so the link is selected in its field and copied by execCommand if the browser
// lets it; the toast says which happened.
async function copyLink(link) {
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
    await navigator.clipboard.writeText(link);
    toast(t("copied"));
  } catch {
    const field = document.getElementById("link");
    if (!field) return;
    field.focus(); field.select(); field.setSelectionRange(0, field.value.length);
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    toast(ok ? t("copied") : t("copySelected"));
  }
}

// money play (room.money): amounts are 分, shown as 元 exactly (250 → "2.5 元"), integer arithmetic only
function amt(x) {
  const room = S.upd && S.upd.room;
  if (!room || !room.money) return `${x}`;
  const sign = x < 0 ? "-" : "", a = Math.abs(x), cents = a % 100;
  const frac = cents ? "." + String(cents).padStart(2, "0").replace(/0$/, "") : "";
  return `${sign}${Math.floor(a / 100)}${frac} 元`;
}

// The settlement (settle.js draws it from view.result, room.work, room.payments and the match's hands):
// the working, every hand revealed, 战绩, share, and one tap to the next hand in a bar that never scrolls away.
function settlement(u) {
  const { view, room } = u;
  const names = room.seats.map((s) => (spectating() ? s.name || t("emptySeat") : `${rel(s.seat)} ${s.name}`));
  const title = `${t("title").split(" · ")[0]} · ${optionsTitle(room.rules)} · ${t("room")} ${room.code} · ${t("hand", { n: room.hand_no, N: room.hands })}`;
  const data = { result: view.result, work: room.work, payments: room.payments, names, me: spectating() ? null : S.seat,
    money: room.money, dealer: view.dealer, dijia: view.dijia, totals: room.seats.map((s) => s.score), title,
    history: matchHistory(room.code, room.hand_no, render), fileName: `${room.code}-${room.hand_no}`,
    plainNames: room.seats.map((s) => s.name || t("emptySeat")) };
  const hand = `${encodeURIComponent(room.code)}/${room.hand_no}`; // records are reached through the room's code
  const links = room.hand_no > 0 ? h("p", { class: "links" }, h("a", { href: `/replay/${hand}`, target: "_blank", rel: "noopener" }, t("replay")), " · ",
    h("a", { href: `/api/rooms/${encodeURIComponent(room.code)}/hands/${room.hand_no}/record`, download: true }, t("record"))) : null;
  const ready = S.seat !== null && room.ready.includes(S.seat);
  const next = room.status === "between" && !spectating()
    ? h("button", { class: "primary grow", id: "next", disabled: ready, onclick: () => cmd("next") }, ready ? settleWords("ready") : t("nextHand")) : null;
  return h("div", { class: "overlay", id: "settlement", role: "dialog", "aria-modal": "true", "aria-labelledby": "settletitle" },
    h("div", { class: "sheet settle" },
      h("h2", { id: "settletitle" }, room.status === "finished" ? t("finished") : `${t("settle")} · ${t("hand", { n: room.hand_no, N: room.hands })}`),
      ...settlementBody(data), links, shareBar(data, toast),
      h("div", { class: "settlefoot" }, next)));
}

// turned sideways (or a window resized): drawn again for the new size (the hand's card width follows it)
let resized = null;
window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(() => render(), 60); });
tickVote.S = S;
setInterval(() => { tableTick(ctx); tickVote(); }, 250);

// Leave the room's page without leaving the seat: the socket closes for good (no reconnect, no redraw
// under another URL); forward (or the lobby's link back) enters the room again with the stored token.
function away() {
  closeRulesSheet();
  if (S.ws) { S.ws.onclose = null; S.ws.close(); S.ws = null; }
  if (S.code) S.left = S.code;
  S.upd = null; S.v = null; S.code = null; S.seat = null;
}

function route() {
  const m = location.pathname.match(/^\/r\/([A-Za-z0-9]+)/);
  if (m) {
    if (S.upd && S.ws && S.code === m[1].toUpperCase()) render();
    else { away(); enter(m[1]); }
  } else { away(); lobby(); }
}
window.addEventListener("popstate", route);
route();
