// The table in play: the other seats around it, the card on offer, one's own hand and the choices offered.
// Everything comes from the seat's view (view.legal for the choices): the page decides nothing about the rules.
// Layout: on a phone one column — the other seats (scrolling among themselves if they must), the centre, the
// feed (one line, opens on a tap), then one's own seat with its choice bar above the hand, so the hand is always on
// screen and nothing lies over it. From 900 px wide a grid: 上家 left, 对家 top, 下家 right, the feed at the side.
import { card, charOf, kindOf } from "./cards.js";
import { h } from "./dom.js";
import { feedEl } from "./feed.js";
import { lang, t } from "./i18n.js";
import { isMuted, setMuted } from "./sound.js";
import { gameWord, setPreset } from "./words.js";

// where each other seat sits, by its offset from one's own seat (play passes to 下家, on the right)
const POS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };
const WIDE = 900; // px: from here on the grid layout (style.css says the same)
// a phone held sideways (table.css says the same): the seats at the sides and top, the choices beside the hand
export const landscape = () => window.matchMedia("(orientation: landscape) and (max-height: 520px)").matches && window.innerWidth < 1100;

export function table(u, ctx) {
  const { view, room } = u;
  const { S } = ctx;
  const n = room.seats.length;
  const spect = ctx.spectating();
  const me = spect ? 0 : S.seat;
  setPreset(room.rules, ctx.render);
  const opps = [];
  for (let i = spect ? 0 : 1; i < n; i++) { // a spectator sees every seat, seat 1 included
    const s = (me + i) % n;
    opps.push(seatPanel(u, ctx, s, (POS[n] || POS[4])[i] || "top"));
  }
  const parts = [h("div", { class: "opps", tabindex: 0 }, opps), centre(u, ctx), feedEl(ctx)];
  if (!spect) parts.push(mySeat(u, ctx));
  return h("div", { class: `table seats${n}${spect ? " watching" : ""}`, id: "table" }, parts);
}

// -- the other seats --------------------------------------------------------------------------------
function turnOf(view, s) { return view.phase === "discard" && view.actor === s; }

function seatPanel(u, ctx, s, pos) {
  const { view, room } = u;
  const seat = room.seats[s];
  const out = s === view.dijia && !view.players.includes(s); // the 底家 sits the hand out: one line
  const cls = `seat opp${turnOf(view, s) ? " turn" : ""}${out ? " out" : ""}`;
  const nm = ctx.spectating() ? `${s + 1} · ${seat.name || t("emptySeat")}` : `${ctx.rel(s)} · ${seat.name || t("emptySeat")}`;
  return h("div", { class: cls, "data-seat": s, "data-pos": pos },
    h("div", { class: "who" }, h("span", { class: "nm" }, nm), ...badges(room, view, s), h("span", { class: "grow" }),
      out ? null : h("span", { class: "stat" }, `${t("hands2")} ${view.hand_sizes[s]}`),
      h("span", { class: "stat score" }, `${t("score")} ${ctx.amt(seat.score)}`)),
    out ? null : tableCards(view, s));
}

// a seat's melds and its discards, each row labelled; the latest discard of the hand is marked
function tableCards(view, s) {
  const melds = view.melds[s];
  const last = view.discards.length - 1;
  const disc = view.discards.map(([ds, k], i) => [ds, k, i]).filter(([ds]) => ds === s);
  if (!melds.length && !disc.length) return null;
  return h("div", { class: "tcards" },
    melds.length ? h("div", { class: "line melds-line" }, h("span", { class: "lbl" }, t("meldsLbl")), meldsEl(melds)) : null,
    disc.length ? h("div", { class: "line discards-line" }, h("span", { class: "lbl" }, t("discardsLbl")),
      h("div", { class: "discards" }, disc.map(([, k, i]) => {
        const c = card(k, { size: "mini" });
        if (i === last && !view.offer) { c.classList.add("last"); c.setAttribute("aria-label", t("lastDiscard")); }
        return c;
      }))) : null);
}

export function meldsEl(melds) {
  // a face-down meld (跑胡子's 偎): its owner sees its kinds, the others m.down card backs
  const cards = (m) => (m.down && !m.kinds.length ? Array(m.down).fill(null) : m.kinds);
  return h("div", { class: "melds" }, melds.map((m) =>
    h("div", { class: m.down ? "meld down" : "meld", "data-kind": m.kind },
      h("div", { class: "cardrow" }, cards(m).map((k) => card(k, { size: "mini" }))),
      h("span", { class: "mk" }, gameWord(m.kind, { short: true })))));
}

