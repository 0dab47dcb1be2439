// The settlement that shows its arithmetic (issue 10 item 5), drawn from what the server sends at a hand's end:
// view.result (the winner's 列 with their 胡, the multipliers, the points, and `hands`: every seat's concealed
// cards — the end-of-hand reveal), room.work (the working: 胡 → 等 → multipliers → each seat's amount, both
// languages, checked against the payments by the server), room.payments, and the match so far (战绩, from
// GET /api/rooms/{code}). The page computes nothing of the rules.
//
// settlementBody(data) is the sheet's content from plain data, so other pages (the replay's end) can reuse it:
//   { result, work, payments, names: [seat label…], me: seat or null, money, dealer, dijia,
//     totals: [score…] or null, history: [{number, points}] or null, title, plainNames: [name…] for the shared text }
import { card } from "./cards.js";
import { h, words } from "./dom.js";
import { lang, termOfZh } from "./i18n.js";
import { optionsNow, rulesetInfo } from "./lobby.js";

const W = {
  zh: {
    settle: "结算", over: "比赛结束", hand: "第 {n}/{N} 局", winner: "赢家", hu: "胡", draw: "黄牌：没人胡",
    instant: "起手胡", groups: "{who}的牌（{hu}胡）", zero: "另有 {n} 列没有胡", work: "算法", amounts: "本局输赢",
    thisHand: "本局", total: "总分", pays: "付", reveal: "亮牌（每家剩下的牌）", noCards: "没有剩牌", record: "战绩",
    handN: "第{n}局", sum: "合计", share: "分享", copyText: "复制战绩", image: "存图片", copied: "已复制到剪贴板",
    selected: "已选中文字，请长按或按 Ctrl+C 复制", next: "下一局", ready: "已准备，等其他人…", replay: "回放",
    download: "下载牌谱", me: "我", dealer: "庄", dijia: "底家", sitsOut: "坐底", red: "红字 {n}", youWin: "我赢了",
    youLose: "我输了", even: "不输不赢", mySitOut: "我坐底（底家）", table: "桌面", checkNote: "（算法与实付不一致时只列出结果）",
    flags: { tianhu: "天胡", dihu: "地胡", haidi: "海底", self_drawn: "自摸", huilong: "回龙", bao: "报牌", lan: "烂和" },
    pen: { peng: "未碰", zhao: "未招", "peng+zhao": "未碰、未招" },
  },
  en: {
    settle: "Settlement", over: "Match over", hand: "Hand {n}/{N}", winner: "Winner", hu: "hu", draw: "Draw: nobody won",
    instant: "Instant win", groups: "{who}'s groups ({hu} hu)", zero: "{n} more groups without hu", work: "Working",
    amounts: "This hand", thisHand: "Hand", total: "Total", pays: "pays", reveal: "Hands shown (cards left)",
    noCards: "no cards left", record: "Match so far", handN: "#{n}", sum: "Total", share: "Share", copyText: "Copy results",
    image: "Save image", copied: "Copied to the clipboard", selected: "Text selected: long-press or Ctrl+C to copy",
    next: "Next hand", ready: "Ready, waiting for the others…", replay: "Replay", download: "Download record", me: "Me",
    dealer: "dealer", dijia: "dijia", sitsOut: "sits out", red: "{n} red", youWin: "I won", youLose: "I lost",
    even: "Even", mySitOut: "I sat out (dijia)", table: "table", checkNote: "",
    flags: { tianhu: "heavenly", dihu: "earthly", haidi: "last card", self_drawn: "self-drawn", huilong: "huilong", bao: "declared", lan: "lan he" },
    pen: { peng: "passed a pong", zhao: "passed a kong", "peng+zhao": "passed a pong and a kong" },
  },
};
const w = words(W, () => lang);
const say = (line) => (lang === "en" ? line.en : line.zh);

// money play (room.money): amounts are 分, shown as 元 exactly (250 → "2.5 元"), integer arithmetic only
export function amount(x, money) {
  if (!money) return `${x}`;
  const sign = x < 0 ? "-" : "", a = Math.abs(x), cents = a % 100;
  const frac = cents ? "." + String(cents).padStart(2, "0").replace(/0$/, "") : "";
  return `${sign}${Math.floor(a / 100)}${frac} 元`;
}
const signed = (x, money) => `${x > 0 ? "+" : ""}${amount(x, money)}`;
const tone = (x) => (x > 0 ? "pos" : x < 0 ? "neg" : "");

function groupEl([shape, kinds, hu]) {
  return h("div", { class: "sgroup", "data-hu": hu },
    h("div", { class: "sgcards" }, kinds.map((k) => card(k, { size: "mini" }))),
    h("div", { class: "sghu" }, h("b", {}, `${hu}`), w("hu")), h("div", { class: "sgname" }, termOfZh(shape)));
}

function chainEl(work) {
  const steps = work?.checked ? work.chain : [];
  if (!steps.length) return null;
  const out = [];
  steps.forEach((s, i) => { if (i) out.push(h("span", { class: "arrow", "aria-hidden": "true" }, "→")); out.push(h("span", { class: "step" }, say(s))); });
  return h("div", { class: "chain", id: "chain" }, out);
}

