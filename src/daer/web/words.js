// The table's game words in the room's ruleset: 跑胡子 calls a 招 a 跑 and a 垅 a 提. The ruleset's words come
// from the server (GET /api/options, rulesets[].words: engine kind → glossary key), the words themselves from
// i18n.js TERMS — the page decides no rule, it only names what the server sends.
import { term } from "./i18n.js";
import { loadOptions, optionsNow } from "./lobby.js";

let preset = null;
// The room's ruleset; `redraw` runs once the server's list has arrived (the first table is drawn without it).
let asked = false;
export function setPreset(name, redraw) {
  preset = name;
  if (!optionsNow() && !asked) { asked = true; loadOptions().then(() => { asked = false; if (redraw) redraw(); }); }
}

// The glossary key of a kind in this ruleset ("zhao" → "pao" in 跑胡子).
export function wordKey(kind) {
  const r = (optionsNow()?.rulesets || []).find((x) => x.name === preset);
  return r?.words?.[kind] || kind;
}

// The word for a meld or claim kind ("zhao", "long", "peng", …) in this ruleset and the page's language.
export function gameWord(kind, opts = {}) {
  return term(wordKey(kind), opts);
}
