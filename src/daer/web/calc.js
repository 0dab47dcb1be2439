// 计胡器: tap cards to build a hand, the server's calculator (POST /api/score) explains it.
// The page carries no rules: it builds the request, shows the answer; the URL holds the hand (ASCII notation).
import { card, cardRow, charOf } from "./cards.js";
import { lang, setLang } from "./i18n.js";

const T = {
  zh: {
    title: "大贰 · 计胡器", table: "牌桌", lang: "English", hand: "手牌", melds: "桌面的牌", win: "胡的牌", winTab: "胡牌",
    none: "未选", tapHint: "点下面的牌放进", tapRemove: "点牌可拿掉", self: "自摸（自己翻出的）",
    rules: "规则", house: "自定规则", seat: "赢家座位", dealer: "庄家座位", clear: "清空", cards: "张",
    chiPending: "吃：再点 {n} 张", result: "结果", hu: "胡", total: "合计", where: "位置", onTable: "桌面",
    inHand: "手中", deng: "等", mult: "番", noMult: "无", fan: "番数", mingtang: "名堂", mode_mingtang: "名堂", mode_fan: "番", mode_huayang: "花样", notes: "算法",
    payments: "谁付谁", seatN: "座位 {n}", winner: "赢家", loser: "输家", dijia: "底家", points: "得分",
    waits: "还差一张。叫牌（点一张当作胡的牌）：", waitsShort: "叫牌", noWaits: "没有叫牌", notWin: "不能胡", why: "原因", colon: "：",
    offline: "离线：需要网络来计算", busy: "请求太频繁，{s} 秒后自动重试", loading: "计算中…", empty: "点牌开始：先选手牌，再选胡的牌",
    share: "复制链接", copied: "链接已复制", instant: "起手胡", lan: "烂和", fifth: "有第五张", flagsT: "特殊",
    col: "列", tianhu: "天胡", dihu: "地胡", haidi: "海底", small: "小字", big: "大字",
  },
  en: {
    title: "Da Er calculator", table: "Table", lang: "中文", hand: "Hand", melds: "On the table", win: "Winning card", winTab: "Win",
    none: "none", tapHint: "Tap a card below to add it to", tapRemove: "tap a card to take it out", self: "Self-drawn",
    rules: "Rules", house: "House rules", seat: "Winner's seat", dealer: "Dealer's seat", clear: "Clear", cards: "cards",
    chiPending: "chi: tap {n} more", result: "Result", hu: "hu", total: "Total", where: "where", onTable: "table",
    inHand: "hand", deng: "deng", mult: "multipliers", noMult: "none", fan: "fan", mingtang: "patterns", mode_mingtang: "名堂 (patterns)", mode_fan: "番 (fan)", mode_huayang: "花样 (patterns)", notes: "arithmetic",
    payments: "Who pays whom", seatN: "seat {n}", winner: "winner", loser: "loser", dijia: "sits out", points: "points",
    waits: "One card short. Waits (tap one to make it the winning card):", waitsShort: "waits", noWaits: "no waits", notWin: "Not a win", why: "why", colon: ": ",
    offline: "Offline: scoring needs the network", busy: "Too many requests; retrying in {s} s", loading: "scoring…",
    empty: "Tap cards to start: the hand first, then the winning card", share: "Copy link", copied: "Link copied",
    instant: "instant win", lan: "烂和 (no 列 with hu)", fifth: "a fifth copy", flagsT: "Special",
    col: "列", tianhu: "heavenly", dihu: "earthly", haidi: "last card", small: "small", big: "big",
  },
};
const t = (k, vars = {}) => {
  let s = T[lang][k] ?? T.zh[k] ?? k;
  for (const [a, b] of Object.entries(vars)) s = s.replace(`{${a}}`, b);
  return s;
};
const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) el.append(k);
  return el;
};
// ASCII notation of a kind (x1…x10 small, d1…d10 big), as `daer score` reads it.
const ascii = (k) => `${k >= 10 ? "d" : "x"}${(k % 10) + 1}`;
const toAscii = (kinds) => kinds.map(ascii).join("");
const fromAscii = (s) => [...(s || "").matchAll(/([xd])(10|[1-9])/gi)].map((m) => (m[1].toLowerCase() === "d" ? 10 : 0) + (+m[2]) - 1);
const byKind = (a, b) => a - b;
// The server's messages are "中文 (English)": in English show the English part alone.
const say = (msg) => {
  if (lang !== "en" || !msg) return msg;
  const m = /\(([^()]*)\)\s*$/.exec(msg);
  return m ? m[1] : msg;
};

