// Replay of a finished hand, step by step, every hand open: the seats by name, the list of steps (tap one to go
// there), the whole settlement at the last step; the record downloads as JSON; 复盘 (review.js) marks the costly
// steps of a seat.  The controls sit in the page's flow
// above the table (never a bar stuck over a seat); ←/→ step, space plays.  The page carries no rules: the server
// replays the record through the engine and sends every step.
import { card, charOf, kindOf } from "./cards.js";
import { h, words } from "./dom.js";
import { verifyRecord } from "./fairness.js";
import { eventText } from "./feed.js";
import { lang, setLang, t } from "./i18n.js";
import "./pwa.js";
import { advice, outlineBetter, reviewBar, reviewInit, stepMark } from "./review.js";
import { amount, settlementBody } from "./settle.js";

// /replay/{code}/{number}: a hand is reached through its room's code and its number in the match
const [code, number] = location.pathname.split("/").slice(2, 4).map(decodeURIComponent);
const base = `/api/rooms/${encodeURIComponent(code)}/hands/${encodeURIComponent(number)}`;
const $app = document.getElementById("app");
const W = {
  zh: { replay: "回放", room: "房间", hand: "第 {n} 局", seat: "座{n}", deal: "发牌", first: "第一步", prev: "上一步",
    play: "自动播放", stop: "停止", next: "下一步", last: "最后一步", step: "步骤", steps: "全部步骤", fair: "公平发牌",
    download: "下载牌谱", hand_: "手牌", melds: "明牌", discards: "弃牌", stock: "墩", result: "结算" },
  en: { replay: "Replay", room: "Room", hand: "hand {n}", seat: "Seat {n}", deal: "Deal", first: "First step",
    prev: "Previous step", play: "Play", stop: "Stop", next: "Next step", last: "Last step", step: "Step",
    steps: "All steps", fair: "fair deal", download: "Download record", hand_: "Hand", melds: "Melds",
    discards: "Discards", stock: "Stock", result: "Settlement" },
};
const w = words(W, () => lang);
let data = null;
let i = 0;
let timer = null;
let fair = null;

// a seat's name: its name in the room, else 座N
const who = (s) => (data.names && data.names[s]) || w("seat", { n: s + 1 });
const actionWords = { discard: "discard", hu: "winHu", zhao: "zhao", peng: "peng", chi: "chi", pass: "pass" };
// one step in words: the events it caused as the table saw them (打出 / 碰 / 翻出 …), else the action itself
function say(st) {
  const evs = st.events || [];
  if (evs.length) return evs.map((ev) => eventText(ev, who)).join(lang === "en" ? "; " : "；");
  const a = st.action;
  if (!a) return w("deal");
  const word = actionWords[a.type] ? t(actionWords[a.type]) : a.type;
  const extra = a.type === "discard" ? ` ${charOf(a.kind)}` : "";
  return `${who(a.seat)} ${word}${extra}`;
}

const signed = (x, money) => `${x > 0 ? "+" : ""}${amount(x, money)}`;

function seatPanel(st, s) {
  const v = st.view;
  const acted = st.action && st.action.seat === s;
  const panel = h("section", { class: `rp-seat${acted ? " acted" : ""}`, id: `seat-${s}`, "data-seat": s, "aria-label": who(s) },
    h("div", { class: "who" }, h("span", { class: "nm" }, who(s)),
      s === v.dealer ? h("span", { class: "badge dealer" }, t("dealer")) : null,
      s === v.dijia ? h("span", { class: "badge" }, t("dijia")) : null,
      h("span", { class: "grow" }),
      v.result && v.result.points.length ? h("span", { class: "pts" }, signed(v.result.points[s], v.result.money)) : null),
    h("div", { class: "cardrow rp-hand", role: "group", "aria-label": w("hand_") }, st.hands[s].map((cid) => card(kindOf(cid), { size: "mid2" }))),
    v.melds[s].length ? h("div", { class: "melds", role: "group", "aria-label": w("melds") },
      v.melds[s].map((m) => h("div", { class: "meld" }, (m.kinds.length ? m.kinds : Array(m.down || 0).fill(null)).map((k) => card(k, { size: "mini" }))))) : null,
    h("div", { class: "discards", role: "group", "aria-label": w("discards") }, v.discards.filter(([d]) => d === s).map(([, k]) => card(k, { size: "mini" }))),
    advice(i, s));
  outlineBetter(panel, i, s, st.hands[s]);
  return panel;
}