function badges(room, view, s) {
  const seat = room.seats[s];
  return [
    s === view.dealer ? h("span", { class: "badge dealer" }, t("dealer")) : null,
    s === view.dijia ? h("span", { class: "badge dijia" }, t("dijia")) : null,
    seat.auto ? h("span", { class: "badge auto" }, t("auto")) : null,
    seat.kind === "human" && !seat.online ? h("span", { class: "badge off" }, t("offline")) : null,
    turnOf(view, s) ? h("span", { class: "badge turn" }, t("turn")) : null,
  ];
}

// -- the centre: the card on offer, the stock, the countdown -----------------------------------------
function centre(u, ctx) {
  const { view } = u;
  const offer = view.offer;
  const offerCard = offer ? card(offer.kind, { size: "large" }) : null;
  if (offerCard) { offerCard.classList.add("offer"); offerCard.id = "offercard"; }
  return h("div", { class: "centre", id: "centre" },
    h("div", { class: "offerslot", id: "offer" }, offerCard),
    h("div", { class: "info" },
      offer ? h("div", { class: "offerline" }, `${ctx.rel(offer.owner)} ${offer.source === "reveal" ? t("fromReveal") : t("fromDiscard")} ${charOf(offer.kind)}`) : null,
      h("div", { class: "muted" }, `${t("stock")} ${view.stock}`, bottomText(view)),
      status(view, ctx)),
    timerEl(u, ctx));
}

function status(view, ctx) {
  if (view.to_act && view.phase === "discard") return h("div", { class: "st mine" }, t("yourTurn"));
  if (view.to_act) return h("div", { class: "st mine" }, t("deciding"));
  if (view.phase === "claim") return h("div", { class: "muted st", id: "waitothers" }, t("waitOthers"));
  if (view.phase === "discard" && view.actor !== null) return h("div", { class: "muted st" }, t("seatToPlay", { who: ctx.rel(view.actor) }));
  return null;
}

// the face-up bottom cards: one shown card, or 隆昌's two dead ones (view.bottoms; older views: view.bottom)
function bottomText(view) {
  const kinds = view.bottoms && view.bottoms.length ? view.bottoms : view.bottom !== null ? [view.bottom] : [];
  return kinds.length ? ` · ${t("bottom")} ${kinds.map(charOf).join("")}` : "";
}

// one's own countdown as a ring that empties (room.deadline is this seat's own; others' are not sent)
function timerEl(u, ctx) {
  const secs = secondsLeft(ctx.S);
  if (secs === null) return null;
  const el = h("div", { class: "timer", id: "timer", role: "timer", "aria-label": t("secondsLeft") }, h("span", {}, `${secs}`));
  paintTimer(el, secs, u.room.timer);
  return el;
}

export function secondsLeft(S) {
  return S.deadlineAt ? Math.max(0, Math.ceil((S.deadlineAt - Date.now()) / 1000)) : null;
}

function paintTimer(el, secs, total) {
  el.style.setProperty("--p", `${total > 0 ? Math.min(1, secs / total) : 0}`);
  el.classList.toggle("low", secs <= 5);
}

// every half second: the countdown's number and ring; returns the seconds left (null: no countdown)
export function updateTimer(S) {
  const el = document.getElementById("timer");
  const secs = secondsLeft(S);
  if (el && secs !== null) {
    el.firstChild.textContent = `${secs}`;
    paintTimer(el, secs, S.upd?.room.timer || 0);
  }
  return el ? secs : null;
}

