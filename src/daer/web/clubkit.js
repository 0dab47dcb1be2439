// What the 亲友圈 pages (clubs.js, club.js, club-sheets.js) and 我的's 战绩 share: their words, the JSON calls,
// the toast, money as 元, and the small SVG line chart. Everything a player typed is set as text, never as HTML.
import { h, words } from "./dom.js";
import { lang, setLang } from "./i18n.js";

const W = {
  zh: {
    clubs: "亲友圈", tourneys: "比赛 →", myClubs: "我的亲友圈", lobby: "← 大厅", back: "← 亲友圈", me: "我的", lang: "English",
    none: "还没有加入亲友圈。创建一个，或输入圈号申请加入。", members: "{n} 人", online: "{n} 人在线",
    create: "创建亲友圈", clubName: "圈名", notice: "公告", noticeHint: "最多 500 字", hands: "局数", timer: "计时（秒）",
    bot: "机器人", pace: "节奏", pace_fast: "快", pace_normal: "正常", pace_slow: "慢", createDo: "创建", joinNum: "按圈号加入", number: "圈号（6 位数字）", num: "圈号 {n}",
    request: "申请加入", requested: "已申请，等待管理员同意", invited: "邀请你加入亲友圈", join: "加入",
    inviteGone: "邀请链接无效或已过期", netError: "网络错误", gone: "你已不在这个亲友圈",
    goneHint: "你被移出、封禁，或这个亲友圈已解散。", toClubs: "回到我的亲友圈",
    role_owner: "群主", role_admin: "管理员", role_member: "成员",
    tab_tables: "牌桌", tab_members: "成员", tab_records: "战绩", tab_settle: "结算", tab_board: "排行", tab_settings: "设置",
    seatInvite: "{from}邀请你入座 {room}", sit: "坐下", backToTable: "回到牌桌", handsN: "{n} 局", manage: "管理", openTable: "开桌", empty: "空位", botSeat: "机器人",
    status_waiting: "等人", status_playing: "对局中", status_finished: "已结束", handNo: "第 {n}/{m} 局",
    noTables: "还没有牌桌。管理员可以在“设置”里加常驻桌，大家也可以直接开桌。", standing: "常驻桌", adhoc: "临时桌",
    inviteTo: "邀请入座", inviteWho: "邀请谁", inviteSent: "已邀请", noRoom: "你还没有坐在本圈的牌桌上",
    remove: "移出", ban: "封禁", unban: "解封", appoint: "设为管理员", demote: "取消管理员", transfer: "转让群主",
    confirmRemove: "把 {n} 移出亲友圈？", confirmBan: "封禁 {n}？封禁后不能再加入。", confirmTransfer: "把群主转让给 {n}？",
    requests: "加入申请", approve: "同意", refuse: "拒绝", noRequests: "没有待处理的申请", bans: "已禁止的人",
    unban: "解除禁止",
    invites: "邀请链接", makeInvite: "生成邀请链接", hoursL: "有效（小时）", usesL: "可用次数", revoke: "作废",
    inviteUses: "已用 {u}/{m} 次，{t} 到期", copy: "复制链接", copied: "已复制", copySelected: "已选中链接，请长按复制",
    you: "（你）", onlineDot: "在线", offlineDot: "离线",
    p_today: "今日", p_yesterday: "昨日", p_week: "本周", p_month: "本月", p_season: "本季", p_range: "自定义",
    from: "从", to: "到", show: "查看", member: "成员", handsCol: "局数", wins: "胡牌", points: "分数", yuan: "金额（元）", net: "输赢",
    noRecords: "这段时间没有战绩", transfers: "怎么结清", noTransfers: "不用转账，大家都平了", pays: "{a} → {b} {x}",
    board_week: "周榜", board_month: "月榜", board_season: "季榜", minHands: "至少打 {n} 局才上榜", rank: "名次",
    settings: "圈子设置", save: "保存", saved: "已保存", minHandsL: "上榜最少局数", rules: "玩法",
    templates: "常驻桌", tplName: "桌名", fill: "空位由机器人补上", hintOpt: "提示：轮到你时显示机器人的建议和理由（练习用，付钱玩法不能开）", addTpl: "添加常驻桌", del: "删除",
    confirmDelTpl: "删除常驻桌 {n}？", export: "导出战绩", leave: "退出亲友圈", confirmLeave: "退出这个亲友圈？",
    ownerLeave: "群主要先把群主转让给别人才能退出。", dissolve: "解散亲友圈",
    dissolveHint: "解散后所有人都看不到这个圈子了，战绩仍保留在每个人的“我的”里。输入“解散”确认。",
    dissolveType: "输入“解散”确认", dissolveDo: "永久解散", dissolved: "亲友圈已解散",
    myRecords: "我的战绩", totalHands: "共 {n} 局", totalWins: "胡 {n} 次", totalPoints: "合计 {x}",
    date: "日期", club: "圈子", ruleset: "玩法", hu: "胡 / 名堂", replay: "回放", exportJson: "导出 JSON", exportCsv: "导出 CSV",
    noMine: "还没有战绩。打完一局就会记在这里。", chart: "分数走势", self: "自摸", dianpao: "点炮", huang: "黄",
  },
  en: {
    clubs: "Clubs", tourneys: "Tournaments →", myClubs: "My clubs", lobby: "← Lobby", back: "← Clubs", me: "Me", lang: "中文",
    none: "No club yet. Create one, or ask to join one by its number.", members: "{n} members", online: "{n} online",
    create: "Create a club", clubName: "Name", notice: "Notice", noticeHint: "up to 500 characters", hands: "Hands", timer: "Timer (s)",
    bot: "Bot", pace: "Pace", pace_fast: "fast", pace_normal: "normal", pace_slow: "slow", createDo: "Create", joinNum: "Join by number", number: "Club number (6 digits)", num: "No. {n}",
    request: "Ask to join", requested: "Asked; waiting for an admin", invited: "invites you to the club", join: "Join",
    inviteGone: "This invite link is invalid or expired", netError: "network error", gone: "You are no longer in this club",
    goneHint: "You were removed or banned, or the club was dissolved.", toClubs: "Back to my clubs",
    role_owner: "Owner", role_admin: "Admin", role_member: "Member",
    tab_tables: "Tables", tab_members: "Members", tab_records: "Records", tab_settle: "Settle", tab_board: "Ranks", tab_settings: "Settings",
    seatInvite: "{from} invites you to sit at {room}", sit: "Sit", backToTable: "Back to the table", handsN: "{n} hands", manage: "Manage", openTable: "Open a table", empty: "empty", botSeat: "bot",
    status_waiting: "waiting", status_playing: "playing", status_finished: "finished", handNo: "hand {n}/{m}",
    noTables: "No table yet. An admin adds standing tables in Settings; anyone may open a table.", standing: "standing", adhoc: "ad hoc",
    inviteTo: "Invite to my table", inviteWho: "Invite whom", inviteSent: "Invited", noRoom: "You are not seated at a club table",
    remove: "Remove", ban: "Ban", unban: "Unban", appoint: "Make admin", demote: "Demote", transfer: "Make owner",
    confirmRemove: "Remove {n} from the club?", confirmBan: "Ban {n}? They cannot join again.", confirmTransfer: "Make {n} the owner?",
    requests: "Requests", approve: "Approve", refuse: "Refuse", noRequests: "No pending request", bans: "Banned",
    unban: "Lift the ban",
    invites: "Invite links", makeInvite: "Make an invite link", hoursL: "Valid (hours)", usesL: "Uses", revoke: "Revoke",
    inviteUses: "used {u}/{m}, expires {t}", copy: "Copy link", copied: "Copied", copySelected: "Link selected: long-press to copy",
    you: " (you)", onlineDot: "online", offlineDot: "offline",
    p_today: "Today", p_yesterday: "Yesterday", p_week: "This week", p_month: "This month", p_season: "This season", p_range: "Range",
    from: "From", to: "To", show: "Show", member: "Member", handsCol: "Hands", wins: "Wins", points: "Points", yuan: "Money (yuan)", net: "Net",
    noRecords: "No records in this period", transfers: "How to settle", noTransfers: "Nothing to pay: everyone is even", pays: "{a} → {b} {x}",
    board_week: "Week", board_month: "Month", board_season: "Season", minHands: "at least {n} hands to rank", rank: "Rank",
    settings: "Club settings", save: "Save", saved: "Saved", minHandsL: "Fewest hands to rank", rules: "Game",
    templates: "Standing tables", tplName: "Table name", fill: "Bots fill the empty seats", hintOpt: "Hints: the bot's suggestion and why on your turn (for practice; not with money play)", addTpl: "Add a standing table", del: "Delete",
    confirmDelTpl: "Delete the standing table {n}?", export: "Export records", leave: "Leave the club", confirmLeave: "Leave this club?",
    ownerLeave: "The owner hands the club to someone else before leaving.", dissolve: "Dissolve the club",
    dissolveHint: "Nobody sees the club after this; everyone's records stay on their Me page. Type 解散 to confirm.",
    dissolveType: "Type 解散 to confirm", dissolveDo: "Dissolve for good", dissolved: "Club dissolved",
    myRecords: "My records", totalHands: "{n} hands", totalWins: "{n} wins", totalPoints: "total {x}",
    date: "Date", club: "Club", ruleset: "Game", hu: "胡 / 名堂", replay: "Replay", exportJson: "Export JSON", exportCsv: "Export CSV",
    noMine: "No records yet. Every finished hand is kept here.", chart: "Points over time", self: "self-drawn", dianpao: "discard", huang: "draw",
  },
};
export const w = words(W, () => lang);
export { lang };
export const errText = (e) => (lang === "en" ? `${e?.en ?? e}` : `${e?.zh ?? e}`);