// The whole sheet's content from plain data (see the header).
export function settlementBody(d) {
  const r = d.result;
  const money = !!d.money;
  const parts = [];
  const seats = r.points.length;
  // who won, and my own result first (labelled: 我 +8)
  if (r.winner === null || r.winner === undefined) parts.push(h("div", { class: "headline", id: "headline" }, w("draw")));
  else {
    const flags = r.flags.map((f) => w("flags")[f] || f).join(" ");
    parts.push(h("div", { class: "headline", id: "headline", "data-winner": r.winner }, `${w("winner")} ${d.names[r.winner]} · ${r.hu}${lang === "en" ? " " : ""}${w("hu")}`,
      r.how === "instant" ? ` · ${r.name || w("instant")}` : "", flags ? ` · ${flags}` : ""));
  }
  if (d.me !== null && d.me !== undefined) {
    const mine = r.points[d.me];
    parts.push(h("div", { class: `mine ${tone(mine)}`, id: "mine" }, h("span", {}, d.me === d.dijia ? w("mySitOut") : mine > 0 ? w("youWin") : mine < 0 ? w("youLose") : w("even")),
      h("b", { id: "mypoints" }, signed(mine, money))));
  }
  parts.push(chainEl(d.work));
  // the winner's 列, each with its 胡; 列 without 胡 summed up in one line (not listed as noise)
  if (r.winner !== null && r.winner !== undefined && r.groups.length) {
    const scoring = r.groups.filter((g) => g[2] > 0);
    const zero = r.groups.filter((g) => g[2] === 0);
    parts.push(h("div", { class: "ssec" }, h("div", { class: "shead" }, w("groups", { who: d.names[r.winner], hu: r.hu })),
      h("div", { class: "sgroups", id: "groups" }, scoring.map(groupEl),
        zero.length ? h("div", { class: "sgroup zero", id: "zerogroups" }, h("div", { class: "sgcards" }, zero.map((g) => h("div", { class: "sgcards zg" }, g[1].map((k) => card(k, { size: "mini" }))))),
          h("div", { class: "sghu" }, w("zero", { n: zero.length }))) : null)));
  }
  // the working, line by line
  if (d.work?.lines?.length) {
    parts.push(h("div", { class: "ssec" }, h("div", { class: "shead" }, w("work")),
      h("ol", { class: "work", id: "work" }, d.work.lines.map((l) => h("li", {}, say(l))))));
  }
  // each seat: this hand, the payments it made or got, the total
  const pays = d.payments || [];
  parts.push(h("div", { class: "ssec" }, h("div", { class: "shead" }, w("amounts")),
    h("table", { id: "scores", class: "stable" },
      h("tr", {}, h("th", {}, ""), h("th", { class: "num" }, w("thisHand")), d.totals ? h("th", { class: "num" }, w("total")) : null),
      Array.from({ length: seats }, (_, s) => h("tr", { "data-seat": s, class: s === d.me ? "me" : "" },
        h("td", {}, h("span", { class: "nm" }, d.names[s]), roleTag(d, s),
          h("div", { class: "note" }, pays.filter((p) => p.payer === s).map((p) =>
            (lang === "en" ? `pays ${d.names[p.payee]} ${amount(p.amount, money)} (${p.en})`
              : `付 ${d.names[p.payee]} ${amount(p.amount, money)}（${p.zh}）`)).join(lang === "en" ? "; " : "；"))),
        h("td", { class: `num ${tone(r.points[s])}`, "data-points": r.points[s] }, signed(r.points[s], money)),
        d.totals ? h("td", { class: "num", "data-total": d.totals[s] }, amount(d.totals[s], money)) : null)))));
  // 亮牌: every seat's concealed cards at the end
  if (r.hands && r.hands.length) {
    parts.push(h("div", { class: "ssec" }, h("div", { class: "shead" }, w("reveal")),
      h("div", { class: "reveal", id: "reveal" }, r.hands.map((kinds, s) => (s === d.dijia && !kinds.length ? null
        : h("div", { class: "rhand", "data-seat": s }, h("span", { class: "nm" }, d.names[s]),
          kinds.length ? h("div", { class: "rcards" }, kinds.map((k) => card(k, { size: "mini" }))) : h("span", { class: "muted" }, w("noCards"))))))));
  }
  if (d.history && d.history.length) parts.push(recordTable(d));
  return parts.filter(Boolean);
}

function roleTag(d, s) {
  const tags = [];
  if (s === d.dealer) tags.push(w("dealer"));
  if (s === d.dijia) tags.push(w("dijia"));
  return tags.length ? h("span", { class: "badge" }, tags.join(" ")) : null;
}

