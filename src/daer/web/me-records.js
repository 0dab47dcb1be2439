// 我的 · 战绩: the player's hands across every room and club (GET /api/me/records): totals, points over time as a
// small line chart, the list (date, club, game, points, 胡 and 名堂, replay), and the export links.
import { get, h, lineChart, signed, tone, w, when } from "./clubkit.js";

const nameOf = (o, ...keys) => { for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k]; return ""; };

function how(r) {
  const parts = [];
  if (r.win === "zimo" || r.how === "zimo") parts.push(w("self"));
  else if (r.win === "dianpao" || r.how === "dianpao") parts.push(w("dianpao"));
  else if (r.win === "huang" || r.how === "huang") parts.push(w("huang"));
  if (r.hu) parts.push(`${r.hu} 胡`);
  const mt = r.mingtang || [];
  if (mt.length) parts.push((Array.isArray(mt) ? mt : [mt]).map((m) => (typeof m === "string" ? m : m.zh ?? m.name)).join("、"));
  return parts.join(" · ");
}

function list(d) {
  const rows = d.records || [];
  const money = (r) => r.money ?? d.money;
  const t = d.totals || {};
  const series = (d.series || []).map((p) => (typeof p === "number" ? p : p.total ?? p.points ?? 0));
  if (!rows.length) return [h("p", { class: "muted", id: "nomine" }, w("noMine"))];
  return [
    h("div", { class: "totals", id: "mytotals" }, h("span", {}, w("totalHands", { n: t.hands ?? rows.length })),
      h("span", {}, w("totalWins", { n: t.wins ?? 0 })),
      h("b", { class: tone(t.points ?? 0), id: "mytotal", "data-points": t.points ?? 0 }, w("totalPoints", { x: signed(t.points ?? 0, t.money ?? d.money) }))),
    series.length ? lineChart(series, w("chart")) : "",
    h("div", { class: "scrollx" }, h("table", { class: "sheet myrecords", id: "myrecords" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, w("date")), h("th", { scope: "col" }, w("club")),
        h("th", { scope: "col" }, w("ruleset")), h("th", { scope: "col", class: "num" }, w("points")), h("th", { scope: "col" }, w("hu")),
        h("th", { scope: "col" }, w("replay")))),
      h("tbody", {}, rows.map((r) => h("tr", { "data-points": r.points },
        h("td", { class: "num" }, when(r.at)), h("td", { class: "nm" }, nameOf(r, "club_name", "club") || "—"),
        h("td", {}, nameOf(r, "rules_name", "rules", "ruleset")),
        h("td", { class: `num ${tone(r.points)}` }, signed(r.points, money(r))),
        h("td", { class: "hu" }, how(r)),
        h("td", {}, r.replay ? h("a", { href: r.replay, "aria-label": `${w("replay")} ${when(r.at)}` }, w("replay")) : "")))))),
  ];
}

export function myRecords() {
  const body = h("div", { id: "myrecordsbody", "aria-live": "polite" });
  const panel = h("div", { class: "panel", id: "records" }, h("div", { class: "row" }, h("h2", { class: "grow" }, w("myRecords")),
    h("a", { href: "/clubs", class: "link", id: "toclubs" }, w("clubs"))), body,
    h("div", { class: "btnrow" }, h("a", { href: "/api/me/records.csv", download: "", class: "button", id: "recordscsv" }, w("exportCsv")),
      h("a", { href: "/api/me/records.json", download: "", class: "button", id: "recordsjson" }, w("exportJson"))));
  get("/api/me/records").then((r) => body.replaceChildren(...(r.ok ? list(r.data) : [h("p", { class: "muted" }, w("noMine"))])));
  return panel;
}
