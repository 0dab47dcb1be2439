// Short moves that show what happened: a discard flies from its seat to the centre, a card nobody takes drops
// into its seat's discards, claimed cards fly from the centre into the claimer's 列; a banner calls 碰 / 吃 / 招 /
// 胡 / 黄. The Web Animations API (no inline style: the page's CSP allows none) and CSS keyframes; nothing moves
// when the player asks for reduced motion (prefers-reduced-motion), and style.css stops every CSS animation then.
const reduced = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const snap = { offer: null, seats: {}, from: null, fromAt: 0 };

// Before a redraw: where the card on offer and each seat's name line are now.
export function snapshot() {
  const o = document.getElementById("offercard");
  snap.offer = o ? o.getBoundingClientRect() : null;
  snap.seats = {};
  for (const el of document.querySelectorAll("#table .seat[data-seat]")) {
    snap.seats[el.dataset.seat] = (el.querySelector(".hand .card.sel") || el.querySelector(".who") || el).getBoundingClientRect();
  }
}

// The card one tapped to discard: the discard flies from there.
export function noteFrom(el) { snap.from = el.getBoundingClientRect(); snap.fromAt = Date.now(); }

function fly(el, from, ms = 300) {
  if (!el || !from || reduced() || !el.animate) return;
  const to = el.getBoundingClientRect();
  if (!to.width) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const s = Math.max(0.4, Math.min(2.5, from.width / to.width));
  el.animate([{ transform: `translate(${dx}px, ${dy}px) scale(${s})`, opacity: 0.5 }, { transform: "none", opacity: 1 }],
    { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" });
}

const seatEl = (s) => document.querySelector(`#table .seat[data-seat="${s}"]`);
const whoRect = (s) => snap.seats[s] || seatEl(s)?.querySelector(".who")?.getBoundingClientRect() || null;

// After a redraw: move the cards the update's events moved. `view` is the new view, `me` one's own seat.
export function animate(events, view, me) {
  for (const ev of events) {
    if (ev.type === "discarded" || ev.type === "revealed") {
      const mine = ev.type === "discarded" && ev.seat === me && Date.now() - snap.fromAt < 5000;
      fly(document.getElementById("offercard"), mine ? snap.from : whoRect(ev.seat));
      if (mine) snap.fromAt = 0;
    } else if (ev.type === "not_taken" && view.discards.length) {
      const owner = view.discards[view.discards.length - 1][0];
      const cards = seatEl(owner)?.querySelectorAll(".discards .card");
      if (cards && cards.length) fly(cards[cards.length - 1], snap.offer, 260);
    } else if (ev.type === "claimed") {
      const melds = seatEl(ev.seat)?.querySelectorAll(".melds .meld");
      if (!melds) continue;
      const from = snap.offer || whoRect(ev.seat);
      [...melds].slice(-ev.melds.length).forEach((m) => fly(m, from, 340));
    }
  }
}

// The big word in the middle of the table: 碰 / 吃 / 招 / 胡 / 黄; `who` under it. Outside the redrawn part of
// the page, never catches a tap (pointer-events: none), gone after 1.3 s.
export function banner(word, who, tone = "") {
  document.getElementById("banner")?.remove();
  const el = document.createElement("div");
  el.id = "banner";
  el.className = `banner ${tone}`;
  el.setAttribute("role", "status");
  const w = document.createElement("b"); w.textContent = word;
  const s = document.createElement("span"); s.textContent = who;
  el.append(w, s);
  document.body.append(el);
  setTimeout(() => el.remove(), 1300);
}