// -- one's own seat: melds and discards, the choice bar, the hand -----------------------------------
function mySeat(u, ctx) {
  const { view, room } = u;
  const { S } = ctx;
  const seat = room.seats[S.seat];
  const legal = view.legal;
  const discardable = new Set(legal.filter((a) => a.type === "discard").map((a) => a.kind));
  const byKind = new Map();
  for (const cid of view.hand) { const k = kindOf(cid); if (!byKind.has(k)) byKind.set(k, []); byKind.get(k).push(cid); }
  const kinds = [...byKind.keys()].sort((a, b) => (a % 10) - (b % 10) || a - b);
  const offerKind = view.offer ? view.offer.kind : null;
  const handEl = h("div", { class: "hand", id: "hand" }, kinds.map((k) => h("div", { class: "col" },
    byKind.get(k).map((cid) => {
      const c = card(k, { cid });
      if (discardable.has(k)) {
        c.classList.add("ok");
        if (S.sel === k) c.classList.add("sel");
        c.addEventListener("click", () => {
          ctx.noteDiscardFrom(c);
          if (S.sel === k) ctx.act(legal.find((a) => a.type === "discard" && a.kind === k));
          else { S.sel = k; ctx.render(); document.querySelector(`#hand .card.sel[data-cid="${cid}"]`)?.focus(); }
        });
        // the keyboard too: Tab to a card, Enter or Space to choose it, again to discard it
        c.tabIndex = 0; c.setAttribute("role", "button"); // its name is its face (壹): the 打 button says the rest
        c.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); c.click(); } });
      } else if (discardable.size) c.classList.add("dim");
      if (k === offerKind && view.to_act && view.phase === "claim") c.classList.add("match"); // the kind on offer
      return c;
    }))));
  handEl.style.setProperty("--cw", `${cardWidth(kinds.length)}px`);
  return h("div", { class: `seat me${view.to_act ? " turn" : ""}`, "data-seat": S.seat, "data-pos": "me", id: "me" },
    h("div", { class: "who" }, h("span", { class: "nm" }, `${t("you")} · ${seat.name}`), ...badges(room, view, S.seat),
      h("span", { class: "grow" }), h("span", { class: "stat score" }, `${t("score")} ${ctx.amt(seat.score)}`)),
    h("div", { class: "mine" }, tableCards(view, S.seat), // one's melds, discards and 叫牌 share rows while they fit
      u.waits.length ? h("div", { class: "waits", id: "waits" }, `${t("waitsHint")}:`,
        u.waits.map(([k, hu]) => h("span", { class: "row" }, card(k, { size: "mini" }), `${hu}${t("hu")}`))) : null),
    actionBar(u, ctx),
    handEl);
}

// the hand's card width: every column fits across the seat (phone: the screen; desktop: beside the feed)
function cardWidth(columns) {
  const w = window.innerWidth;
  if (landscape()) { // a phone held sideways: the hand shares the width with the choice bar beside it (table.css)
    const cw = Math.floor((w * 0.64 - 16) / Math.max(columns, 1)) - 2;
    return Math.max(14, Math.min(cw, Math.floor(window.innerHeight * 0.36 / 5.2), 30));
  }
  const avail = w >= WIDE ? Math.min(w - 340, 1100) : w - 12;
  const cw = Math.floor(avail / Math.max(columns, 1)) - 2; // 2 px between columns
  // a desktop's hand is also bounded by the height (a column of four is 5.8 card widths tall); twenty kinds
  // in a hand still fit a 360 px phone at 15 px
  return Math.max(14, Math.min(cw, w >= WIDE ? Math.min(46, Math.floor(window.innerHeight / 20)) : 30));
}

// What one may do, drawn as the cards it would lay down: 吃 with its 列 and each 比 列, 碰/招 with their cards,
// 胡 and 过 as words; the chosen card's 打; 托管's way back. A bar above the hand, in the flow: it covers nothing.
function actionBar(u, ctx) {
  const { view, room } = u;
  const { S } = ctx;
  const seat = room.seats[S.seat];
  const items = [];
  if (seat.auto) items.push(h("button", { class: "primary", id: "resume", onclick: () => ctx.cmd("resume") }, `${t("autoOn")} · ${t("resume")}`));
  const offerKind = view.offer ? view.offer.kind : null;
  // 提示 (a room with hints): the bot's suggestion and why, sent to this seat only while it has to decide
  const tip = u.hint && view.to_act ? u.hint : null;
  if (tip) items.push(h("span", { class: "tishi", id: "tishi" }, `${t("tishi")}${lang === "en" ? `: ${tip.en}` : `：${tip.zh}`}`));
  for (const a of view.legal.filter((x) => x.type !== "discard")) {
    const b = choiceButton(a, offerKind, ctx);
    if (tip && sameAction(a, tip.action)) b.classList.add("suggested");
    items.push(b);
  }
  if (S.sel !== null) {
    const a = view.legal.find((x) => x.type === "discard" && x.kind === S.sel);
    if (a) {
      const pic = card(a.kind, { size: "mini" });
      pic.setAttribute("aria-hidden", "true");
      items.push(h("button", { class: "primary choice discard", "data-action": "discard", disabled: S.busy,
        onclick: () => ctx.act(a) },
      h("span", { class: "w", "aria-hidden": "true" }, t("discard")), pic, h("span", { class: "sr" }, describe(a))));
    }
  }
  if (!items.length && view.to_act && view.phase === "discard") items.push(h("span", { class: "hint" }, t("tapTwice")));
  return h("div", { class: `actions${items.length ? "" : " idle"}`, id: "actions" }, items);
}