// The settlement as the table shows it (settle.js): the winner's 列 with their 胡, the working 胡 → 等 →
// multipliers → amounts, each seat's amount with its payments, every hand revealed.
function settlement(v) {
  const names = v.result.points.map((_, s) => who(s));
  return h("section", { class: "sheet settle rp-result", id: "result", "aria-labelledby": "resulttitle" },
    h("h2", { id: "resulttitle" }, w("result")),
    ...settlementBody({ result: v.result, work: data.end.work, payments: data.end.payments, names, me: null,
      money: v.result.money, dealer: v.dealer, dijia: v.dijia, totals: null, history: null }));
}

function controls() {
  const last = data.steps.length - 1;
  const btn = (id, label, text, n) => h("button", { id, "aria-label": label, title: label, onclick: () => go(n()) }, text);
  return h("div", { class: "rp-controls", id: "controls" },
    btn("first", w("first"), "|◀", () => 0), btn("prev", w("prev"), "◀", () => i - 1),
    h("button", { id: "play", "aria-label": timer ? w("stop") : w("play"), title: timer ? w("stop") : w("play"), onclick: toggle }, timer ? "■" : "▶▶"),
    btn("nextstep", w("next"), "▶", () => i + 1), btn("last", w("last"), "▶|", () => last),
    h("input", { type: "range", id: "scrub", min: 0, max: last, value: i, "aria-label": w("step"),
      oninput: (ev) => go(+ev.currentTarget.value, false) }));
}

function stepList() {
  return h("ol", { class: "rp-steps", id: "steps", tabindex: 0, "aria-label": w("steps") }, data.steps.map((st, n) =>
    h("li", {}, h("button", { "data-step": n, "aria-current": n === i ? "step" : false, class: n === i ? "cur" : "",
      onclick: () => go(n) }, h("span", { class: "n" }, `${n}`), ` ${say(st)}`, stepMark(n)))));
}

function render(scroll = true) {
  const st = data.steps[i];
  const v = st.view;
  const last = data.steps.length - 1;
  const kept = document.getElementById("steps")?.scrollTop || 0;
  $app.replaceChildren(
    h("div", { class: "bar" },
      h("h1", { class: "grow rp-title" }, `${w("replay")} · ${data.rules} · ${w("room")} ${code} · ${w("hand", { n: number })}`),
      fair ? h("span", { id: "fair", class: fair.ok ? "ok" : "muted", title: lang === "en" ? fair.en : fair.zh },
        `${fair.ok === true ? "✓" : fair.ok === false ? "✗" : "?"} ${w("fair")}`) : null,
      h("a", { href: `${base}/record`, download: "", id: "download" }, w("download")),
      h("button", { id: "lang", onclick: () => { setLang(lang === "zh" ? "en" : "zh"); document.documentElement.lang = lang; render(); } }, t("lang"))),
    controls(),
    reviewBar(data, base, who, go),
    h("div", { class: "rp-main" },
      h("div", { class: "rp-table" },
        h("div", { class: "centre" }, v.offer ? card(v.offer.kind, { size: "large" }) : null,
          h("div", { class: "info" }, h("div", { id: "step", "aria-live": "polite" }, `${i}/${last} · ${say(st)}`),
            h("div", { class: "muted" }, `${w("stock")} ${v.stock}`))),
        ...st.hands.map((_, s) => seatPanel(st, s)),
        i === last && v.result ? settlement(v) : null),
      stepList()));
  const cur = document.querySelector("#steps .cur");
  const list = document.getElementById("steps");
  // the current step in the middle of the list (the list scrolls, never the page), or the list where it was
  if (cur && list) list.scrollTop = scroll ? cur.parentElement.offsetTop - list.clientHeight / 2 : kept;
}
function go(n, scroll = true) { i = Math.max(0, Math.min(data.steps.length - 1, n)); render(scroll); }
function toggle() {
  if (timer) { clearInterval(timer); timer = null; } else timer = setInterval(() => { if (i >= data.steps.length - 1) toggle(); else go(i + 1); }, 700);
  render();
}
document.addEventListener("keydown", (ev) => {
  if (!data || ev.target instanceof HTMLInputElement || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (ev.key === "ArrowRight") { go(i + 1); ev.preventDefault(); }
  else if (ev.key === "ArrowLeft") { go(i - 1); ev.preventDefault(); }
});
fetch(`${base}/replay`).then(async (r) => {
  const d = await r.json();
  if (!r.ok) { $app.textContent = lang === "en" ? d.en : `${d.zh}（${d.en}）`; return; }
  data = d; reviewInit(render); render();
  const rec = await fetch(`${base}/record`);
  if (rec.ok) { fair = await verifyRecord(await rec.json()); render(false); }
}).catch(() => { $app.textContent = lang === "en" ? "The replay needs the server." : "回放需要连接服务器（The replay needs the server）。"; });