// 战绩: every finished hand's points per seat, and the totals
function recordTable(d) {
  const money = !!d.money;
  const hands = d.history.filter((x) => x.points);
  const seats = d.names.length;
  const sums = Array.from({ length: seats }, (_, s) => hands.reduce((a, x) => a + x.points[s], 0));
  return h("div", { class: "ssec" }, h("div", { class: "shead" }, w("record")),
    h("div", { class: "scroll" }, h("table", { id: "record", class: "stable" },
      h("tr", {}, h("th", {}, ""), hands.map((x) => h("th", { class: "num" }, w("handN", { n: x.number }))), h("th", { class: "num" }, w("sum"))),
      Array.from({ length: seats }, (_, s) => h("tr", { "data-seat": s, class: s === d.me ? "me" : "" }, h("td", {}, d.names[s]),
        hands.map((x) => h("td", { class: `num ${tone(x.points[s])}` }, signed(x.points[s], money))),
        h("td", { class: `num sum ${tone(sums[s])}`, "data-sum": sums[s] }, signed(sums[s], money)))))));
}

// The summary as text, for the clipboard or the phone's share sheet.
export function summaryText(d) {
  const r = d.result;
  d = { ...d, names: d.plainNames || d.names }; // the text is for others: seats by name, not 我 / 下家
  const money = !!d.money;
  const lines = [d.title];
  if (r.winner === null || r.winner === undefined) lines.push(w("draw"));
  else lines.push(`${w("winner")} ${d.names[r.winner]} ${r.hu}${w("hu")}`);
  if (d.work?.checked && d.work.chain.length) lines.push(d.work.chain.map(say).join(" → "));
  lines.push(d.names.map((n, s) => `${n} ${signed(r.points[s], money)}`).join("，"));
  if (d.totals) lines.push(`${w("total")}：${d.names.map((n, s) => `${n} ${amount(d.totals[s], money)}`).join("，")}`);
  return lines.join("\n");
}

// Copy text: the Clipboard API in a secure context, else a selected text field and execCommand("copy").
// Resolves to "copied" or "selected" (the text is left selected for the player to copy).
export async function copyText(text) {
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return "copied";
  } catch {
    let field = document.getElementById("sharetext");
    if (!field) {
      field = h("textarea", { id: "sharetext", readonly: true, rows: 4, class: "sharetext", "aria-label": w("share") });
      (document.getElementById("settlement")?.querySelector(".sheet") || document.body).append(field);
    }
    field.value = text;
    field.hidden = false;
    field.focus(); field.select(); field.setSelectionRange(0, text.length);
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    return ok ? "copied" : "selected";
  }
}

// The summary as a PNG drawn on a canvas (no fonts or images fetched): the title, the winner, the working's
// chain and each seat's points and total.
export function summaryImage(d) {
  const text = summaryText(d).split("\n");
  const scale = 2, width = 360, lineH = 26, pad = 16;
  const canvas = document.createElement("canvas");
  canvas.width = width * scale; canvas.height = (pad * 2 + lineH * (text.length + 1)) * scale;
  const g = canvas.getContext("2d");
  g.scale(scale, scale);
  g.fillStyle = "#1f5e3b"; g.fillRect(0, 0, width, canvas.height / scale);
  g.fillStyle = "#e7c35a"; g.font = "bold 18px sans-serif";
  g.fillText(text[0], pad, pad + 18);
  g.fillStyle = "#f6efdc"; g.font = "15px sans-serif";
  text.slice(1).forEach((line, i) => wrapText(g, line, pad, pad + 18 + lineH * (i + 1), width - pad * 2));
  return canvas;
}
function wrapText(g, line, x, y, max) {
  let s = line;
  while (g.measureText(s).width > max && s.length > 1) s = s.slice(0, -1);
  g.fillText(s.length < line.length ? `${s.slice(0, -1)}…` : s, x, y);
}

// Share buttons: copy the text (always), the phone's share sheet (where there is one), save the image.
export function shareBar(d, toast) {
  const file = `daer-${(d.fileName || "hand")}.png`;
  const copy = h("button", { id: "sharecopy", onclick: async () => toast((await copyText(summaryText(d))) === "copied" ? w("copied") : w("selected")) }, w("copyText"));
  const share = navigator.share ? h("button", { id: "share", onclick: () => navigator.share({ text: summaryText(d) }).catch(() => {}) }, w("share")) : null;
  const image = h("button", { id: "shareimage", onclick: () => {
    const a = h("a", { href: summaryImage(d).toDataURL("image/png"), download: file });
    document.body.append(a); a.click(); a.remove();
  } }, w("image"));
  return h("div", { class: "sharebar" }, share, copy, image);
}

export const settleWords = w;

// 战绩: the room's finished hands and their points (GET /api/rooms/{code}), fetched once per hand's end;
// null until it arrives (then `onLoad` draws again).
const hist = { key: null, hands: null };
export function matchHistory(code, handNo, onLoad) {
  const key = `${code}/${handNo}`;
  if (hist.key === key) return hist.hands;
  hist.key = key; hist.hands = null;
  fetch(`/api/rooms/${encodeURIComponent(code)}`).then((r) => (r.ok ? r.json() : null)).then((j) => {
    if (hist.key !== key || !j) return;
    hist.hands = j.hands.filter((x) => x.finished && x.points);
    onLoad();
  }).catch(() => {});
  return null;
}

// A ruleset's title for the summary (from the lobby's options when loaded, else its name).
export function optionsTitle(name) {
  return rulesetInfo(optionsNow(), name).title;
}