export function toast(msg) {
  const el = document.getElementById("toast");
  el.textContent = msg; el.hidden = false;
  clearTimeout(toast.t); toast.t = setTimeout(() => { el.hidden = true; }, 3500);
}

// GET: the JSON and the status (a 403/404 is an answer the page shows, not an exception)
export async function get(path) {
  const res = await fetch(path, { headers: { accept: "application/json" } }).catch(() => null);
  if (!res) return { ok: false, status: 0, data: { zh: w("netError"), en: "network error" } };
  return { ok: res.ok, status: res.status, data: await res.json().catch(() => ({})) };
}

export async function post(path, body = {}) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    .catch(() => null);
  if (!res) throw { zh: w("netError"), en: "network error" };
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw { status: res.status, ...data };
  return data;
}

// a click handler that waits for its work, shows a refusal as a toast, and cannot be pressed twice meanwhile
export const guard = (fn) => async (ev) => {
  const btn = ev?.currentTarget;
  if (btn?.disabled) return;
  if (btn) btn.disabled = true;
  try { await fn(ev); } catch (e) { toast(e && e.zh ? errText(e) : String(e?.message || e)); } finally { if (btn) btn.disabled = false; }
};

// 分 shown as 元 exactly in money play (250 → "2.5 元"), points as they are otherwise
export function amount(x, money) {
  if (!money) return `${x}`;
  const sign = x < 0 ? "-" : "", a = Math.abs(x), cents = a % 100;
  const frac = cents ? "." + String(cents).padStart(2, "0").replace(/0$/, "") : "";
  return `${sign}${Math.floor(a / 100)}${frac} 元`;
}
export const signed = (x, money) => `${x > 0 ? "+" : ""}${amount(x, money)}`;
export const tone = (x) => (x > 0 ? "plus" : x < 0 ? "minus" : "");