const S = {
  presets: [], rules: "luzhou", opts: {}, hand: [], melds: [], win: null, self: false,
  flags: { tianhu: false, dihu: false, haidi: false }, seat: 0, dealer: 0, target: "hand", pending: [],
  result: null, error: null, state: "idle", seq: 0, timer: null,
};
const $app = document.getElementById("app");
const preset = () => S.presets.find((p) => p.name === S.rules) || S.presets[0] || { melds: [], house: [], seats: 4 };
const meldKinds = () => preset().melds;
const used = () => {
  const c = Array(20).fill(0);
  for (const k of S.hand) c[k]++;
  for (const m of S.melds) for (const k of m.cards) c[k]++;
  for (const k of S.pending) c[k]++;
  if (S.win !== null) c[S.win]++;
  return c;
};

// -- the URL: the whole request, in ASCII, so a result can be shared and reopened ---------------------
function toQuery() {
  const q = new URLSearchParams();
  if (S.rules !== "luzhou") q.set("r", S.rules);
  q.set("h", toAscii(S.hand));
  if (S.melds.length) q.set("m", S.melds.map((m) => `${m.kind}:${toAscii(m.cards)}`).join(","));
  if (S.win !== null) q.set("w", ascii(S.win));
  if (S.self) q.set("self", "1");
  const f = Object.keys(S.flags).filter((k) => S.flags[k]);
  if (f.length) q.set("f", f.join(","));
  if (S.seat) q.set("seat", S.seat);
  if (S.dealer) q.set("dealer", S.dealer);
  const o = Object.entries(S.opts);
  if (o.length) q.set("o", o.map(([k, v]) => `${k}:${JSON.stringify(v)}`).join(","));
  // readable and still exact: ":" and "," need no escaping in a query string
  return q.toString().replace(/%3A/gi, ":").replace(/%2C/gi, ",");
}
function fromQuery() {
  const q = new URLSearchParams(location.search);
  S.rules = q.get("r") || "luzhou";
  S.hand = fromAscii(q.get("h")).sort(byKind);
  S.melds = (q.get("m") || "").split(",").filter(Boolean).map((part) => {
    const [kind, cards] = part.split(":");
    return { kind, cards: fromAscii(cards).sort(byKind) };
  });
  const w = fromAscii(q.get("w"));
  S.win = w.length ? w[0] : null;
  S.self = q.get("self") === "1";
  for (const k of Object.keys(S.flags)) S.flags[k] = (q.get("f") || "").split(",").includes(k);
  S.seat = Math.min(3, Math.max(0, +q.get("seat") || 0));
  S.dealer = Math.min(3, Math.max(0, +q.get("dealer") || 0));
  S.opts = {};
  for (const part of (q.get("o") || "").split(",").filter(Boolean)) {
    const i = part.indexOf(":");
    try { S.opts[part.slice(0, i)] = JSON.parse(part.slice(i + 1)); } catch { /* a bad option is dropped */ }
  }
}

