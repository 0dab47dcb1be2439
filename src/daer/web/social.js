// What a table of friends does besides playing: the dissolve vote (解散投票), and (further down) who is watching,
// the same-network warning, quick phrases and emotes. The server decides everything; this draws room.vote etc.
import { h, words } from "./dom.js";
import { lang } from "./i18n.js";
import { loadOptions } from "./lobby.js";

export const sw = words({
  zh: {
    dissolve: "解散", proposeDissolve: "申请解散", confirmPropose: "发起解散投票？其他人都同意才解散。",
    voteTitle: "{who} 申请解散房间", agree: "同意", refuse: "拒绝", agreed: "已同意", waiting: "等待中",
    silence: "{n} 秒后未表态的算同意", refused: "{who}拒绝解散房间", passed: "大家同意，房间已解散",
    finalScores: "本场战绩", proposer: "发起人",
    watchers: "观战 {n} 人", watchersNamed: "观战 {n} 人：{names}", allowWatch: "允许观战（观众看到的牌局延后约一轮，看不到任何人的手牌）",
    noWatching: "房主不允许观战",
    shareTo: "分享到…", invite: "{host} 邀请你打{game} · {hands}局 · {state}", short: "还差{n}人", full: "人齐了，可以观战",
    nearTitle: "同网提醒", near: "{names} 从同一网络连接（同一 IP 地址或同一网段）。",
    nearWhat: "这只说明他们可能在同一个地方（同一个 Wi-Fi、同一个出口），不能证明串通；在不同网络也不能证明没有串通。房主仍可以开始。",
  },
  en: {
    dissolve: "Dissolve", proposeDissolve: "Ask to dissolve", confirmPropose: "Ask the table to dissolve the room? It ends only if everyone agrees.",
    voteTitle: "{who} asks to dissolve the room", agree: "Agree", refuse: "Refuse", agreed: "agreed", waiting: "waiting",
    silence: "No answer in {n} s counts as agreeing", refused: "{who} refused to dissolve the room", passed: "Everyone agreed: the room is dissolved",
    finalScores: "Match scores", proposer: "proposed",
    watchers: "{n} watching", watchersNamed: "{n} watching: {names}", allowWatch: "Allow watching (spectators see the table about one turn late, and nobody's hand)",
    noWatching: "The host does not allow watching",
    shareTo: "Share to…", invite: "{host} invites you to {game} · {hands} hands · {state}", short: "{n} seats free", full: "all seated; come and watch",
    nearTitle: "Same network", near: "{names} connect from one network (the same IP address or subnet).",
    nearWhat: "It only means they may be in one place (one Wi-Fi, one way out to the internet); it does not prove collusion, and different networks do not prove its absence. The host may start anyway.",
  },
}, () => lang);

const nameOf = (room, s) => room.seats[s]?.name || `${s + 1}`;

// The bar's button: the host's immediate 解散 before the first deal (app.js), a proposal afterwards (any seat).
export function proposeButton(room, ctx) {
  if (ctx.spectating() || room.status === "waiting" || !["playing", "between"].includes(room.status)) return null;
  if (room.vote && !room.vote.refused && !room.vote.passed) return null;
  return h("button", { class: "danger", id: "propose", onclick: () => { if (confirm(sw("confirmPropose"))) ctx.cmd("dissolve"); } },
    sw("dissolve"));
}

// The open vote: who asked, each seat's answer, the countdown (silence agrees, said on screen), 同意 / 拒绝.
export function voteBox(room, ctx) {
  const v = room.vote;
  if (!v || v.refused !== null || v.passed || !["playing", "between"].includes(room.status)) return null;
  const { S } = ctx;
  const mine = !ctx.spectating() && v.asked.includes(S.seat);
  const left = Math.max(0, Math.ceil((S.voteEnds - Date.now()) / 1000));
  const state = (s) => (s === v.by ? sw("proposer") : v.agreed.includes(s) ? sw("agreed") : v.asked.includes(s) ? sw("waiting") : "");
  return h("div", { class: "overlay vote", id: "vote", role: "dialog", "aria-modal": "true", "aria-labelledby": "votetitle" },
    h("div", { class: "sheet" },
      h("h2", { id: "votetitle" }, sw("voteTitle", { who: nameOf(room, v.by) })),
      h("ul", { class: "votelist" }, room.seats.map((s) => h("li", { "data-seat": s.seat, class: v.agreed.includes(s.seat) || s.seat === v.by ? "yes" : "" },
        h("span", { class: "grow" }, s.name || `${s.seat + 1}`), h("span", { class: "vs" }, state(s.seat))))),
      h("p", { class: "note", id: "votecount", "data-left": left }, sw("silence", { n: left })),
      mine ? h("p", { class: "row" },
        h("button", { class: "primary grow", id: "voteyes", onclick: () => ctx.cmd("agree") }, sw("agree")),
        h("button", { class: "danger grow", id: "voteno", onclick: () => ctx.cmd("refuse") }, sw("refuse"))) : null));
}

