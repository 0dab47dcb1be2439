// 比赛: a club tournament's page — registration, the round's tables, live standings with each round's duplicate
// score, every hand compared across tables once it is over, and the exports. Text is set as text only.
import { h, words } from "./dom.js";
import { lang } from "./i18n.js";
import { bar as clubBar, errText, get, guard as clubGuard, post, signed, toast, tone } from "./clubkit.js";

const W = {
  zh: {
    title: "比赛", back: "← 亲友圈", lang: "English", list: "本圈比赛", none: "还没有比赛。", create: "创建比赛",
    name: "名称", rounds: "轮数", hands: "每轮局数", bots: "人数不够四的倍数时由机器人补位", botsCount: "机器人的分数也参与比较",
    createDo: "创建", status_registering: "报名中", status_running: "进行中", status_paused: "已暂停", status_finished: "已结束",
    roundOf: "第 {r}/{n} 轮", register: "报名", withdraw: "退出报名", start: "开始第 {r} 轮", resume: "继续比赛", pause: "暂停",
    end: "结束比赛", confirmEnd: "结束比赛？正在打的牌局不再计分。", remove: "移出", confirmRemove: "把 {n} 移出比赛？",
    players: "报名选手（{n}）", tables: "本轮牌桌", table: "第 {n} 桌", handOf: "第 {a}/{b} 局", waiting: "等其他桌",
    done: "已打完", mySeat: "去我的座位", auto: "托管", bot: "机器人", standings: "排名", rank: "名次", player: "选手",
    score: "复式分", points: "原始分", forfeit: "这一轮没来（全程托管），按弃权计", forfeitMark: "弃", handsCol: "局数", beat: "胜过均值", autoCol: "托管", roundCol: "R{n}",
    compare: "每一局的对比", position: "位置 {p}", pos0: "庄家", exportJson: "导出 JSON", exportCsv: "导出 CSV",
    commit: "本轮发牌承诺", seeds: "已公开种子", netError: "网络错误", you: "（你）",
    tieBreak: "同分时依次比：胜过均值的局数、原始分、报名先后。",
    compareLine: "第 {t} 桌 {p} 分（{d}）",
  },
  en: {
    title: "Tournament", back: "← Club", lang: "中文", list: "Club tournaments", none: "No tournament yet.",
    create: "Create a tournament", name: "Name", rounds: "Rounds", hands: "Hands per round",
    bots: "Bots fill the last table when the field is not a multiple of four", botsCount: "Bots' scores count in the comparison",
    createDo: "Create", status_registering: "registering", status_running: "running", status_paused: "paused", status_finished: "finished",
    roundOf: "round {r}/{n}", register: "Register", withdraw: "Withdraw", start: "Start round {r}", resume: "Resume", pause: "Pause",
    end: "End the tournament", confirmEnd: "End the tournament? Hands in play will not count.", remove: "Remove",
    confirmRemove: "Remove {n} from the tournament?", players: "Players ({n})", tables: "This round's tables", table: "Table {n}",
    handOf: "hand {a}/{b}", waiting: "waiting for the other tables", done: "done", mySeat: "Go to my seat", auto: "auto",
    bot: "bot", standings: "Standings", rank: "#", player: "Player", score: "Duplicate", points: "Raw", handsCol: "Hands",
    beat: "Above mean", autoCol: "Auto", forfeit: "did not come this round (all in 托管): forfeited", forfeitMark: "F", roundCol: "R{n}", compare: "Every hand compared", position: "position {p}",
    pos0: "dealer", exportJson: "Export JSON", exportCsv: "Export CSV", commit: "This round's deal commitment",
    seeds: "Seeds revealed", netError: "network error", you: " (you)",
    tieBreak: "Ties: hands above the mean, then raw points, then who registered first.",
    compareLine: "table {t}: {p} ({d})",
  },
};
const w = words(W, () => lang);
const S = { n: "", t: 0, data: null, role: "member", seq: 0 };

// a click's work, then the page fetched again; a refusal shows as a toast (clubkit's guard)
const guard = (fn) => clubGuard(async (ev) => { await fn(ev); await refresh(); });
const api = (tail = "") => `/api/clubs/${S.n}/tourneys${S.t ? `/${S.t}` : ""}${tail}`;
const admin = () => S.role === "admin" || S.role === "owner";

const bar = () => clubBar(`/club/${S.n}`, w("back"), S.data?.name || w("title"), draw);

