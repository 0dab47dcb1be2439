// The club page (/club/{n}): its tabs 牌桌 (tables, seat invites, 坐下, 开桌), 成员 (members, roles, requests,
// invite links), 战绩 / 结算 / 排行 / 设置 (club-sheets.js). Live: the club's event stream says something
// changed and the page asks for the club again (debounced); a 403/404 then means the player is out, and the
// page says so and stops. Every name is set as text.
import { avatar, bar, get, guard, h, lang, post, toast, w, errText, when } from "./clubkit.js";
import { optionsNow, rulesetInfo, loadOptions } from "./lobby.js";
import { recordsTab, settleTab, boardTab, settingsTab } from "./club-sheets.js";

const TABS = ["tables", "members", "records", "settle", "board", "settings"];
const C = { n: null, data: null, tab: "tables", es: null, timer: null, gone: false, $app: null, redraw: null, seq: 0 };
export const club = () => C;

const isAdmin = () => C.data && (C.data.role === "owner" || C.data.role === "admin");
const isOwner = () => C.data && C.data.role === "owner";
const tokenKey = (code) => `daer.seat.${code}`;

// a seat the club gave: kept as the main page keeps a seat it took (app.js), then the table page opens seated
function seated(r) {
  localStorage.setItem(tokenKey(r.code), r.token);
  location.href = `/r/${r.code}`;
}
const sit = (code) => guard(async () => {
  const name = (localStorage.getItem("daer.name") || "").slice(0, 24);
  seated(await post(`/api/clubs/${C.n}/tables/${code}/sit`, name ? { name } : {}));
});

// -- 牌桌 ----------------------------------------------------------------------------------------------
function seatInvites() {
  const inv = C.data.seat_invites || [];
  if (!inv.length) return null;
  return h("div", { class: "panel invites-top", id: "seatinvites" }, inv.map((i) =>
    h("div", { class: "row seatinvite", "data-room": i.room }, h("span", { class: "grow" }, w("seatInvite", { from: i.from, room: i.room })),
      h("button", { class: "primary", onclick: sit(i.room) }, w("sit")))));
}

function inviteBox(t) {
  const seatedIds = new Set(t.seats.map((s) => s.player).filter((p) => p !== null));
  const others = C.data.members.filter((m) => m.id !== C.data.me && !seatedIds.has(m.id));
  if (!others.length) return null;
  const who = h("select", { id: `invitewho-${t.code}`, "aria-label": w("inviteWho") },
    others.map((m) => h("option", { value: m.id }, m.nickname)));
  return h("details", { class: "invitebox", id: `invitebox-${t.code}` }, h("summary", {}, w("inviteTo")),
    h("div", { class: "row" }, who, h("button", { class: "inviteseat", onclick: guard(async () => {
      await post(`/api/clubs/${C.n}/seat-invites`, { to: +who.value, room: t.code }); toast(w("inviteSent")); }) }, w("inviteTo"))));
}

function table(t) {
  const mine = t.seats.some((s) => s.player === C.data.me);
  const hasToken = localStorage.getItem(tokenKey(t.code));
  const open = t.seats.some((s) => s.kind === "empty") && t.status === "waiting";
  const title = t.template ? t.template.name : w("adhoc");
  const seats = h("ul", { class: "seats" }, t.seats.map((s) =>
    h("li", { class: `seat ${s.kind}`, "data-seat": s.seat },
      h("span", { class: "seatno", "aria-hidden": "true" }, String(s.seat + 1)),
      s.kind === "empty" ? h("span", { class: "muted" }, w("empty"))
        : h("span", { class: "nm" }, s.name, s.kind === "bot" ? h("span", { class: "muted" }, ` · ${w("botSeat")}`) : null,
          s.player === C.data.me ? w("you") : null))));
  let act = null;
  if (mine && hasToken) act = h("a", { class: "button primary", href: `/r/${t.code}`, id: `back-${t.code}` }, w("backToTable"));
  else if (open || mine) act = h("button", { class: "primary", "data-sit": t.code, onclick: sit(t.code) }, w("sit"));
  return h("div", { class: "table-card", "data-table": t.code },
    h("div", { class: "row" }, h("b", { class: "grow tname" }, title),
      h("span", { class: `badge st-${t.status}` }, w(`status_${t.status}`) || t.status)),
    h("div", { class: "muted" }, `${t.code} · ${rulesetInfo(optionsNow(), t.rules).title} · ${t.hand_no ? w("handNo", { n: t.hand_no, m: t.hands }) : w("handsN", { n: t.hands })}`),
    seats, h("div", { class: "row tact" }, act), mine ? inviteBox(t) : null);
}

