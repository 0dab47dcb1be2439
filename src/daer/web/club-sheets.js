// The club page's sheets: 战绩 (every member over a period), 结算 (each net and the transfers that settle it),
// 排行 (week / month / season leaderboards) and 设置 (admin: name, notice, rules, standing tables; owner: export,
// dissolve; everyone: leave). Each sheet asks its own endpoint; names are set as text.
import { amount, get, guard, h, post, signed, toast, tone, w, errText } from "./clubkit.js";
import { club, draw, refresh, isAdmin, isOwner } from "./club.js";
import { loadOptions, optionsNow, rulesetInfo } from "./lobby.js";
import { rulesFields } from "./clubs.js";

const PERIODS = ["today", "yesterday", "week", "month", "range"];
const P = { period: "today", from: "", to: "", board: "week", saved: "" };
const nameOf = (r) => r.nickname ?? r.name ?? "";

function query(period = P.period) {
  const q = new URLSearchParams({ period });
  if (period === "range") { q.set("from", P.from); q.set("to", P.to); }
  return q.toString();
}

// the period chips (and the custom range's two dates); a change asks the sheet again
function chips(reload, list = PERIODS, key = "period") {
  const box = h("div", { class: "chips", role: "group", "aria-label": w("show") }, list.map((p) =>
    h("button", { class: "chip", "data-period": p, "aria-pressed": String(P[key] === p), onclick: () => {
      P[key] = p; if (p === "range" && !P.from) { const t = new Date(Date.now() + 8 * 3600e3).toISOString().slice(0, 10); P.from = P.to = t; }
      reload(); } }, w(key === "board" ? `board_${p}` : `p_${p}`))));
  if (key !== "period" || P.period !== "range") return box;
  const from = h("input", { type: "date", id: "rangefrom", value: P.from }), to = h("input", { type: "date", id: "rangeto", value: P.to });
  return h("div", {}, box, h("div", { class: "row range" },
    h("label", { for: "rangefrom" }, w("from")), from, h("label", { for: "rangeto" }, w("to")), to,
    h("button", { id: "rangego", onclick: () => { P.from = from.value; P.to = to.value; reload(); } }, w("show"))));
}

// a sheet: its chips at once, its rows when they come (a newer question drops an older answer)
function sheet(id, title, path, render, list, key) {
  const body = h("div", { class: "sheetbody", "aria-live": "polite" });
  const panel = h("div", { class: "panel", id }, h("h2", {}, title), h("div", { class: "chipsbox" }), body);
  let seq = 0;
  const reload = async () => {
    panel.querySelector(".chipsbox").replaceChildren(chips(reload, list, key));
    const mine = ++seq;
    const r = await get(`/api/clubs/${club().n}/${path}?${query(P[key || "period"])}`);
    if (mine !== seq) return;
    if (r.status === 403 || r.status === 404) { refresh(); return; }
    body.replaceChildren(r.ok ? render(r.data) : h("p", { class: "muted" }, errText(r.data)));
  };
  reload();
  return h("div", { id: `tab-${id}` }, panel);
}

const numCell = (x, money, cls = "") => h("td", { class: `num ${tone(x)} ${cls}`, "data-points": x }, signed(x, money));

// 战绩: {members: [{player, nickname, hands, wins, points, money (分), money_hands}]}; a money column when any
// member played for money
function recordsRows(d) {
  const rows = d.members ?? d.rows ?? [];
  if (!rows.some((r) => r.hands)) return h("p", { class: "muted", id: "norecords" }, w("noRecords"));
  const money = rows.some((r) => r.money_hands);
  return h("div", { class: "scrollx" }, h("table", { class: "clubsheet", id: "recordstable" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, w("member")), h("th", { scope: "col", class: "num" }, w("handsCol")),
      h("th", { scope: "col", class: "num" }, w("wins")), h("th", { scope: "col", class: "num" }, w("points")),
      money ? h("th", { scope: "col", class: "num" }, w("yuan")) : null)),
    h("tbody", {}, rows.map((r) => h("tr", { "data-player": r.player ?? "" }, h("th", { scope: "row", class: "nm" }, nameOf(r)),
      h("td", { class: "num" }, String(r.hands ?? 0)), h("td", { class: "num" }, String(r.wins ?? 0)), numCell(r.points ?? 0, false),
      money ? numCell(r.money ?? 0, true, "money") : null)))));
}

