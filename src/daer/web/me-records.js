// 我的 · 战绩: the player's hands across every room and club (GET /api/me/records): totals, points over time as a
// small line chart, the list (date, club, game, points, 胡 and 名堂, replay), and the export links.
import { get, h, lineChart, signed, tone, w, when } from "./clubkit.js";
import { loadOptions, optionsNow, rulesetInfo } from "./lobby.js";


const HOW = { zimo: "self", self: "self", dianpao: "dianpao", discard: "dianpao", huang: "huang", draw: "huang" };
function how(r) {
  const parts = [];
  if (HOW[r.how]) parts.push(w(HOW[r.how]));
  if (r.won && r.hu) parts.push(`${r.hu} 胡`);
  const mt = Array.isArray(r.mingtang) ? r.mingtang : [];
  if (mt.length) parts.push(mt.map((m) => (typeof m === "string" ? m : m.zh ?? m.name ?? "")).join("、"));
  return parts.join(" · ");
}

// /api/me/records: {records: [{at, club: {number, name} | null, rules, points, money, won, how, hu, mingtang,
// replay}], totals: {points: {hands, wins, points}, money: {…}}, series: {points: [{day, total}], money: […]}}
function totals(t, unit) {
  const x = t?.[unit];
  if (!x || !x.hands) return null;
  const money = unit === "money";
  return h("div", { class: "totals", "data-unit": unit }, h("span", {}, w("totalHands", { n: x.hands })), h("span", {}, w("totalWins", { n: x.wins })),
    h("b", { class: tone(x.points), id: `mytotal-${unit}`, "data-points": x.points }, w("totalPoints", { x: signed(x.points, money) })));
}
function list(d) {
  const rows = d.records || [];
  if (!rows.length) return [h("p", { class: "muted", id: "nomine" }, w("noMine"))];
  const charts = ["money", "points"].filter((u) => d.series?.[u]?.length).map((u) =>
    lineChart(d.series[u].map((p) => p.total), `${w("chart")}（${w(u === "money" ? "yuan" : "points")}）`));
  return [totals(d.totals, "money"), totals(d.totals, "points"), ...charts,
    h("div", { class: "scrollx" }, h("table", { class: "clubsheet myrecords", id: "myrecords" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, w("date")), h("th", { scope: "col" }, w("club")),
        h("th", { scope: "col" }, w("ruleset")), h("th", { scope: "col", class: "num" }, w("points")), h("th", { scope: "col" }, w("hu")),
        h("th", { scope: "col" }, w("replay")))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-points": r.points },
        h("td", { class: "num" }, when(r.at)),
        h("td", { class: "nm" }, r.club ? h("a", { href: `/club/${r.club.number}` }, r.club.name) : "—"),
        h("td", {}, rulesetInfo(optionsNow(), r.rules).title),
        h("td", { class: `num ${tone(r.points)}` }, signed(r.points, r.money)),
        h("td", { class: "hu" }, how(r)),
        h("td", {}, r.replay ? h("a", { href: r.replay, "aria-label": `${w("replay")} ${when(r.at)}` }, w("replay")) : ""))))))];
}

export function myRecords() {
  const body = h("div", { id: "myrecordsbody", "aria-live": "polite" });
  const panel = h("div", { class: "panel", id: "records" }, h("div", { class: "row" }, h("h2", { class: "grow" }, w("myRecords")),
    h("a", { href: "/clubs", class: "link", id: "toclubs" }, w("clubs"))), body,
    h("div", { class: "btnrow" }, h("a", { href: "/api/me/records.csv", download: "", class: "button", id: "recordscsv" }, w("exportCsv")),
      h("a", { href: "/api/me/records.json", download: "", class: "button", id: "recordsjson" }, w("exportJson"))));
  Promise.all([get("/api/me/records"), loadOptions()]).then(([r]) => body.replaceChildren(...(r.ok ? list(r.data) : [h("p", { class: "muted" }, w("noMine"))])));
  return panel;
}