function listView(list) {
  const items = list.length ? list.map((t) => h("li", {}, h("a", { href: `/club/${S.n}/tourney/${t.id}` }, t.name),
    h("span", { class: "mark" }, `${w(`status_${t.status}`)} · ${w("roundOf", { r: t.round, n: t.rounds })}`))) : [h("p", {}, w("none"))];
  const parts = [h("h2", {}, w("list")), h("ul", { id: "tourneys" }, items)];
  if (admin()) {
    const name = h("input", { id: "t-name", maxlength: "24", required: true });
    const rounds = h("input", { id: "t-rounds", type: "number", min: "1", max: "20", value: "3" });
    const hands = h("input", { id: "t-hands", type: "number", min: "1", max: "32", value: "4" });
    const bots = h("input", { id: "t-bots", type: "checkbox", checked: true });
    const botsCount = h("input", { id: "t-bots-count", type: "checkbox", checked: true });
    const form = h("form", { id: "t-create" }, h("h2", {}, w("create")), h("label", {}, w("name"), name),
      h("label", {}, w("rounds"), rounds), h("label", {}, w("hands"), hands), h("label", {}, bots, w("bots")),
      h("label", {}, botsCount, w("botsCount")), h("button", { class: "primary", type: "submit", id: "t-create-do" }, w("createDo")));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try {
        const r = await post(api(), { name: name.value, rounds: Number(rounds.value), hands: Number(hands.value),
          bots: bots.checked, bots_count: botsCount.checked, config: S.clubConfig || {} });
        location.href = `/club/${S.n}/tourney/${r.id}`;
      } catch (e) { toast(errText(e)); }
    });
    parts.push(form);
  }
  return parts;
}

function seatLine(s) {
  const mark = s.kind === "bot" ? w("bot") : s.auto ? w("auto") : "";
  return h("div", { class: "seat" }, h("span", {}, s.name, s.player === S.data.me ? w("you") : ""),
    mark ? h("span", { class: "mark" }, mark) : null);
}

function tablesView(d) {
  if (!d.tables.length) return null;
  const cards = d.tables.map((t) => {
    const how = t.status === "finished" ? w("done") : t.status === "between" ? w("waiting") : w("handOf", { a: t.hands_played + 1, b: t.hands });
    return h("div", { class: "ttable", id: `table-${t.table}` }, h("strong", {}, w("table", { n: t.table })),
      h("span", { class: "mark progress" }, ` ${how} · ${t.hands_played}/${t.hands}`), ...t.seats.map(seatLine));
  });
  return h("section", {}, h("h2", {}, w("tables")), h("div", { class: "tables" }, cards));
}

function standingsView(d) {
  const rounds = d.rounds.map((r) => r.number);
  const head = h("tr", {}, h("th", {}, w("rank")), h("th", {}, w("player")), h("th", {}, w("score")),
    ...rounds.map((r) => h("th", {}, w("roundCol", { n: r }))), h("th", {}, w("points")), h("th", {}, w("handsCol")),
    h("th", {}, w("beat")), h("th", {}, w("autoCol")));
  const rows = d.standings.map((s) => h("tr", { class: s.player === d.me ? "me" : "" }, h("td", {}, `${s.rank}`),
    h("td", {}, s.name), h("td", { class: `score ${tone(s.score)}` }, signed(s.score)),
    ...rounds.map((r) => h("td", { class: tone(s.rounds[r] ?? 0), title: (s.forfeits || []).includes(r) ? w("forfeit") : "" },
      signed(s.rounds[r] ?? 0) + ((s.forfeits || []).includes(r) ? ` ${w("forfeitMark")}` : ""))),
    h("td", {}, `${s.points}`), h("td", {}, `${s.hands}`), h("td", {}, `${s.beat}`), h("td", {}, `${s.auto}`),
    admin() && d.status !== "finished" ? h("td", {}, h("button", { onclick: guard(async () => {
      if (confirm(w("confirmRemove", { n: s.name }))) await post(api(`/players/${s.player}/remove`));
    }) }, w("remove"))) : null));
  return h("section", {}, h("h2", {}, w("standings")), h("div", { class: "scroll", tabindex: 0, role: "region", "aria-label": w("standings") },
    h("table", { id: "standings" }, h("thead", {}, head), h("tbody", {}, rows))), h("p", { class: "meta" }, w("tieBreak")));
}

