// Quick phrases (快捷语) and emotes: a fixed list from GET /api/options, sent by a tap (no free text), shown as a
// bubble at the sender's seat and in the feed, the phrase spoken (web/voice/say-<id>.wav, made by
// scripts/make_voice.sh). A per-seat mute, remembered on this device for the room ("daer.hush.<code>").
import { h, words } from "./dom.js";
import { feedSaid } from "./feed.js";
import { lang } from "./i18n.js";
import { loadOptions, optionsNow } from "./lobby.js";
import { playVoice } from "./sound.js";

const pw = words({
  zh: { say: "快捷语", phrases: "快捷语", emotes: "表情", hush: "屏蔽某人的快捷语", hushed: "已屏蔽", close: "关闭",
    sichuan: "四川话", tooFast: "" },
  en: { say: "Phrases", phrases: "Phrases", emotes: "Emotes", hush: "Mute a seat's phrases", hushed: "muted", close: "Close",
    sichuan: "Sichuanese", tooFast: "" },
}, () => lang);

const P = { open: false };
const hushKey = (code) => `daer.hush.${code}`;
export function hushed(code) {
  try { return new Set(JSON.parse(localStorage.getItem(hushKey(code)) || "[]")); } catch { return new Set(); }
}
function setHushed(code, seat, on) {
  const s = hushed(code);
  if (on) s.add(seat); else s.delete(seat);
  localStorage.setItem(hushKey(code), JSON.stringify([...s]));
}

const textOf = (id) => {
  const o = optionsNow();
  const p = o?.phrases?.find((x) => x.id === id);
  if (p) return lang === "en" ? p.en : p.zh;
  const e = o?.emotes?.find((x) => x.id === id);
  return e ? e.glyph : null;
};

// The bar's button (seated people only: spectators cannot send).
export function sayButton(ctx) {
  if (ctx.spectating()) return null;
  loadOptions();
  return h("button", { id: "saybtn", "aria-label": pw("say"), title: pw("say"), "aria-expanded": P.open ? "true" : "false",
    onclick: () => { P.open = !P.open; ctx.render(); } }, h("img", { src: "/static/chat.svg", alt: "", width: 20, height: 20 }));
}

// The sheet of phrases, emotes and the per-seat mute.
export function saySheet(room, ctx) {
  if (!P.open || ctx.spectating()) return null;
  const o = optionsNow();
  if (!o?.phrases) { loadOptions().then(() => ctx.render()); return null; }
  const send = (id) => { ctx.send({ t: "say", id: ctx.newId(), what: id }); P.open = false; ctx.render(); };
  const hs = hushed(room.code);
  const others = room.seats.filter((s) => s.seat !== ctx.S.seat && s.kind === "human");
  const btn = (p) => h("button", { class: "phrase", "data-say": p.id, onclick: () => send(p.id) }, lang === "en" ? p.en : p.zh);
  return h("div", { class: "overlay saysheet", id: "saysheet", role: "dialog", "aria-modal": "true", "aria-label": pw("say"),
    onclick: (ev) => { if (ev.target === ev.currentTarget) { P.open = false; ctx.render(); } } },
  h("div", { class: "sheet" },
    h("div", { class: "phrases" }, o.phrases.filter((p) => p.id.startsWith("p")).map(btn)),
    h("h3", {}, pw("sichuan")),
    h("div", { class: "phrases" }, o.phrases.filter((p) => p.id.startsWith("s")).map(btn)),
    h("h3", {}, pw("emotes")),
    h("div", { class: "emotes" }, o.emotes.map((e) => h("button", { class: "emote", "data-say": e.id, "aria-label": lang === "en" ? e.en : e.zh, onclick: () => send(e.id) }, e.glyph))),
    others.length ? h("h3", {}, pw("hush")) : null,
    h("div", { class: "hush" }, others.map((s) => h("label", {},
      h("input", { type: "checkbox", id: `hush${s.seat}`, checked: hs.has(s.seat), onchange: (ev) => { setHushed(room.code, s.seat, ev.currentTarget.checked); } }),
      ` ${ctx.rel(s.seat)} · ${s.name}`))),
    h("p", {}, h("button", { id: "sayclose", onclick: () => { P.open = false; ctx.render(); } }, pw("close")))));
}

// A phrase or emote arrived: unless that seat is muted here, a bubble at its seat, a line in the feed, the voice.
export async function onSaid(m, ctx) {
  const room = ctx.S.upd?.room;
  if (!room || hushed(room.code).has(m.seat)) return;
  await loadOptions();
  const text = textOf(m.what);
  if (!text) return;
  feedSaid(m.seat, text);
  ctx.render();
  const at = document.querySelector(`.seat[data-seat="${m.seat}"], .seatlist [data-seat="${m.seat}"]`);
  const r = at ? at.getBoundingClientRect() : { left: 8, top: 48, width: 0 };
  const b = h("div", { class: "bubble", role: "status", "data-seat": m.seat }, text);
  document.body.append(b);
  const w = Math.min(b.offsetWidth, window.innerWidth - 8);
  b.style.left = `${Math.max(4, Math.min(window.innerWidth - w - 4, r.left + r.width / 2 - w / 2))}px`;
  b.style.top = `${Math.max(4, Math.min(window.innerHeight - b.offsetHeight - 4, r.top + 4))}px`;
  setTimeout(() => b.remove(), 3000);
  if (m.what.startsWith("p") || m.what.startsWith("s")) playVoice(`say-${m.what}`);
}
