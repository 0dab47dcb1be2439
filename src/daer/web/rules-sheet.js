// The rules in force, from what the server sends: the room's ruleset and overrides (room.rules,
// room.overrides), its match settings, and the options' labels and defaults (GET /api/options).
// Shown in the waiting room (rulesPanel) and on the table in a sheet that opens from the 规则 button.
import { h, words } from "./dom.js";
import { lang, t } from "./i18n.js";
import { loadOptions, optionLabel, optionsNow, rulesetInfo, sameValue, valueText } from "./lobby.js";

const W = {
  zh: {
    rules: "规则", title: "本桌规则", close: "关闭", hands: "局数", timer: "出牌计时", none: "不限", secs: "{n} 秒",
    bot: "机器人", house: "自定规则", changedHouse: "本桌改过的规则", noChanges: "没有改规则：全按默认。",
    allRules: "全部可改规则（{n} 项）", changedTag: "改", dflt: "默认 {v}",
    pace: "节奏", pace_fast: "快", pace_normal: "标准", pace_slow: "慢", // the lobby's words for the room's pace
  },
  en: {
    rules: "Rules", title: "Rules at this table", close: "Close", hands: "Hands", timer: "Turn timer", none: "none",
    secs: "{n} s", bot: "Bots", house: "House rules", changedHouse: "Changed at this table",
    noChanges: "No house rule changed: all defaults.", allRules: "Every house rule ({n})", changedTag: "changed",
    dflt: "default {v}", pace: "Pace", pace_fast: "fast", pace_normal: "normal", pace_slow: "slow",
  },
};
const w = words(W, () => lang);

function optionRow(o, v, changed) {
  return h("div", { class: changed ? "rule changed" : "rule", "data-rule": o.path },
    h("span", { class: "grow" }, optionLabel(o), changed ? h("span", { class: "dflt" }, w("dflt", { v: valueText(o, o.default) })) : null),
    h("b", { class: "val" }, valueText(o, v)), changed ? h("span", { class: "badge changedtag" }, w("changedTag")) : null);
}

function fill(box, room, opts, full) {
  const info = rulesetInfo(opts, room.rules);
  const over = room.overrides || {};
  const rows = info.house.map((o) => {
    const changed = o.path in over && !sameValue(o, over[o.path], o.default);
    return { o, v: o.path in over ? over[o.path] : o.default, changed };
  });
  // overrides the options list does not describe (an older room): shown as they are
  const known = new Set(info.house.map((o) => o.path));
  const extra = Object.entries(over).filter(([k]) => !known.has(k))
    .map(([k, v]) => h("div", { class: "rule changed", "data-rule": k }, h("span", { class: "grow" }, k), h("b", { class: "val" }, String(v))));
  const changed = rows.filter((r) => r.changed);
  const bot = room.bot ? (t(`bot_${room.bot}`) === `bot_${room.bot}` ? room.bot : t(`bot_${room.bot}`)) : "";
  box.replaceChildren(...[ // (replaceChildren would write a null as "null")
    full ? null : h("h2", {}, w("rules")),
    h("div", { class: "rulesettitle" }, h("b", { id: "rulestitle" }, info.title)),
    info.description ? h("p", { class: "muted" }, info.description) : null,
    h("p", { class: "settings" }, `${w("hands")} ${room.hands} · ${w("timer")} ${room.timer ? w("secs", { n: room.timer }) : w("none")}`,
      bot ? ` · ${w("bot")} ${bot}` : "",
      // 节奏 (room.pace): an unknown value is shown as it is; a server that does not send it says nothing
      room.pace ? h("span", { class: "pace", "data-pace": room.pace },
        ` · ${w("pace")} ${W.zh["pace_" + room.pace] ? w("pace_" + room.pace) : room.pace}`) : null),
    h("div", { class: "rulehead" }, w("changedHouse")),
    changed.length || extra.length ? h("div", { class: "rules", id: "changedrules" }, changed.map((r) => optionRow(r.o, r.v, true)), extra)
      : h("p", { class: "muted", id: "nochanges" }, w("noChanges")),
    rows.length ? (full
      ? h("div", {}, h("div", { class: "rulehead" }, w("allRules", { n: rows.length })),
        h("div", { class: "rules", id: "allrules" }, rows.map((r) => optionRow(r.o, r.v, r.changed))))
      : h("details", { class: "allrules" }, h("summary", {}, w("allRules", { n: rows.length })),
        h("div", { class: "rules", id: "allrules" }, rows.map((r) => optionRow(r.o, r.v, r.changed))))) : null,
  ].filter(Boolean));
}

// The rules of a room as a block (drawn at once when the options are loaded, else as soon as they are).
export function rulesPanel(room, { full = false, id = "roomrules" } = {}) {
  const box = h("div", { class: "rulesbox", id });
  const opts = optionsNow();
  if (opts) fill(box, room, opts, full);
  else loadOptions().then((o) => fill(box, room, o, full));
  return box;
}

// The 规则 sheet on the table: an overlay with the rules in force; closes on its button, a tap outside or Esc.
export function openRulesSheet(room) {
  closeRulesSheet();
  const close = h("button", { id: "rulesclose", class: "primary", onclick: closeRulesSheet }, w("close"));
  const sheet = h("div", { class: "overlay", id: "rulesheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "rulesheettitle",
    onclick: (e) => { if (e.target === sheet) closeRulesSheet(); } },
  h("div", { class: "sheet" }, h("div", { class: "row" }, h("h2", { class: "grow", id: "rulesheettitle" }, w("title")), close),
    rulesPanel(room, { full: true, id: "sheetrules" })));
  document.body.append(sheet);
  document.addEventListener("keydown", onKey);
  close.focus();
}
// A modal dialog keeps the keyboard inside it: Tab and Shift+Tab cycle through its controls (focus that got
// outside, e.g. by a click on the page behind, is brought back in).
const FOCUSABLE = "button, [href], input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";
function onKey(e) {
  if (e.key === "Escape") { closeRulesSheet(); return; }
  const sheet = document.getElementById("rulesheet");
  if (e.key !== "Tab" || !sheet) return;
  const items = [...sheet.querySelectorAll(FOCUSABLE)].filter((el) => !el.disabled && el.getClientRects().length);
  if (!items.length) return;
  const first = items[0], last = items[items.length - 1], at = document.activeElement;
  if (!sheet.contains(at)) { e.preventDefault(); first.focus(); }
  else if (e.shiftKey && at === first) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && at === last) { e.preventDefault(); first.focus(); }
}
export function closeRulesSheet() {
  const sheet = document.getElementById("rulesheet");
  document.removeEventListener("keydown", onKey);
  if (!sheet) return;
  const inside = sheet.contains(document.activeElement);
  sheet.remove();
  // focus goes back to the 规则 button that opened the sheet (drawn anew by each update, so looked up now)
  if (inside || document.activeElement === document.body) document.getElementById("rulesbtn")?.focus();
}

// The top bar's 规则 button.
export const rulesButton = (room) => h("button", { id: "rulesbtn", onclick: () => openRulesSheet(room) }, w("rules"));
loadOptions(); // early: the rules sheet and the settlement name the ruleset by its title
