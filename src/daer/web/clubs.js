// 亲友圈: /clubs (my clubs, create one, ask to join by number, the invite link's landing) and, from /club/{n}, the
// club page (club.js). The invite's secret is in the #fragment (never in a log or a Referer): the page spends it
// with a POST when the player presses 加入.
import { loadOptions, rulesetField } from "./lobby.js";
import { t } from "./i18n.js";
import { avatar, bar, get, guard, h, lang, post, toast, w, errText } from "./clubkit.js";
import { clubPage } from "./club.js";

const $app = document.getElementById("app");

// the options a club's rules start from: a ruleset, hands, timer, bot (house options keep their defaults)
export function rulesFields(opts, cfg = {}, prefix = "") {
  const rules = rulesetField(opts, cfg.rules || "luzhou", () => {});
  const sel = rules.el.querySelector("select");
  sel.id = `${prefix}rules`; rules.el.querySelector("label").setAttribute("for", sel.id);
  rules.el.querySelector(".rulesdesc").id = `${prefix}rulesdesc`;
  const hands = h("input", { id: `${prefix}hands`, type: "number", min: 1, max: 64, value: cfg.hands ?? 8, inputmode: "numeric" });
  const timer = h("input", { id: `${prefix}timer`, type: "number", min: 0, max: 600, value: cfg.timer ?? 30, inputmode: "numeric" });
  const bot = h("select", { id: `${prefix}bot` }, (opts.bots || ["normal"]).map((b) => h("option", { value: b, selected: b === (cfg.bot || "normal") }, t(`bot_${b}`))));
  const el = h("div", {}, rules.el,
    h("div", { class: "row" }, h("div", { class: "grow" }, h("label", { for: hands.id }, w("hands")), hands),
      h("div", { class: "grow" }, h("label", { for: timer.id }, w("timer")), timer)),
    h("label", { for: bot.id }, w("bot")), bot);
  return { el, value: () => ({ ...cfg, rules: sel.value, hands: +hands.value, timer: +timer.value, bot: bot.value }) };
}

function clubCard(c) {
  return h("a", { class: "clubcard", href: `/club/${c.number}`, "data-club": c.number },
    avatar(c.name, "c3", "small"),
    h("span", { class: "grow" }, h("span", { class: "cname" }, c.name),
      h("span", { class: "muted" }, `${w("num", { n: c.number })} · ${w("members", { n: c.members })} · ${w("online", { n: c.online ?? 0 })}`)),
    h("span", { class: `badge role-${c.role}` }, w(`role_${c.role}`)));
}

async function invite(secret) {
  const r = await get(`/api/clubs/invite?secret=${encodeURIComponent(secret)}`);
  if (!r.ok) return h("div", { class: "panel", id: "invite" }, h("p", {}, w("inviteGone")));
  const c = r.data;
  return h("div", { class: "panel", id: "invite" }, h("h2", {}, w("invited")),
    h("div", { class: "me-head" }, avatar(c.name, "c3"), h("div", {}, h("div", { class: "nick", id: "invitename" }, c.name),
      h("div", { class: "muted" }, `${c.number} · ${w("members", { n: c.members })}`))),
    h("p", {}, h("button", { class: "primary wide", id: "joininvite", onclick: guard(async () => {
      const j = await post("/api/clubs/join", { secret });
      history.replaceState(null, "", `/club/${j.number}`);
      // an invite link opened while /clubs is already open changes only the #fragment
window.addEventListener("hashchange", () => { if (location.pathname.startsWith("/clubs")) start(); });
start();
    }) }, w("join"))));
}

async function clubsPage() {
  const m = location.hash.match(/^#invite=([A-Za-z0-9_-]{1,128})$/);
  const [mine, opts, landing] = await Promise.all([get("/api/clubs"), loadOptions(), m ? invite(m[1]) : null]);
  const list = mine.ok && mine.data.clubs?.length
    ? h("div", { class: "clublist", id: "clublist" }, mine.data.clubs.map(clubCard))
    : h("p", { class: "muted", id: "noclubs" }, w("none"));
  const name = h("input", { id: "clubname", maxlength: 24, autocomplete: "off" });
  const notice = h("textarea", { id: "clubnotice", maxlength: 500, rows: 2 });
  const rules = rulesFields(opts);
  const create = guard(async () => {
    const c = await post("/api/clubs", { name: name.value.trim(), notice: notice.value.trim(), config: rules.value() });
    location.href = `/club/${c.number}`;
  });
  const number = h("input", { id: "clubnumber", inputmode: "numeric", maxlength: 6, pattern: "[0-9]{6}", autocomplete: "off" });
  const status = h("p", { class: "status", id: "requeststatus", role: "status" });
  const ask = guard(async () => {
    await post("/api/clubs/requests", { number: number.value.trim() });
    status.textContent = w("requested");
  });
  $app.replaceChildren(bar("/", w("lobby"), w("clubs"), start),
    landing || "",
    h("div", { class: "panel" }, h("div", { class: "row" }, h("h2", { class: "grow" }, w("myClubs")), h("a", { href: "/me", class: "link", id: "melink" }, w("me"))), list),
    h("div", { class: "panel", id: "joinpanel" }, h("h2", {}, w("joinNum")),
      h("label", { for: "clubnumber" }, w("number")), h("div", { class: "row" }, number, h("button", { id: "askjoin", onclick: ask }, w("request"))), status),
    h("details", { class: "panel", id: "createpanel", open: !(mine.ok && mine.data.clubs?.length) && !landing },
      h("summary", {}, h("b", {}, w("create"))),
      h("label", { for: "clubname" }, w("clubName")), name,
      h("label", { for: "clubnotice" }, `${w("notice")}（${w("noticeHint")}）`), notice,
      rules.el,
      h("p", {}, h("button", { class: "primary wide", id: "createclub", onclick: create }, w("createDo")))));
  if (!mine.ok && mine.status !== 401) toast(errText(mine.data));
}

async function start() {
  document.documentElement.lang = lang;
  const m = location.pathname.match(/^\/club\/(\d{6})\/?$/);
  if (m) { document.title = `大贰 · ${w("clubs")}`; await clubPage($app, m[1], start); return; }
  document.title = `大贰 · ${w("clubs")}`;
  await clubsPage();
}
// an invite link opened while /clubs is already open changes only the #fragment
window.addEventListener("hashchange", () => { if (location.pathname.startsWith("/clubs")) start(); });
start();
