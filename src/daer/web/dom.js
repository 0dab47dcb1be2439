// Small DOM helpers shared by the page's modules (no build step, no framework).
// h(tag, attrs, ...kids): attributes; "on…" keys add listeners; "style" goes through the CSSOM (CSP style-src 'self').
export const h = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "style") el.style.cssText = v;
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) el.append(k);
  return el;
};

// A word of this module's own table in the page's language: {zh: {...}, en: {...}}.
export const words = (table, lang) => (key, vars = {}) => {
  let s = table[lang()]?.[key] ?? table.zh[key] ?? key;
  for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, v);
  return s;
};
