// The event feed (牌局记录): every public action of the hand in words — "下家 碰 六", "上家 翻出 拾" — built only
// from the events this connection receives (its audience's form: another seat's face-down 偎 stays face down).
// The page carries no rules: it says what the server says happened. Newest first; on a phone one line that opens
// on a tap, on a wide screen a column beside the table.
import { charOf } from "./cards.js";
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";
import { gameWord as term } from "./words.js";

const F = { items: [], open: false };
const MAX = 400; // lines kept: a hand has ~100 events

// Take in the events of an update; `full`: the whole hand's log (a reload, a new hand): start over.
export function feedEvents(events, full) {
  if (full) F.items = [];
  for (const ev of events || []) {
    if (ev.type === "dealt") F.items = [];
    if (ev.type === "chose") continue; // one's own private answer: the table did not see it
    F.items.push(ev);
  }
  if (F.items.length > MAX) F.items.splice(0, F.items.length - MAX);
}

// A quick phrase or emote of a seat (phrases.js): a line of the feed, not an event of the hand.
export function feedSaid(seat, text) {
  F.items.push({ type: "said", seat, text });
  if (F.items.length > MAX) F.items.splice(0, F.items.length - MAX);
}

const cards = (kinds) => kinds.map(charOf).join("");

// One event in words, in the page's language. `who(seat)` names a seat (我 / 下家 / … or a spectator's names);
// `you(seat)`: that seat is the reader's own (English says "You discard", not "Me discards").
export function eventText(ev, who, you = () => false) {
  const en = lang === "en";
  const s = (seat, verb) => (you(seat) ? `You ${verb}` : `${who(seat)} ${verb}s`); // English subject and verb
  switch (ev.type) {
    case "dealt": {
      const parts = [`${t("dealer")} ${who(ev.dealer)}`];
      if (ev.dijia !== null && ev.dijia !== undefined) parts.push(`${t("dijia")} ${who(ev.dijia)}`);
      const bottoms = ev.bottoms && ev.bottoms.length ? ev.bottoms : ev.bottom !== null ? [ev.bottom] : [];
      if (bottoms.length) parts.push(`${t("bottom")} ${cards(bottoms)}`);
      return `${t("newHand")}${en ? ": " : "："}${parts.join(" · ")}`;
    }
    case "long": return en ? `${s(ev.seat, "lay")} down a ${term("long")} of ${charOf(ev.kind)}` : `${who(ev.seat)} ${term("long")} ${charOf(ev.kind)}`;
    case "discarded": return en ? `${s(ev.seat, "discard")} ${charOf(ev.kind)}` : `${who(ev.seat)} 打出 ${charOf(ev.kind)}`;
    case "revealed": return en ? `${s(ev.seat, "turn")} up ${charOf(ev.kind)}` : `${who(ev.seat)} 翻出 ${charOf(ev.kind)}`;
    case "face_down":
      if (ev.how === "draw") return en ? `${s(ev.seat, "draw")} a card face down` : `${who(ev.seat)} 摸了一张暗牌`;
      return en ? `${who(ev.seat)}: ${term(ev.how, { short: true })}, face down` : `${who(ev.seat)} ${term(ev.how)}（暗）`;
    case "claimed": {
      // the 列 laid down are worth saying for a 吃 (which run, and any 比); a 碰 or 招 says it all
      const melds = ev.how === "chi" || ev.melds.length > 1 ? ev.melds.map(cards).join(en ? " + " : " ") : "";
      const word = term(ev.how, { short: true });
      const tail = melds ? (en ? ` (${melds})` : `（${melds}）`) : "";
      return en ? `${who(ev.seat)}: ${word} ${charOf(ev.kind)}${tail}` : `${who(ev.seat)} ${word} ${charOf(ev.kind)}${tail}`;
    }
    case "not_taken": return en ? `nobody takes ${charOf(ev.kind)}` : `${charOf(ev.kind)} 没人要`;
    case "bao": return en ? `${s(ev.seat, "declare")} ready (报牌)` : `${who(ev.seat)} 报牌`;
    case "ended":
      if (ev.winner === null || ev.winner === undefined) return `${t("draw")}`;
      return en ? `${s(ev.winner, "win")} · ${ev.hu} hu` : `${who(ev.winner)} 胡了 · ${ev.hu}胡`;
    case "said": return `${who(ev.seat)}${en ? ": " : "："}${ev.text}`;
    default: return ev.type;
  }
}

// the kind of line, for its colour: claims and wins stand out
const tone = (ev) => (ev.type === "claimed" || ev.type === "long" || ev.type === "face_down" && ev.how !== "draw" ? "claim"
  : ev.type === "ended" ? "end" : ev.type === "dealt" ? "deal" : ev.type === "said" ? "said" : "");

export function feedEl(ctx) {
  const who = (s) => ctx.rel(s);
  const you = (s) => !ctx.spectating() && s === ctx.S.seat;
  const lines = F.items.map((ev) => h("li", { class: tone(ev) }, eventText(ev, who, you))).reverse();
  const toggle = h("button", { class: "feedhead", id: "feedtoggle", "aria-expanded": F.open ? "true" : "false",
    "aria-controls": "feedlist", onclick: () => { F.open = !F.open; ctx.render(); } },
  h("span", { class: "lbl" }, t("feed")), h("span", { class: "latest" }, lines.length ? lines[0].textContent : "—"),
  h("span", { class: "chev", "aria-hidden": "true" }, F.open ? "▴" : "▾"));
  return h("section", { class: `feed${F.open ? " open" : ""}`, id: "feed", "aria-label": t("feed") },
    toggle, h("ol", { id: "feedlist", tabindex: 0 }, lines));
}