// -- the request and the server's answer -----------------------------------------------------------
function request() {
  const req = { rules: S.rules, hand: toAscii(S.hand), notes: true, seat: S.seat, dealer: S.dealer };
  if (Object.keys(S.opts).length) req.options = S.opts;
  if (S.melds.length) req.melds = S.melds.map((m) => ({ kind: m.kind, cards: toAscii(m.cards) }));
  if (S.win !== null) req.win = { card: ascii(S.win), from: S.self ? "self" : "other" };
  for (const [k, v] of Object.entries(S.flags)) if (v) req[k] = true;
  return req;
}
function changed() {
  history.replaceState(null, "", `/calc?${toQuery()}`);
  S.seq++; // an answer still on its way was asked before this change: it is dropped, not shown as current
  S.state = "loading";
  render();
  clearTimeout(S.timer);
  S.timer = setTimeout(score, 150);
}
async function score() {
  const seq = ++S.seq;
  if (!S.hand.length && !S.melds.length && S.win === null) { S.result = null; S.state = "idle"; renderResult(); return; }
  S.state = "loading"; renderStatus();
  let res;
  try {
    res = await fetch("/api/score", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify(request()) });
  } catch {
    if (seq === S.seq) { S.state = "offline"; renderResult(); }
    return;
  }
  if (seq !== S.seq) return;
  const data = await res.json().catch(() => null);
  if (res.status === 429) {
    const s = data?.retry_after || 2;
    S.state = "busy"; S.retry = s; renderResult();
    S.timer = setTimeout(score, s * 1000);
    return;
  }
  if (!res.ok || !data) { S.state = "error"; S.result = { error: data ? `${data.zh} (${data.en})` : `HTTP ${res.status}` }; renderResult(); return; }
  S.state = "done"; S.result = data; renderResult();
}

// -- building the hand -------------------------------------------------------------------------------
function tapKind(k) {
  const tg = S.target;
  if (tg === "hand") { S.hand.push(k); S.hand.sort(byKind); }
  else if (tg === "win") { S.win = k; S.target = "hand"; }
  else {
    const m = meldKinds().find((x) => x.kind === tg);
    if (!m) return;
    if (m.kind === "chi") {
      S.pending.push(k);
      if (S.pending.length < 3) { render(); return; }
      S.melds.push({ kind: "chi", cards: S.pending.sort(byKind) });
      S.pending = [];
    } else S.melds.push({ kind: m.kind, cards: Array(m.size).fill(k) });
  }
  changed();
}
const meldName = (kind) => { const m = meldKinds().find((x) => x.kind === kind); return m ? (lang === "en" ? m.en : m.zh) : kind; };