// the same action (the server's hint names one of view.legal exactly)
const sameAction = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Keys on a keyboard: 1-9 take the n-th choice of the bar (过 included), as the small number on each says.
document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement?.tagName || "")) return;
  if (!/^[1-9]$/.test(ev.key)) return;
  const b = document.querySelectorAll("#table #actions button.choice:not(.discard)")[+ev.key - 1];
  if (b && !b.disabled) { ev.preventDefault(); b.click(); }
});

function choiceButton(a, offerKind, ctx) {
  const groups = [];
  const group = (kinds, mark) => {
    const row = h("div", { class: "cardrow" });
    let marked = false;
    for (const k of kinds) {
      const c = card(k, { size: "mini" });
      if (!marked && mark !== null && k === mark) { c.classList.add("taken"); marked = true; }
      row.append(c);
    }
    return row;
  };
  if (a.type === "peng" && offerKind !== null) groups.push(group([offerKind, offerKind, offerKind], offerKind));
  if (a.type === "zhao" && offerKind !== null) groups.push(group([offerKind, offerKind, offerKind, offerKind], offerKind));
  if (a.type === "chi") {
    groups.push(group([...a.hand, offerKind].sort((x, y) => x - y), offerKind));
    for (const g of a.bi) groups.push(h("span", { class: "bi" }, t("bi")), group(g, null));
  }
  if (a.type === "bao") groups.push(group([a.kind], null));
  // the button's name is its choice in words (describe, in a screen-reader-only span); the word and the cards
  // drawn are hidden from screen readers (an aria-label would not contain the cards' text: axe)
  for (const g of groups) g.setAttribute("aria-hidden", "true");
  const w = gameWord(a.type, { short: true });
  const word = { hu: t("winHu"), pass: t("pass"), bao: t("bao") }[a.type] || w[0].toUpperCase() + w.slice(1);
  return h("button", { class: `choice ${a.type}`, "data-action": a.type, disabled: ctx.S.busy,
    onclick: () => ctx.act(a) }, h("span", { class: "w", "aria-hidden": "true" }, word), groups, h("span", { class: "sr" }, describe(a, offerKind)), h("kbd", { "aria-hidden": "true" }));
}

// a choice in words (the button's accessible name): 吃 肆伍陆 比 陆柒捌
export function describe(a, offerKind) {
  if (a.type === "hu") return t("winHu");
  if (a.type === "pass") return t("pass");
  if (a.type === "peng" || a.type === "zhao") return `${gameWord(a.type, { short: true })} ${charOf(offerKind)}`;
  if (a.type === "discard") return `${t("discard")} ${charOf(a.kind)}`;
  if (a.type === "bao") return `${t("bao")} ${charOf(a.kind)}`;
  if (a.type === "chi") {
    const main = [...a.hand, offerKind].sort((x, y) => x - y).map(charOf).join("");
    const bi = a.bi.map((g) => g.map(charOf).join("")).join(" ");
    return `${gameWord("chi", { short: true })} ${main}${bi ? ` ${t("bi")} ${bi}` : ""}`;
  }
  return a.type;
}


// the sound switch (sound and vibration), remembered on this device: a speaker drawn in SVG (no emoji font needed)
const SVGNS = "http://www.w3.org/2000/svg";
function speaker(off) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24"); svg.setAttribute("width", "20"); svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  const path = (d, fill) => { const p = document.createElementNS(SVGNS, "path"); p.setAttribute("d", d);
    p.setAttribute("fill", fill ? "currentColor" : "none"); p.setAttribute("stroke", "currentColor");
    p.setAttribute("stroke-width", "2"); p.setAttribute("stroke-linecap", "round"); svg.append(p); };
  path("M4 9h4l5-4v14l-5-4H4z", true);
  if (off) path("M16 9l5 6M21 9l-5 6", false);
  else { path("M16 8.5a5 5 0 0 1 0 7", false); path("M18.5 6a8.5 8.5 0 0 1 0 12", false); }
  return svg;
}
export function muteButton(render) {
  const off = isMuted();
  return h("button", { id: "mute", "aria-pressed": off ? "true" : "false", "aria-label": t("mute"),
    title: off ? t("soundOff") : t("soundOn"), onclick: () => { setMuted(!isMuted()); render(); } }, speaker(off));
}