function compareView(d) {
  if (!d.hands_compared.length) return null;
  const names = Object.fromEntries(d.players.map((p) => [p.id, p.nickname]));
  const items = d.hands_compared.map((c) => h("li", {}, h("strong", {}, `R${c.round} · ${w("handOf", { a: c.hand, b: d.hands })} · ${c.position === 0 ? w("pos0") : w("position", { p: c.position })}`),
    h("div", {}, c.tables.map((x) => h("span", { class: `mark ${tone(x.dup ?? 0)}` },
      `${w("compareLine", { t: x.table + 1, p: x.points, d: x.dup === null ? "—" : signed(x.dup) })} ${x.player ? names[x.player] ?? "" : w("bot")}  `)))));
  return h("section", {}, h("h2", {}, w("compare")), h("ul", { id: "compare" }, items));
}

function detailView(d) {
  const next = d.round + 1;
  const acts = [];
  if (d.status === "registering") acts.push(h("button", { id: "reg", class: "primary", onclick: guard(() => post(api(d.registered ? "/withdraw" : "/register"))) },
    d.registered ? w("withdraw") : w("register")));
  const mine = d.tables.some((t) => t.seats.some((s) => s.player === d.me)) && d.status !== "finished";
  if (mine) acts.push(h("button", { id: "my-seat", class: "primary", onclick: guard(async () => {
    const r = await post(api("/seat"));
    localStorage.setItem(`daer.seat.${r.code}`, r.token);
    location.href = `/r/${r.code}`;
  }) }, w("mySeat")));
  if (admin() && d.status !== "finished") {
    const roundDone = !d.round || d.rounds[d.round - 1]?.status === "done";
    if (d.status === "paused") acts.push(h("button", { id: "start", onclick: guard(() => post(api("/start"))) }, w("resume")));
    else if (roundDone && next <= d.rounds_total) acts.push(h("button", { id: "start", onclick: guard(() => post(api("/start"))) }, w("start", { r: next })));
    if (d.status === "running") acts.push(h("button", { id: "pause", onclick: guard(() => post(api("/pause"))) }, w("pause")));
    acts.push(h("button", { id: "end", onclick: guard(async () => { if (confirm(w("confirmEnd"))) await post(api("/end")); }) }, w("end")));
  }
  const last = d.rounds[d.rounds.length - 1];
  return [
    h("p", { class: "meta", id: "status" }, `${w(`status_${d.status}`)} · ${w("roundOf", { r: d.round, n: d.rounds_total })} · ${w("hands")} ${d.hands}`),
    acts.length ? h("div", { class: "actions" }, acts) : null,
    last ? h("p", { class: "commit" }, `${w("commit")}: ${last.commitment}${last.seeds ? ` · ${w("seeds")}` : ""}`) : null,
    tablesView(d), standingsView(d), compareView(d),
    h("section", {}, h("h2", {}, w("players", { n: d.players.filter((p) => p.status === "in").length })),
      h("p", { id: "players" }, d.players.filter((p) => p.status === "in").map((p) => p.nickname).join("、"))),
    h("div", { class: "actions" }, h("a", { class: "button", href: api("/export.json") }, w("exportJson")),
      h("a", { class: "button", href: api("/export.csv") }, w("exportCsv"))),
  ];
}

function draw() {
  const app = document.getElementById("app");
  const body = S.t ? (S.data ? detailView(S.data) : []) : listView(S.list || []);
  app.replaceChildren(bar(), h("main", { class: "tourney" }, body));
}

async function refresh() {
  const seq = ++S.seq;
  const r = await get(api());
  if (seq !== S.seq) return;
  if (!r.ok) { document.getElementById("app").replaceChildren(bar(), h("p", { class: "tourney" }, errText(r.data))); return; }
  if (S.t) { S.data = r.data; S.role = r.data.role; }
  else S.list = r.data.tourneys;
  draw();
}

async function start() {
  const m = location.pathname.match(/^\/club\/(\d{6})\/(?:tourney\/(\d+)|tourneys)/);
  if (!m) return;
  S.n = m[1]; S.t = m[2] ? Number(m[2]) : 0;
  document.documentElement.lang = lang;
  const club = await get(`/api/clubs/${S.n}`);
  if (club.ok) { S.role = club.data.role; S.clubConfig = club.data.config; }
  await refresh();
  if (typeof EventSource !== "undefined") {
    const es = new EventSource(`/api/clubs/${S.n}/events`);
    es.onmessage = () => { clearTimeout(S.timer); S.timer = setTimeout(refresh, 250); };
  }
  // and a look every few seconds while a round runs (the tables' progress; a stream that missed an event)
  setInterval(() => { if (S.data && S.data.status === "running" && document.visibilityState === "visible") refresh(); }, 4000);
}
start();