function render() {
  document.documentElement.lang = lang === "en" ? "en" : "zh";
  document.title = t("title");
  const c = used();
  const bar = h("div", { class: "bar" }, h("a", { href: "/", class: "back", id: "totable" }, `← ${t("table")}`),
    h("span", { class: "grow title" }, t("title")),
    h("button", { id: "share", onclick: share }, t("share")),
    h("button", { id: "lang", onclick: () => { setLang(lang === "zh" ? "en" : "zh"); render(); renderResult(); } }, t("lang")));
  // what has been built: the hand, the melds, the winning card
  const handRow = h("div", { class: "cardrow built", id: "hand" }, S.hand.map((k, i) => {
    const el = card(k, { size: "mid2" });
    el.classList.add("tap");
    el.addEventListener("click", () => { S.hand.splice(i, 1); changed(); });
    return el;
  }));
  const meldRow = h("div", { class: "melds", id: "melds" }, S.melds.map((m, i) => h("div", { class: "meld tap", "data-kind": m.kind,
    onclick: () => { S.melds.splice(i, 1); changed(); } }, h("span", { class: "mk" }, meldName(m.kind)), cardRow(m.cards))),
  S.pending.length ? h("div", { class: "meld pending", id: "pending", onclick: () => { S.pending = []; render(); } },
    h("span", { class: "mk" }, t("chiPending", { n: 3 - S.pending.length })), cardRow(S.pending)) : null);
  const winEl = S.win === null ? h("span", { class: "muted", id: "win" }, t("none"))
    : h("span", { id: "win", class: "tap", onclick: () => { S.win = null; changed(); } }, card(S.win, { size: "mid2" }));
  const built = h("div", { class: "panel built" },
    h("div", { class: "row head" }, h("b", {}, `${t("hand")} `), h("span", { class: "muted", id: "count" },
      `${S.hand.length} ${t("cards")} · ${t("tapRemove")}`), h("span", { class: "grow" }),
    h("button", { id: "clear", class: "small", onclick: () => { Object.assign(S, { hand: [], melds: [], win: null, pending: [] }); changed(); } }, t("clear"))),
    handRow,
    h("div", { class: "row head" }, h("b", {}, t("melds"))), meldRow,
    h("div", { class: "row head" }, h("b", {}, t("win")), winEl,
      h("label", { class: "check" }, h("input", { type: "checkbox", id: "self", checked: S.self, onchange: (e) => { S.self = e.target.checked; changed(); } }), t("self"))));
  // where the next tap goes, and the 20 kinds to tap
  const targets = [["hand", t("hand")], ["win", t("winTab")], ...meldKinds().map((m) => [m.kind, lang === "en" ? m.en : m.zh])];
  const tabs = h("div", { class: "targets", id: "targets" }, targets.map(([k, label]) => h("button",
    { class: S.target === k ? "on" : "", "data-target": k, onclick: () => { S.target = k; S.pending = []; render(); } }, label)));
  const pick = (from) => h("div", { class: "pickrow" }, Array.from({ length: 10 }, (_, i) => {
    const k = from + i;
    const el = card(k, { size: "pick" });
    el.dataset.pick = k;
    el.addEventListener("click", () => tapKind(k));
    return h("div", { class: "pickcell" }, el, h("span", { class: c[k] > 4 ? "cnt over" : "cnt" }, `${c[k]}/4`));
  }));
  const picker = h("div", { class: "panel picker" }, h("div", { class: "muted" }, `${t("tapHint")} `,
    h("b", { id: "targetname" }, targets.find(([k]) => k === S.target)?.[1] || "")), tabs, pick(0), pick(10));
  // rules, house rules, seats and the special wins
  const p = preset();
  const rulesSel = h("select", { id: "rules", onchange: (e) => { S.rules = e.target.value; S.opts = {}; S.target = "hand"; S.pending = [];
    S.melds = S.melds.filter((m) => meldKinds().some((x) => x.kind === m.kind)); changed(); } },
  S.presets.map((x) => h("option", { value: x.name, selected: x.name === S.rules }, lang === "en" ? x.en : x.zh)));
  const seatSel = (id, val, set) => h("select", { id, onchange: (e) => { set(+e.target.value); changed(); } },
    Array.from({ length: p.seats || 4 }, (_, i) => h("option", { value: i, selected: i === val }, t("seatN", { n: i }))));
  const house = p.house.map((o) => {
    const val = o.path in S.opts ? S.opts[o.path] : o.default;
    const set = (v) => { if (v === o.default) delete S.opts[o.path]; else S.opts[o.path] = v; changed(); };
    const label = lang === "en" ? o.en : o.zh;
    if (o.type === "bool") return h("label", { class: "check" }, h("input", { type: "checkbox", "data-opt": o.path, checked: !!val, onchange: (e) => set(e.target.checked) }), label);
    if (o.type === "int") return h("label", { class: "opt" }, label, h("input", { type: "number", "data-opt": o.path, min: o.min, max: o.max, value: val,
      onchange: (e) => set(Math.round(+e.target.value)) }));
    if (o.type === "yuan") return h("label", { class: "opt" }, label, h("input", { type: "number", "data-opt": o.path, min: 0.01, max: o.max, step: 0.01, value: val,
      onchange: (e) => set(e.target.value === String(o.default) ? o.default : e.target.value) }));  // 元 to the 分, sent as a decimal string (五毛 = "0.5")
    return h("label", { class: "opt" }, label, h("select", { "data-opt": o.path, onchange: (e) => set(JSON.parse(e.target.value)) },
      o.values.map((v) => h("option", { value: JSON.stringify(v), selected: v === val }, String(v)))));
  });
  const flags = h("div", { class: "flags" }, Object.keys(S.flags).map((k) => h("label", { class: "check" },
    h("input", { type: "checkbox", id: `flag-${k}`, checked: S.flags[k], onchange: (e) => { S.flags[k] = e.target.checked; changed(); } }), t(k))));
  const rules = h("div", { class: "panel rulespanel" },
    h("div", { class: "row" }, h("label", { for: "rules", class: "grow" }, t("rules"), rulesSel)),
    h("div", { class: "row" }, h("label", { class: "grow" }, t("seat"), seatSel("seat", S.seat, (v) => { S.seat = v; })),
      h("label", { class: "grow" }, t("dealer"), seatSel("dealer", S.dealer, (v) => { S.dealer = v; }))),
    h("div", { class: "muted" }, t("flagsT")), flags,
    house.length ? h("details", { id: "house" }, h("summary", {}, t("house")), h("div", { class: "house" }, house)) : null);
  const summary = h("div", { id: "summary", class: "summary", hidden: true,
    onclick: () => document.getElementById("result").scrollIntoView({ behavior: "smooth" }) });
  $app.replaceChildren(bar, built, picker, h("div", { id: "status", class: "status" }), h("div", { id: "result", class: "panel result" }), rules, summary);
  renderResult();
}