function tablesTab() {
  const tables = C.data.tables || [];
  const openAdhoc = guard(async () => seated(await post(`/api/clubs/${C.n}/tables`, {})));
  return h("div", { id: "tab-tables" }, seatInvites(),
    h("div", { class: "panel" }, h("div", { class: "row" }, h("h2", { class: "grow" }, w("tab_tables")),
      h("button", { id: "openadhoc", onclick: openAdhoc }, w("openTable"))),
    tables.length ? h("div", { class: "tables", id: "tables" }, tables.map(table)) : h("p", { class: "muted", id: "notables" }, w("noTables"))));
}

// -- 成员 ----------------------------------------------------------------------------------------------
function memberActions(m) {
  if (m.id === C.data.me || m.role === "owner") return null;
  const out = [];
  const act = (cls, word, path, body, ask) => h("button", { class: cls, "data-act": path, onclick: guard(async () => {
    if (ask && !confirm(ask)) return;
    await post(`/api/clubs/${C.n}/${path}`, body); await refresh(); }) }, word);
  if (isOwner()) {
    out.push(m.role === "admin" ? act("", w("demote"), `members/${m.id}`, { role: "member" })
      : act("", w("appoint"), `members/${m.id}`, { role: "admin" }));
    out.push(act("", w("transfer"), "transfer", { to: m.id }, w("confirmTransfer", { n: m.nickname })));
  }
  if (isAdmin() && m.role === "member") {
    out.push(act("", w("remove"), `members/${m.id}/remove`, {}, w("confirmRemove", { n: m.nickname })));
    out.push(act("danger", w("ban"), `members/${m.id}/ban`, {}, w("confirmBan", { n: m.nickname })));
  }
  if (!out.length) return null;
  return h("details", { class: "manage", id: `manage-${m.id}` }, h("summary", { "aria-label": `${w("manage")} ${m.nickname}` }, w("manage")),
    h("div", { class: "btnrow" }, out));
}

function member(m) {
  return h("li", { class: "member", "data-member": m.id },
    h("div", { class: "row" }, h("span", { class: "avwrap" }, avatar(m.nickname, m.avatar, "small"),
      h("span", { class: `dot ${m.online ? "on" : "off"}`, title: w(m.online ? "onlineDot" : "offlineDot") },
        h("span", { class: "sr" }, w(m.online ? "onlineDot" : "offlineDot")))),
    h("span", { class: "grow nm" }, m.nickname, m.id === C.data.me ? h("span", { class: "muted" }, w("you")) : null),
    m.role !== "member" ? h("span", { class: `badge role-${m.role}` }, w(`role_${m.role}`)) : null),
    isAdmin() ? memberActions(m) : null);
}

function requests() {
  const rq = C.data.requests || [];
  return h("div", { class: "panel", id: "requests" }, h("h2", {}, w("requests")),
    rq.length ? h("ul", { class: "plain" }, rq.map((r) => h("li", { class: "row request", "data-request": r.id },
      h("span", { class: "grow nm" }, r.nickname, h("span", { class: "muted" }, ` · ${when(r.at)}`)),
      h("button", { class: "primary", "data-approve": r.id, onclick: guard(async () => {
        await post(`/api/clubs/${C.n}/requests/${r.id}`, { approve: true }); await refresh(); }) }, w("approve")),
      h("button", { "data-refuse": r.id, onclick: guard(async () => {
        await post(`/api/clubs/${C.n}/requests/${r.id}`, { approve: false }); await refresh(); }) }, w("refuse")))))
      : h("p", { class: "muted" }, w("noRequests")));
}