// 结算: {sheets: {money?: {nets, others, transfers}, points?: {…}}}, money (分) first; "from"/"to" null is the
// others' share (bots, unlinked seats, former members), named by the server
function settleSheet(unit, sh, both) {
  const money = unit === "money";
  const who = (id, name) => name ?? String(id);
  return h("div", { class: "settlesheet", "data-unit": unit }, both ? h("h3", {}, w(money ? "yuan" : "points")) : null,
    h("table", { class: "clubsheet nets", id: `nets-${unit}` }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, w("member")), h("th", { scope: "col", class: "num" }, w("net")))),
      h("tbody", {}, sh.nets.map((r) => h("tr", { "data-player": r.player ?? "" }, h("th", { scope: "row", class: "nm" }, nameOf(r)), numCell(r.net, money))))),
    h("h3", {}, w("transfers")),
    sh.transfers.length ? h("ul", { class: "plain transfers", id: `transfers-${unit}` }, sh.transfers.map((t) =>
      h("li", { class: "transfer", "data-from": t.from ?? "", "data-to": t.to ?? "", "data-amount": t.amount },
        w("pays", { a: who(t.from, t.from_name), b: who(t.to, t.to_name), x: amount(t.amount, money) }))))
      : h("p", { class: "muted" }, w("noTransfers")));
}
function settleRows(d) {
  const units = ["money", "points"].filter((u) => d.sheets?.[u]);
  if (!units.length) return h("p", { class: "muted", id: "norecords" }, w("noRecords"));
  return h("div", { id: "nets" }, units.map((u) => settleSheet(u, d.sheets[u], units.length > 1)));
}

// 排行: {min_hands, unit, ranked: [{rank, player, nickname, hands, points, money}], unranked}
function boardRows(d) {
  const rows = d.ranked ?? [];
  const money = d.unit === "money";
  const note = h("p", { class: "muted", id: "minhands" }, w("minHands", { n: d.min_hands ?? club().data.min_hands }));
  if (!rows.length) return h("div", {}, note, h("p", { class: "muted", id: "norecords" }, w("noRecords")));
  return h("div", {}, note, h("table", { class: "clubsheet", id: "board" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, w("rank")), h("th", { scope: "col" }, w("member")),
      h("th", { scope: "col", class: "num" }, w("handsCol")), h("th", { scope: "col", class: "num" }, w(money ? "yuan" : "points")))),
    h("tbody", {}, rows.map((r, i) => h("tr", { "data-player": r.player ?? "" }, h("td", { class: "num" }, String(r.rank ?? i + 1)),
      h("th", { scope: "row", class: "nm" }, nameOf(r)), h("td", { class: "num" }, String(r.hands ?? 0)),
      numCell(money ? r.money : r.points, money))))));
}

export const recordsTab = () => sheet("records", w("tab_records"), "records", recordsRows);
export const settleTab = () => sheet("settle", w("tab_settle"), "settle", settleRows);
export const boardTab = () => sheet("board", w("tab_board"), "leaderboard", boardRows, ["week", "month", "season"], "board");

// -- 设置 ----------------------------------------------------------------------------------------------
function clubForm(opts) {
  const d = club().data;
  const name = h("input", { id: "setname", maxlength: 24, value: d.name });
  const notice = h("textarea", { id: "setnotice", maxlength: 500, rows: 3 }, d.notice || "");
  const minHands = h("input", { id: "setminhands", type: "number", min: 0, max: 1000, value: d.min_hands ?? 10, inputmode: "numeric" });
  const rules = rulesFields(opts, d.config || {}, "set");
  // 已保存 outlives the redraw its own save causes (and any live update's); the next edit clears it
  const status = h("p", { class: "status", role: "status", id: "setstatus" }, P.saved);
  const save = guard(async () => {
    await post(`/api/clubs/${club().n}`, { name: name.value.trim(), notice: notice.value.trim(), config: rules.value(), min_hands: +minHands.value });
    P.saved = status.textContent = w("saved"); await refresh(false, true);
  });
  const edited = () => { P.saved = status.textContent = ""; };
  return h("div", { class: "panel", id: "clubform", oninput: edited, onchange: edited }, h("h2", {}, w("settings")),
    h("label", { for: "setname" }, w("clubName")), name, h("label", { for: "setnotice" }, w("notice")), notice,
    h("label", { for: "setminhands" }, w("minHandsL")), minHands, rules.el,
    h("p", {}, h("button", { class: "primary wide", id: "savesettings", onclick: save }, w("save"))), status);
}