function renderStatus() {
  const el = document.getElementById("status");
  if (!el) return;
  el.textContent = S.state === "loading" ? t("loading") : "";
  // data-busy: an answer is on its way (tests wait for it to go; the panel dims meanwhile)
  document.getElementById("result")?.toggleAttribute("data-busy", S.state === "loading" || S.state === "busy");
}

function payLine(p) {
  const who = (s) => t("seatN", { n: s });
  return h("tr", { class: "pay", "data-from": p.from, "data-to": p.to, "data-amount": p.amount },
    h("td", {}, `${who(p.from)} → ${who(p.to)}`), h("td", { class: "amt" }, String(p.amount)),
    h("td", { class: "note" }, lang === "en" ? p.why_en : p.why));
}

function renderResult() {
  renderStatus();
  const el = document.getElementById("result");
  if (!el) return;
  el.removeAttribute("data-hu"); el.removeAttribute("data-ok");
  if (S.state === "offline") { el.replaceChildren(h("div", { class: "err", id: "offline" }, t("offline"))); renderSummary(null); return; }
  if (S.state === "busy") { el.replaceChildren(h("div", { class: "err" }, t("busy", { s: S.retry }))); return; }
  const r = S.result;
  if (!r) { el.replaceChildren(h("div", { class: "muted" }, t("empty"))); renderSummary(null); return; }
  const kids = [];
  el.dataset.ok = r.ok ? "1" : "0";
  if (r.hu !== null && r.hu !== undefined) el.dataset.hu = r.hu;
  if (r.groups && r.groups.length) {
    const rows = r.groups.map((g) => h("tr", { class: "grp" }, h("td", {}, lang === "en" ? g.kind : g.name),
      h("td", {}, cardRow(fromAscii(g.cards_ascii), "mid2")),
      h("td", { class: "num" }, String(g.hu)), h("td", { class: "muted" }, g.meld ? t("onTable") : t("inHand"))));
    kids.push(h("table", { class: "groups" }, h("tr", {}, h("th", {}, t("col")), h("th", {}, ""), h("th", {}, t("hu")), h("th", {}, t("where"))),
      rows, h("tr", { class: "tot" }, h("td", {}, t("total")), h("td", {}, r.instant ? `${t("instant")} ${r.instant}` : r.lan ? t("lan") : ""),
        h("td", { class: "num", id: "hu" }, String(r.hu)), h("td", {}, ""))));
  }
  const waiting = r.waits && r.waits.length;
  if (!r.ok && r.error && !waiting) kids.push(h("div", { class: "err", id: "why" }, `${t("notWin")}${t("colon")}${say(r.error)}`));
  if (r.waits) {
    kids.push(h("div", { class: "waits", id: "waits" }, h("b", {}, r.waits.length ? t("waits") : t("noWaits")),
      r.waits.map((w) => h("button", { class: "wait", "data-card": w.card_ascii, "data-hu": w.hu,
        onclick: () => { S.win = fromAscii(w.card_ascii)[0]; changed(); } }, `${w.card} ${w.hu}${t("hu")}`))));
  }
  if (r.ok) {
    const mults = (r.multipliers || []).map((m) => `${m.name} ×${m.factor}`).join("，") || t("noMult");
    const facts = h("div", { class: "facts" },
      h("span", { id: "deng" }, `${t("deng")} ${r.deng}`),
      r.mode ? h("span", { id: "fan" }, `${t("fan")} ${r.fan}`) : h("span", { id: "mult" }, `${t("mult")}：${mults}`));
    kids.push(facts);
    if (r.mingtang && r.mingtang.length) {
      kids.push(h("div", { class: "mingtang", id: "mingtang" }, h("b", {}, `${t(`mode_${r.mode}`)}：`),
        r.mingtang.map((m) => h("span", { class: "tag" }, `${lang === "en" ? m.en : m.name} ${m.value}`))));
    }
    if (r.notes && r.notes.length) kids.push(h("div", { class: "notes", id: "notes" }, `${t("notes")}：`, r.notes.join("；")));
    const roles = r.points.roles;
    kids.push(h("table", { class: "seats", id: "points" }, r.points.seats.map((pts, s) => h("tr", { "data-seat": s, "data-points": pts },
      h("td", {}, `${t("seatN", { n: s })} ${t(roles[s])}`), h("td", { class: pts > 0 ? "num pos" : pts < 0 ? "num neg" : "num" }, pts > 0 ? `+${pts}` : String(pts))))));
    kids.push(h("div", { class: "muted" }, t("payments")), h("table", { class: "payments", id: "payments" }, r.payments.map(payLine)));
  }
  el.replaceChildren(...kids);
  renderSummary(r);
}