let madeInvite = null; // the link just made: its URL and QR stay shown across the page's live redraws
function invites() {
  const hours = h("input", { id: "invhours", type: "number", min: 1, max: 720, value: 72, inputmode: "numeric" });
  const uses = h("input", { id: "invuses", type: "number", min: 1, max: 500, value: 20, inputmode: "numeric" });
  const box = h("div", { class: "linkbox", id: "invitebox" });
  const show = (r) => {
    const field = h("input", { id: "inviteurl", value: r.url, readonly: true, "aria-label": w("copy") });
    box.replaceChildren(r.qr ? h("img", { class: "qr", id: "inviteqr", src: r.qr, alt: w("invites"), width: 200, height: 200 }) : "",
      h("div", { class: "row" }, field, h("button", { id: "copyinvite", onclick: async () => {
        try { await navigator.clipboard.writeText(r.url); toast(w("copied")); } catch { field.focus(); field.select(); toast(w("copySelected")); } } }, w("copy"))));
  };
  if (madeInvite) show(madeInvite);
  const make = guard(async () => {
    madeInvite = await post(`/api/clubs/${C.n}/invites`, { hours: +hours.value, uses: +uses.value });
    show(madeInvite); await refresh();
  });
  const list = (C.data.invites || []).map((i) => h("li", { class: "row", "data-invite": i.id },
    h("span", { class: "grow muted" }, w("inviteUses", { u: i.uses, m: i.max_uses, t: when(i.expires_at) })),
    h("button", { "data-revoke": i.id, onclick: guard(async () => {
      await post(`/api/clubs/${C.n}/invites/${i.id}/revoke`); if (madeInvite?.id === i.id) madeInvite = null; await refresh(); }) }, w("revoke"))));
  return h("div", { class: "panel", id: "invites" }, h("h2", {}, w("invites")),
    h("div", { class: "row" }, h("div", { class: "grow" }, h("label", { for: "invhours" }, w("hoursL")), hours),
      h("div", { class: "grow" }, h("label", { for: "invuses" }, w("usesL")), uses)),
    h("p", {}, h("button", { class: "primary wide", id: "makeinvite", onclick: make }, w("makeInvite"))), box,
    list.length ? h("ul", { class: "plain", id: "invitelist" }, list) : null);
}

function bans() {
  const bs = C.data.bans || [];
  if (!bs.length) return null;
  return h("div", { class: "panel", id: "bans" }, h("h2", {}, w("bans")),
    h("ul", { class: "plain" }, bs.map((b) => h("li", { class: "row", "data-ban": b.player },
      h("span", { class: "grow nm" }, b.nickname, h("span", { class: "muted" }, ` · ${when(b.at)}`)),
      h("button", { "data-unban": b.player, onclick: guard(async () => {
        await post(`/api/clubs/${C.n}/members/${b.player}/unban`); await refresh(); }) }, w("unban"))))));
}

function membersTab() {
  const ms = [...C.data.members].sort((a, b) => (b.role === "owner") - (a.role === "owner") || (b.role === "admin") - (a.role === "admin")
    || (b.online ? 1 : 0) - (a.online ? 1 : 0));
  return h("div", { id: "tab-members" },
    h("div", { class: "panel" }, h("h2", {}, `${w("tab_members")} · ${w("members", { n: ms.length })}`),
      h("ul", { class: "plain members", id: "members" }, ms.map(member))),
    isAdmin() ? requests() : null, isAdmin() ? invites() : null, isAdmin() ? bans() : null);
}

// -- the page --------------------------------------------------------------------------------------
const TAB_DRAW = { tables: tablesTab, members: membersTab, records: recordsTab, settle: settleTab, board: boardTab, settings: settingsTab };

function tabs() {
  return h("div", { class: "tabs", role: "tablist", "aria-label": C.data.name }, TABS.map((t) =>
    h("button", { role: "tab", id: `tabbtn-${t}`, "aria-selected": String(t === C.tab), "aria-controls": "tabpanel", "data-tab": t,
      onclick: () => { C.tab = t; history.replaceState(null, "", `#${t}`); draw(); } }, w(`tab_${t}`))));
}