function templates(opts) {
  const d = club().data;
  const list = (d.templates || []).map((t) => h("li", { class: "row", "data-template": t.id },
    h("span", { class: "grow nm" }, t.name, h("span", { class: "muted" }, ` · ${rulesetInfo(optionsNow(), t.config?.rules ?? "").title} · ${w("handsN", { n: t.config?.hands ?? "" })}`)),
    h("button", { "data-deltpl": t.id, onclick: guard(async () => {
      if (!confirm(w("confirmDelTpl", { n: t.name }))) return;
      await post(`/api/clubs/${club().n}/templates/${t.id}/delete`); await refresh(false, true); }) }, w("del"))));
  const name = h("input", { id: "tplname", maxlength: 24 });
  const rules = rulesFields(opts, d.config || {}, "tpl");
  const pace = h("select", { id: "tplpace" }, (opts.bounds?.paces || ["fast", "normal", "slow"]).map((p) =>
    h("option", { value: p, selected: p === "normal" }, w(`pace_${p}`))));
  const fill = h("input", { type: "checkbox", id: "tplfill", checked: true });
  const hint = h("input", { type: "checkbox", role: "switch", id: "tplhint" }); // 提示 (RoomConfig.hint): off by default
  const add = guard(async () => {
    await post(`/api/clubs/${club().n}/templates`, { name: name.value.trim(),
      config: { ...rules.value(), pace: pace.value, fill: fill.checked, hint: hint.checked } });
    toast(w("saved")); await refresh(false, true);
  });
  return h("div", { class: "panel", id: "templates" }, h("h2", {}, w("templates")),
    list.length ? h("ul", { class: "plain", id: "templatelist" }, list) : null,
    h("details", { id: "addtemplate", open: !list.length }, h("summary", {}, h("b", {}, w("addTpl"))),
      h("label", { for: "tplname" }, w("tplName")), name, rules.el,
      h("label", { for: "tplpace" }, w("pace")), pace,
      h("label", { class: "switch", for: "tplfill" }, h("span", { class: "grow" }, w("fill")), fill),
      h("label", { class: "switch", for: "tplhint" }, h("span", { class: "grow" }, w("hintOpt")), hint),
      h("p", {}, h("button", { class: "primary wide", id: "addtpl", onclick: add }, w("addTpl")))));
}

function ownerZone() {
  const n = club().n;
  const confirmField = h("input", { id: "dissolveconfirm", placeholder: "解散", autocomplete: "off", "aria-label": w("dissolveType") });
  return h("div", { class: "panel", id: "ownerzone" }, h("h2", {}, w("export")),
    h("div", { class: "btnrow" }, h("a", { class: "button", href: `/api/clubs/${n}/export.csv`, download: "", id: "exportcsv" }, w("exportCsv")),
      h("a", { class: "button", href: `/api/clubs/${n}/export.json`, download: "", id: "exportjson" }, w("exportJson"))),
    h("details", { class: "danger-zone", id: "dissolve" }, h("summary", {}, w("dissolve")), h("p", { class: "muted" }, w("dissolveHint")),
      h("label", { for: "dissolveconfirm" }, w("dissolveType")), confirmField,
      h("p", {}, h("button", { class: "danger wide", id: "dissolvedo", onclick: guard(async () => {
        await post(`/api/clubs/${n}/dissolve`, { confirm: confirmField.value.trim() });
        toast(w("dissolved")); location.href = "/clubs"; }) }, w("dissolveDo")))));
}

function leaveZone() {
  return h("div", { class: "panel", id: "leavezone" }, isOwner() ? h("p", { class: "muted" }, w("ownerLeave"))
    : h("button", { class: "danger wide", id: "leave", onclick: guard(async () => {
      if (!confirm(w("confirmLeave"))) return;
      await post(`/api/clubs/${club().n}/leave`); location.href = "/clubs"; }) }, w("leave")));
}

export function settingsTab() {
  const box = h("div", { id: "tab-settings" });
  if (!isAdmin()) { box.append(leaveZone()); return box; }
  loadOptions().then((opts) => {
    box.replaceChildren(clubForm(opts), templates(opts), isOwner() ? ownerZone() : "", leaveZone());
  });
  return box;
}
