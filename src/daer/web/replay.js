// Replay of a finished hand, step by step, every hand open; the record downloads as JSON.
import { card, charOf, kindOf } from "./cards.js";
import { verifyRecord } from "./fairness.js";
import { lang } from "./i18n.js";
import "./pwa.js";

// /replay/{code}/{number}: a hand is reached through its room's code and its number in the match
const [code, number] = location.pathname.split("/").slice(2, 4).map(decodeURIComponent);
const base = `/api/rooms/${encodeURIComponent(code)}/hands/${encodeURIComponent(number)}`;
const $app = document.getElementById("app");
const zh = lang !== "en";
let data = null;
let i = 0;
let timer = null;
let fair = null;

const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "style") el.style.cssText = v; // CSSOM: allowed by the page's CSP
    else el.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) el.append(k);
  return el;
};
const names = { discard: ["打", "discard"], hu: ["胡", "hu"], zhao: ["招", "zhao"], peng: ["碰", "peng"], chi: ["吃", "chi"], pass: ["过", "pass"] };
const say = (a) => {
  if (!a) return zh ? "发牌" : "deal";
  const n = names[a.type][zh ? 0 : 1];
  const extra = a.type === "discard" ? ` ${charOf(a.kind)}` : a.type === "chi" ? ` ${a.hand.map(charOf).join("")}` : "";
  return `${zh ? "座" : "seat "}${a.seat + 1} ${n}${extra}`;
};

function render() {
  const st = data.steps[i];
  const v = st.view;
  const seats = st.hands.map((hand, s) => h("div", { class: "opp" },
    h("div", { class: "who" }, h("span", { class: "nm" }, `${zh ? "座" : "Seat "}${s + 1}`),
      s === v.dealer ? h("span", { class: "badge dealer" }, zh ? "庄" : "dealer") : null,
      s === v.dijia ? h("span", { class: "badge" }, zh ? "底家" : "sits out") : null),
    h("div", { class: "cardrow" }, hand.map((cid) => card(kindOf(cid), { size: "mid2" }))),
    h("div", { class: "melds" }, v.melds[s].map((m) => h("div", { class: "meld" }, m.kinds.map((k) => card(k, { size: "mini" }))))),
    h("div", { class: "discards" }, v.discards.filter(([d]) => d === s).map(([, k]) => card(k, { size: "mini" })))));
  const res = v.result ? h("div", { class: "panel", id: "result" }, v.result.winner === null ? (zh ? "黄牌" : "draw")
    : `${zh ? "赢家 座" : "winner seat "}${v.result.winner + 1} · ${v.result.hu}${zh ? "胡" : " hu"} · ${v.result.points.join(" / ")}`) : null;
  $app.replaceChildren(
    h("div", { class: "bar" }, h("span", { class: "grow" }, `${zh ? "回放" : "Replay"} · ${data.rules}`),
      fair ? h("span", { id: "fair", class: fair.ok ? "ok" : "muted", title: zh ? fair.zh : fair.en },
        `${fair.ok === true ? "✓" : fair.ok === false ? "✗" : "?"} ${zh ? "公平发牌" : "fair deal"}`) : null,
      h("a", { href: `${base}/record`, download: "", id: "download" }, zh ? "下载牌谱" : "Download record")),
    h("div", { class: "centre" }, v.offer ? card(v.offer.kind, { size: "large" }) : null,
      h("div", { class: "info" }, h("div", { id: "step" }, `${i}/${data.steps.length - 1} · ${say(st.action)}`),
        h("div", { class: "muted" }, `${zh ? "墩" : "stock"} ${v.stock}`))),
    ...seats, res,
    h("div", { class: "actions" },
      h("button", { onclick: () => go(0) }, "|◀"), h("button", { id: "prev", onclick: () => go(i - 1) }, "◀"),
      h("button", { id: "play", onclick: toggle }, timer ? "■" : "▶▶"), h("button", { id: "nextstep", onclick: () => go(i + 1) }, "▶"),
      h("button", { onclick: () => go(data.steps.length - 1) }, "▶|")));
}
function go(n) { i = Math.max(0, Math.min(data.steps.length - 1, n)); render(); }
function toggle() {
  if (timer) { clearInterval(timer); timer = null; } else timer = setInterval(() => { if (i >= data.steps.length - 1) toggle(); else go(i + 1); }, 700);
  render();
}
fetch(`${base}/replay`).then(async (r) => {
  const d = await r.json();
  if (!r.ok) { $app.textContent = zh ? `${d.zh}（${d.en}）` : d.en; return; }
  data = d; render();
  const rec = await fetch(`${base}/record`);
  if (rec.ok) { fair = await verifyRecord(await rec.json()); render(); }
});
