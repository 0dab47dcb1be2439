// 字牌: long narrow paper cards drawn in HTML/CSS — small kinds 一…十, big kinds 壹…拾, 2/7/10 red.
export const SMALL = "一二三四五六七八九十";
export const BIG = "壹贰叁肆伍陆柒捌玖拾";
export const kindOf = (cid) => Math.floor(cid / 4);
export const charOf = (kind) => (kind >= 10 ? BIG[kind - 10] : SMALL[kind]);
export const isRed = (kind) => [1, 6, 9].includes(kind % 10);

// One card element; `kind` 0-19, or null for a face-down card.
export function card(kind, { size = "", cid = null } = {}) {
  const el = document.createElement("div");
  if (kind === null || kind === undefined) {
    el.className = `card back ${size}`;
    return el;
  }
  el.className = `card ${kind >= 10 ? "big" : "small"} ${isRed(kind) ? "red" : ""} ${size}`;
  el.dataset.kind = kind;
  if (cid !== null) el.dataset.cid = cid;
  const ch = charOf(kind);
  el.innerHTML = `<span class="top">${ch}</span><span class="mid"></span><span class="bot">${ch}</span>`;
  el.title = ch;
  return el;
}

// A row of small cards for melds, discards, groups.
export function cardRow(kinds, size = "mini") {
  const row = document.createElement("div");
  row.className = "cardrow";
  for (const k of kinds) row.appendChild(card(k, { size }));
  return row;
}