export const day = (t) => new Date(t * 1000).toLocaleDateString(lang === "en" ? "en" : "zh-CN", { timeZone: "Asia/Shanghai" });
export const when = (t) => new Date(t * 1000).toLocaleString(lang === "en" ? "en" : "zh-CN",
  { timeZone: "Asia/Shanghai", month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });

export function avatar(nickname, colour, cls = "") {
  return h("span", { class: `avatar ${colour || "c7"} ${cls}`, "aria-hidden": "true" }, Array.from(nickname || "?")[0]);
}

// the page's top bar: a way back, the title, the language switch (which draws the page again)
export function bar(backHref, backWord, title, redraw) {
  return h("div", { class: "bar" }, h("a", { href: backHref, class: "back", id: "backlink" }, backWord),
    h("span", { class: "grow title", id: "bartitle" }, title),
    h("button", { id: "lang", onclick: () => { setLang(lang === "zh" ? "en" : "zh"); document.documentElement.lang = lang; redraw(); } }, w("lang")));
}

// A small line chart of points over time (an inline SVG built node by node; the points are numbers only).
const SVG = "http://www.w3.org/2000/svg";
const s = (tag, attrs) => { const el = document.createElementNS(SVG, tag); for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v); return el; };
export function lineChart(values, label) {
  const W0 = 320, H0 = 120, pad = 8;
  const ys = [0, ...values];
  const lo = Math.min(...ys), hi = Math.max(...ys), span = hi - lo || 1;
  const x = (i) => pad + (values.length < 2 ? (W0 - 2 * pad) / 2 : (i * (W0 - 2 * pad)) / (values.length - 1));
  const y = (v) => H0 - pad - ((v - lo) * (H0 - 2 * pad)) / span;
  const svg = s("svg", { viewBox: `0 0 ${W0} ${H0}`, class: "chart", role: "img", "aria-label": label, preserveAspectRatio: "none" });
  svg.append(s("line", { x1: pad, x2: W0 - pad, y1: y(0), y2: y(0), class: "zero" }));
  if (values.length) {
    svg.append(s("polyline", { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "), class: "line" }));
    const last = values.length - 1;
    svg.append(s("circle", { cx: x(last).toFixed(1), cy: y(values[last]).toFixed(1), r: 3, class: "dot" }));
  }
  return svg;
}

export { h };
