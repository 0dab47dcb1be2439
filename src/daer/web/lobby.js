// The lobby's rule choices in players' words: rulesets by their Chinese name with a one-line description, and
// the house rules as a form built from GET /api/options (switches, choices, numbers; labels and defaults come
// from the server's ruleset data — this page carries no rules). Also the options' cache and the words that
// show an option's value, shared with the rules sheet (rules-sheet.js).
import { h, words } from "./dom.js";
import { lang } from "./i18n.js";

const W = {
  zh: {
    ruleset: "玩法", house: "自定规则", allDefault: "都按默认", changed: "已改 {n} 项", reset: "恢复默认",
    dflt: "默认 {v}", on: "开", off: "关", yuan: "{v} 元", houseHint: "不改就按这个玩法的默认规则。",
  },
  en: {
    ruleset: "Game", house: "House rules", allDefault: "all default", changed: "{n} changed", reset: "Reset",
    dflt: "default {v}", on: "on", off: "off", yuan: "{v} yuan", houseHint: "Leave them as they are for the game's own rules.",
  },
};
const w = words(W, () => lang);

// Words for the values of a `choice` option that are not numbers (scoring.mode).
const CHOICE_WORDS = { deng: ["算等", "points by 等"], money: ["付钱", "money"], mingtang: ["名堂", "名堂"],
  fan: ["番", "番"], huayang: ["花样", "花样"] };

const FALLBACK = { presets: ["luzhou"], rulesets: [], bots: ["heuristic"], house: {}, bounds: {} };
let cached = null;
let pending = null;
// GET /api/options once per page (the rules do not change while the page is open).
export function loadOptions() {
  if (cached) return Promise.resolve(cached);
  pending ??= fetch("/api/options").then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${r.status}`))))
    .then((o) => { cached = o; return o; })
    .catch(() => { pending = null; return FALLBACK; });
  return pending;
}
export const optionsNow = () => cached; // null until loaded

// A ruleset's name, description and house options as the server describes them.
export function rulesetInfo(opts, name) {
  const r = (opts?.rulesets || []).find((x) => x.name === name);
  return {
    name,
    title: r ? (lang === "en" ? r.en : r.zh) : name,
    description: r ? (lang === "en" ? r.description_en : r.description_zh) : "",
    house: opts?.house?.[name] || [],
  };
}

export const optionLabel = (o) => (lang === "en" ? o.en : o.zh);

// An option's value in words: 开/关, 0.5 元, 算等 …
export function valueText(o, v) {
  if (o.type === "bool") return v ? w("on") : w("off");
  if (o.type === "yuan") return w("yuan", { v: String(v) });
  if (typeof v === "string" && CHOICE_WORDS[v]) return CHOICE_WORDS[v][lang === "en" ? 1 : 0];
  return String(v);
}

// Equal as the server compares them (a 元 amount typed as "0.50" equals 0.5).
export function sameValue(o, a, b) {
  if (o.type === "yuan") return Number(a) === Number(b);
  return a === b;
}

// The ruleset choice: a select of Chinese names and the chosen one's description under it.
export function rulesetField(opts, initial, onChange) {
  const names = opts.presets || ["luzhou"];
  const desc = h("p", { class: "muted rulesdesc", id: "rulesdesc" });
  const select = h("select", { id: "rules", onchange: () => { show(); onChange(select.value); } },
    names.map((n) => h("option", { value: n, selected: n === initial }, rulesetInfo(opts, n).title)));
  const show = () => { desc.textContent = rulesetInfo(opts, select.value).description; };
  show();
  return { el: h("div", {}, h("label", { for: "rules" }, w("ruleset")), select, desc), get value() { return select.value; } };
}

// The house rules of one ruleset as a form (collapsed under a summary that counts the changes).
// `overrides()` is what POST /api/rooms takes: only the options changed from their defaults.
export function houseForm(opts, preset) {
  let offers = [];
  let values = {};
  const box = h("div", { class: "house", id: "housefields" });
  const count = h("span", { class: "muted", id: "housecount" });
  const details = h("details", { id: "house", class: "housebox" },
    h("summary", {}, h("b", {}, w("house")), " ", count), h("p", { class: "muted" }, w("houseHint")), box,
    h("p", {}, h("button", { type: "button", id: "housereset", onclick: () => { values = {}; build(); } }, w("reset"))));
  const changed = () => offers.filter((o) => o.path in values && !sameValue(o, values[o.path], o.default));
  const recount = () => {
    const n = changed().length;
    count.textContent = n ? w("changed", { n }) : w("allDefault");
    details.classList.toggle("haschanges", n > 0);
  };
  const set = (o, v) => { if (sameValue(o, v, o.default)) delete values[o.path]; else values[o.path] = v; recount(); mark(); };
  const mark = () => {
    for (const row of box.querySelectorAll("[data-row]")) row.classList.toggle("changed", row.dataset.row in values);
  };
  function field(o) {
    const val = o.path in values ? values[o.path] : o.default;
    const id = `opt-${o.path.replaceAll(".", "-")}`;
    const hint = h("span", { class: "dflt" }, w("dflt", { v: valueText(o, o.default) }));
    if (o.type === "bool") {
      return h("label", { class: "opt switch", "data-row": o.path, for: id },
        h("span", { class: "grow" }, optionLabel(o), hint),
        h("input", { type: "checkbox", role: "switch", id, "data-opt": o.path, checked: !!val, onchange: (e) => set(o, e.target.checked) }));
    }
    let input;
    if (o.type === "choice") {
      input = h("select", { id, "data-opt": o.path, onchange: (e) => set(o, JSON.parse(e.target.value)) },
        o.values.map((v) => h("option", { value: JSON.stringify(v), selected: v === val }, valueText(o, v))));
    } else if (o.type === "yuan") { // 元 to the 分, sent as a decimal string (五毛 = "0.5")
      input = h("input", { id, type: "number", inputmode: "decimal", "data-opt": o.path, min: 0.01, max: o.max, step: 0.01, value: val,
        onchange: (e) => { const x = Math.min(Math.max(+e.target.value || 0.01, 0.01), o.max ?? 1000);
          const s = String(Math.round(x * 100) / 100); e.target.value = s; set(o, s); } });
    } else {
      input = h("input", { id, type: "number", inputmode: "numeric", "data-opt": o.path, min: o.min, max: o.max, step: 1, value: val,
        onchange: (e) => { let x = Math.round(+e.target.value); if (!Number.isFinite(x)) x = o.default;
          x = Math.min(Math.max(x, o.min ?? x), o.max ?? x); e.target.value = x; set(o, x); } });
    }
    return h("label", { class: "opt", "data-row": o.path, for: id }, h("span", { class: "grow" }, optionLabel(o), hint), input);
  }
  function build() {
    box.replaceChildren(...offers.map(field));
    recount(); mark();
  }
  const form = {
    el: details,
    setPreset(name) { offers = opts.house?.[name] || []; values = {}; build(); details.hidden = !offers.length; },
    overrides() {
      const out = {};
      for (const o of changed()) out[o.path] = values[o.path];
      return out;
    },
  };
  form.setPreset(preset);
  return form;
}
