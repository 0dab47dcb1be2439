// 复盘 on the replay page: the 复盘 button (the viewer's own seat, else one a seat), the review asked of the server
// (POST …/review, a few seconds in its bot pool), then the marks: the costly steps in the step list
// (「这一步可能少赢 2.1 分」, on the line of the action played) and, on the board at the moment of a reviewed
// decision (and the step after it), the options the bot weighed with their expected points, the better card
// outlined in the seat's hand.  The page carries no rules: the server sends every number.
import { card, kindOf } from "./cards.js";
import { h, words } from "./dom.js";
import { lang } from "./i18n.js";

const W = {
  zh: { review: "复盘", mine: "复盘我的打法", seatOf: "复盘 {name}", asking: "复盘中…（机器人模拟几秒）",
    costly: "这一步可能少赢 {x} 分", summary: "复盘 {name}：{k} 个选择里 {n} 步可能失分，共约 {x} 分",
    clean: "复盘 {name}：{k} 个选择，没有明显失分的一步", best: "最好", played: "实际", points: "{x} 分",
    fine: "这一步打得不错", jump: "第 {n} 步 −{x} 分", noise: "差别在模拟误差内", again: "重试", advice: "复盘 · 这一步的选择",
    note: "期望分：从这个座位当时看得到的牌，模拟 {w} 局算出；看不到的牌不用。" },
  en: { review: "Review", mine: "Review my play", seatOf: "Review {name}", asking: "Reviewing… (a few seconds of rollouts)",
    costly: "this step may have cost {x} points", summary: "Review of {name}: {n} of {k} decisions may have cost points, about {x} in all",
    clean: "Review of {name}: {k} decisions, none clearly costly", best: "best", played: "played", points: "{x} pts",
    fine: "a good choice", jump: "step {n} −{x}", noise: "the gap is within the rollouts' noise", again: "Try again", advice: "Review · the options here",
    note: "Expected points: from the cards this seat could see then, over {w} simulated deals; unseen cards are never used." },
};
const w = words(W, () => lang);
const state = { seat: null, body: null, asking: false, error: null };
let redraw = () => {};
const fmt = (x) => (x > 0 ? `+${x.toFixed(1)}` : x.toFixed(1));

/** Call once with the page's render function (drawn again when the review arrives). */
export function reviewInit(render) { redraw = render; }

/** The decision shown at replay step ``n``: the one made at that table (step ``n`` = the record's action ``n``
 * about to be played), else the one whose action step ``n`` shows; null when none. */
export function decisionAt(n) {
  if (!state.body) return null;
  const ds = state.body.decisions;
  return ds.find((d) => d.step === n) || ds.find((d) => d.step + 1 === n) || null;
}

async function ask(base, seat) {
  state.seat = seat; state.asking = true; state.error = null; state.body = null; redraw(false);
  try {
    for (;;) { // 202: being computed on the server; ask again after its Retry-After
      const r = await fetch(`${base}/review`, { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ seat }) });
      const d = await r.json();
      if (r.status === 202) { await new Promise((ok) => setTimeout(ok, 1000 * (+r.headers.get("retry-after") || 2))); continue; }
      if (r.ok) state.body = d; else state.error = lang === "en" ? d.en : `${d.zh}（${d.en}）`;
      break;
    }
  } catch {
    state.error = lang === "en" ? "The review needs the server." : "复盘需要连接服务器（The review needs the server）。";
  }
  state.asking = false; redraw(false);
}