function head() {
  const d = C.data;
  return h("div", { class: "panel clubhead", id: "clubhead" },
    h("div", { class: "row" }, h("h1", { class: "grow", id: "clubname" }, d.name),
      h("span", { class: `badge role-${d.role}`, id: "myrole" }, w(`role_${d.role}`))),
    h("div", { class: "muted" }, `${w("num", { n: d.number })} · ${w("members", { n: d.members.length })} · ${w("online", { n: d.members.filter((m) => m.online).length })}`),
    d.notice ? h("p", { class: "notice", id: "clubnotice" }, d.notice) : null);
}

export function draw() {
  if (C.gone || !C.data) return;
  document.title = `大贰 · ${C.data.name}`;
  // a live redraw keeps what the player opened, where they scrolled and the field they were in
  const open = [...C.$app.querySelectorAll("details[open][id]")].map((d) => d.id);
  const focused = document.activeElement?.id;
  const y = window.scrollY;
  C.$app.replaceChildren(bar("/clubs", w("back"), w("num", { n: C.n }), () => { draw(); }), head(), tabs(),
    h("div", { id: "tabpanel", role: "tabpanel", "aria-labelledby": `tabbtn-${C.tab}` }, TAB_DRAW[C.tab]()));
  for (const id of open) document.getElementById(id)?.setAttribute("open", "");
  if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  window.scrollTo(0, y);
}

function out(data, first) {
  C.gone = true;
  C.es?.close(); C.es = null;
  clearTimeout(C.timer);
  const stranger = first && data && data.error !== "banned";
  const ask = stranger ? h("p", {}, h("button", { class: "primary wide", id: "askjoin", onclick: guard(async () => {
    await post("/api/clubs/requests", { number: C.n }); document.getElementById("requeststatus").textContent = w("requested"); }) }, w("request"))) : null;
  C.$app.replaceChildren(bar("/clubs", w("back"), w("clubs"), () => out(data, first)),
    h("div", { class: "panel", id: first ? "notmember" : "gone", role: "alert" },
      h("h2", {}, first ? errText(data) : w("gone")), h("p", { class: "muted" }, first ? "" : w("goneHint")),
      ask, h("p", { class: "status", id: "requeststatus", role: "status" }),
      h("a", { href: "/clubs", class: "button", id: "toclubs" }, w("toClubs"))));
}

// the club again: the newest answer wins (an older one still on its way is dropped)
// (`redraw`: the player's own change, drawn whichever answer comes last, on any tab)
export async function refresh(first = false, redraw = false) {
  if (redraw) C.wantDraw = true;
  const seq = ++C.seq;
  const r = await get(`/api/clubs/${C.n}`);
  if (seq !== C.seq || C.gone) return;
  if (r.status === 403 || r.status === 404 || r.status === 401) { out(r.data, first && !C.data); return; }
  if (!r.ok) { toast(errText(r.data)); return; }
  C.data = r.data;
  // a live change redraws what it changes, never a form being filled in (settings) or a sheet being read
  if (first || C.wantDraw || C.tab === "tables" || C.tab === "members") { C.wantDraw = false; draw(); }
}

function listen() {
  if (typeof EventSource === "undefined") return;
  const es = new EventSource(`/api/clubs/${C.n}/events`);
  C.es = es;
  const soon = () => { clearTimeout(C.timer); C.timer = setTimeout(() => refresh(), 250); };
  es.onmessage = soon;
  es.onerror = () => { if (es.readyState === EventSource.CLOSED) { C.es = null; refresh(); } else soon(); };
}

export async function clubPage($app, n, redraw) {
  C.$app = $app; C.n = n; C.redraw = redraw;
  const t = location.hash.slice(1);
  if (TABS.includes(t)) C.tab = t;
  await loadOptions(); // the rulesets' names
  await refresh(true);
  if (!C.gone) listen();
}
export { isAdmin, isOwner, lang };