// One line kept at the bottom of the screen: the answer without scrolling; a tap scrolls to it.
function renderSummary(r) {
  const el = document.getElementById("summary");
  if (!el) return;
  let text = "";
  if (S.state === "offline") text = t("offline");
  else if (r && r.ok) {
    const w = r.points.seats[r.points.roles.indexOf("winner")];
    text = `${r.hu} ${t("hu")} · ${t("deng")} ${r.deng}${r.mode ? ` · ${t("fan")} ${r.fan}` : ""} · ${t("winner")} ${w > 0 ? "+" : ""}${w}`;
  } else if (r && r.waits && r.waits.length) text = `${t("waitsShort")}：${r.waits.map((x) => `${x.card} ${x.hu}${t("hu")}`).join("  ")}`;
  else if (r && r.error) text = `${t("notWin")}${t("colon")}${lang === "en" ? say(r.error) : r.error.split(" (")[0]}`;
  el.textContent = text;
  el.hidden = !text;
  el.className = r && r.ok ? "summary ok" : "summary";
}

async function share() {
  try { await navigator.clipboard.writeText(location.href); toast(t("copied")); } catch { toast(location.href); }
}
function toast(msg) {
  const el = document.getElementById("toast");
  el.textContent = msg; el.hidden = false;
  clearTimeout(toast.t); toast.t = setTimeout(() => { el.hidden = true; }, 2500);
}

async function main() {
  fromQuery();
  try {
    const res = await fetch("/api/score/options");
    S.presets = (await res.json()).presets;
  } catch { S.presets = [{ name: "luzhou", zh: "泸州大贰", en: "Luzhou Da Er", seats: 4, house: [],
    melds: [{ kind: "peng", size: 3, zh: "碰", en: "peng" }, { kind: "chi", size: 3, zh: "吃", en: "chi" },
      { kind: "zhao", size: 4, zh: "招", en: "zhao" }, { kind: "long", size: 4, zh: "垅", en: "long" }] }]; }
  render();
  score();
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/calc-sw.js", { scope: "/calc" }).catch(() => {});
  window.addEventListener("online", () => { if (S.state === "offline") score(); });
}
main();