/** The 复盘 bar under the controls: the button(s), the wait, the summary with a link to each costly step. */
export function reviewBar(data, base, who, go) {
  const sitsOut = data.steps[0].view.dijia; // the 底家 of the hand made no decision: nothing to review
  const seats = data.names.map((_, s) => s).filter((s) => s !== sitsOut);
  if (state.asking) return h("div", { class: "rv-bar", id: "reviewbar", "aria-live": "polite" }, h("span", { class: "muted" }, w("asking")));
  const buttons = data.mine !== null && data.mine !== undefined && data.mine !== sitsOut
    ? [h("button", { id: "review", onclick: () => ask(base, data.mine) }, w("mine"))]
    : seats.map((s) => h("button", { id: `review-${s}`, class: "rv-seat", onclick: () => ask(base, s) }, w("seatOf", { name: who(s) })));
  const kids = [];
  if (state.error) kids.push(h("span", { class: "rv-error", role: "alert" }, state.error));
  if (state.body) {
    const b = state.body;
    const name = who(b.seat);
    const flagged = b.flagged.map((step) => b.decisions.find((d) => d.step === step));
    kids.push(h("span", { id: "reviewsum" }, flagged.length
      ? w("summary", { name, k: b.decisions.length, n: flagged.length, x: b.lost.toFixed(1) })
      : w("clean", { name, k: b.decisions.length })));
    // each costly step's button goes to the moment of the decision: the card on offer, the hand before it
    kids.push(...flagged.map((d) => h("button", { class: "rv-jump", "data-step": d.step, onclick: () => go(d.step) },
      w("jump", { n: d.step + 1, x: d.loss.toFixed(1) }))));
    kids.push(...buttons.filter((el) => el.id !== `review-${b.seat}` && el.id !== "review")); // a visitor: the others
  } else kids.push(...buttons);
  return h("div", { class: "rv-bar", id: "reviewbar", "aria-live": "polite" }, ...kids);
}

/** The mark on step ``n``'s line in the step list, the line of a costly action (null for any other). */
export function stepMark(n) {
  const d = state.body ? state.body.decisions.find((x) => x.step + 1 === n) : null;
  return d && d.flagged ? h("span", { class: "rv-cost" }, w("costly", { x: d.loss.toFixed(1) })) : null;
}

/** On the board at step ``n``: the options of the decision shown there, for the reviewed seat's panel. */
export function advice(n, seat) {
  const d = decisionAt(n);
  if (!d || seat !== state.body.seat) return null;
  const said = (o) => (lang === "en" ? o.en : o.zh);
  const head = d.flagged ? w("costly", { x: d.loss.toFixed(1) }) : d.best.type === d.played.type && JSON.stringify(d.best) === JSON.stringify(d.played) ? w("fine") : w("noise");
  return h("div", { class: `rv-advice${d.flagged ? " costly" : ""}`, id: "advice", role: "note", "aria-label": w("advice") },
    h("div", { class: "rv-head" }, head),
    h("ol", { class: "rv-options" }, d.options.map((o, k) => {
      const played = JSON.stringify(o.action) === JSON.stringify(d.played);
      const tags = [k === 0 ? h("span", { class: "rv-tag best" }, w("best")) : null, played ? h("span", { class: "rv-tag played" }, w("played")) : null];
      const kind = o.action.type === "discard" || o.action.type === "bao" ? o.action.kind : null;
      return h("li", { class: `${k === 0 ? "best" : ""}${played ? " played" : ""}`, "data-mean": o.mean },
        kind !== null ? card(kind, { size: "mini" }) : null,
        h("span", { class: "rv-words" }, said(o)), ...tags,
        h("span", { class: "rv-pts" }, w("points", { x: fmt(o.mean) })));
    })),
    h("div", { class: "muted rv-note" }, w("note", { w: d.worlds })));
}

/** Outline, in the reviewed seat's hand at step ``n``, a card of the better discard (when it is not the played one). */
export function outlineBetter(panel, n, seat, hand) {
  const d = decisionAt(n);
  if (!d || !d.flagged || seat !== state.body.seat || !["discard", "bao"].includes(d.best.type)) return;
  const k = hand.findIndex((cid) => kindOf(cid) === d.best.kind);
  const el = k >= 0 ? panel.querySelectorAll(".rp-hand .card")[k] : null;
  if (el) { el.classList.add("rv-better"); el.title = `${el.title} · ${w("best")}`; }
}