// Called on every update: the countdown's end on this device's clock, and a refusal told once.
export function afterVote(room, prev, S, toast) {
  const v = room.vote;
  if (v && !v.refused && !v.passed) S.voteEnds = Date.now() + v.left * 1000;
  const was = prev?.room.vote;
  if (v && v.refused !== null && (!was || was.at !== v.at || was.refused === null)) toast(sw("refused", { who: nameOf(room, v.refused) }));
}

export function tickVote() {
  const el = document.getElementById("votecount");
  if (!el) return;
  const S = tickVote.S;
  const left = Math.max(0, Math.ceil(((S && S.voteEnds) - Date.now()) / 1000));
  if (`${left}` !== el.dataset.left) { el.dataset.left = left; el.textContent = sw("silence", { n: left }); }
}

// A room dissolved by a vote: its 战绩 so far.
export function finalScores(room, amt) {
  if (!room.vote?.passed) return null;
  return h("div", { class: "panel", id: "final" }, h("h2", {}, sw("finalScores")), h("p", {}, sw("passed")),
    h("table", { class: "scores" }, room.seats.map((s) => h("tr", {}, h("td", {}, s.name || `${s.seat + 1}`),
      h("td", { class: s.score > 0 ? "pos" : s.score < 0 ? "neg" : "" }, amt(s.score))))));
}

// Who is watching: a count (and the names given) in the bar; tapping it says the names.
export function watchersEl(room, toast) {
  if (!room.watchers) return null;
  const text = room.watching.length ? sw("watchersNamed", { n: room.watchers, names: room.watching.join("、") }) : sw("watchers", { n: room.watchers });
  return h("button", { id: "watchers", class: "watchers", "aria-label": text, title: text, onclick: () => toast(text) }, `👁 ${room.watchers}`);
}

// The host's switch in the waiting room: spectators allowed or not.
export function watchSwitch(room, ctx) {
  const line = room.watching.length ? sw("watchersNamed", { n: room.watchers, names: room.watching.join("、") }) : sw("watchers", { n: room.watchers });
  const count = h("p", { class: "muted", id: "watchline" }, line);
  if (ctx.spectating() || ctx.S.seat !== room.host) return count;
  const box = h("input", { type: "checkbox", id: "allowwatch", checked: room.watch, onchange: (ev) => ctx.cmd(ev.currentTarget.checked ? "watch" : "nowatch") });
  return h("div", {}, h("p", { class: "row" }, box, h("label", { for: "allowwatch" }, sw("allowWatch"))), count);
}

// Before the first deal: which seats share a network (room.near, never an address), and what that does not prove.
export function nearWarning(room) {
  if (room.status !== "waiting" || !room.near?.length) return null;
  const sep = lang === "en" ? ", " : "、";
  return h("div", { class: "nearwarn", id: "nearwarn", role: "alert" }, h("b", {}, sw("nearTitle")),
    ...room.near.map((g) => h("p", { class: "neargroup" }, sw("near", { names: g.map((s) => `${s + 1}. ${nameOf(room, s)}`).join(sep) }))),
    h("p", { class: "note" }, sw("nearWhat")));
}

// The invitation's words, as the link's preview says them (server: daer.server.http.invites.invite_words).
export function inviteText(room, opts) {
  const rs = opts?.rulesets?.find((r) => r.name === room.rules);
  const game = (lang === "en" ? rs?.en : rs?.zh) || (lang === "en" ? "Da Er" : "大贰");
  const free = room.seats.filter((s) => s.kind === "empty").length;
  const host = room.seats[room.host]?.name || "";
  return sw("invite", { host, game, hands: room.hands, state: free ? sw("short", { n: free }) : sw("full") });
}

// "Share to…": the Web Share API (a phone's share sheet: WeChat, QQ …) with the preview's text and the link.
export function shareButton(room, link, toast, copy) {
  loadOptions();
  return h("button", { id: "sharelink", onclick: async () => {
    if (!navigator.share) { copy(); return; }
    const text = inviteText(room, await loadOptions());
    try { await navigator.share({ title: text, text, url: link }); } catch (e) { if (e?.name !== "AbortError") toast(String(e?.message || e)); }
  } }, sw("shareTo"));
}
