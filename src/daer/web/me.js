// 我的: the player's nickname and avatar, a second device (one-time link + QR), passkeys, sign out, export,
// delete. Everything a player typed is set as text (textContent / attributes), never as HTML.
import { h, words } from "./dom.js";
import { avatar, errText, guard, post, toast } from "./clubkit.js";
import { myRecords } from "./me-records.js";
import { setLang } from "./i18n.js";

let lang = localStorage.getItem("daer.lang") || "zh";
const W = {
  zh: {
    title: "我的", clubs: "亲友圈", lobby: "← 大厅", lang: "English", nickname: "昵称", avatar: "头像", save: "保存", saved: "已保存",
    stranger: "你还没有玩家身份。坐下打一局（开房或加入朋友的房间）就会自动创建，不用注册。",
    passkeyIn: "用通行密钥登录", toLobby: "去大厅开房", device: "在另一台设备上登录",
    deviceHint: "用另一台手机扫码，或把链接发给自己。{m} 分钟内有效，只能用一次。", makeLink: "生成登录链接",
    copy: "复制链接", copied: "已复制", copySelected: "已选中链接，请长按复制",
    passkeys: "通行密钥", passkeysHint: "所有设备都丢了，也能用通行密钥（指纹、面容或设备密码）重新登录。",
    addPasskey: "添加通行密钥", passkeyAdded: "通行密钥已添加", passkeyCount: "已有 {n} 个通行密钥",
    noPasskey: "这个浏览器不支持通行密钥", devices: "设备", devicesCount: "已在 {n} 台设备上登录",
    signOutOthers: "退出其他设备", signedOutOthers: "已退出 {n} 台其他设备", signOut: "退出登录",
    data: "我的数据", export: "导出我的数据（JSON）", del: "注销账号",
    delHint: "昵称、头像和所有登录凭证都会删除，不能恢复；和别人一起打过的牌局记录保留，名字显示为“已注销玩家”。",
    delType: "输入“删除”确认", delDo: "永久注销", deleted: "账号已注销", linked: "已在这台设备上登录",
    signedIn: "已登录", netError: "网络错误", since: "{d} 加入",
    colours: ["红", "橙", "金", "绿", "青", "蓝", "紫", "灰"],
  },
  en: {
    title: "Me", clubs: "Clubs", lobby: "← Lobby", lang: "中文", nickname: "Nickname", avatar: "Avatar", save: "Save", saved: "Saved",
    stranger: "You have no player yet. Take a seat (create a room or join a friend's) and one is made for you, no sign-up.",
    passkeyIn: "Sign in with a passkey", toLobby: "To the lobby", device: "Sign in on another device",
    deviceHint: "Scan it with the other phone, or send the link to yourself. Valid {m} minutes, once.", makeLink: "Make a sign-in link",
    copy: "Copy link", copied: "Copied", copySelected: "Link selected: long-press to copy",
    passkeys: "Passkeys", passkeysHint: "If every device is lost, a passkey (fingerprint, face or device PIN) signs you in again.",
    addPasskey: "Add a passkey", passkeyAdded: "Passkey added", passkeyCount: "{n} passkey(s)",
    noPasskey: "This browser has no passkeys", devices: "Devices", devicesCount: "Signed in on {n} device(s)",
    signOutOthers: "Sign out every other device", signedOutOthers: "{n} other device(s) signed out", signOut: "Sign out",
    data: "My data", export: "Export my data (JSON)", del: "Delete my account",
    delHint: "Your nickname, avatar and every sign-in are deleted for good; games shared with others keep their records under \"已注销玩家\" (deleted player).",
    delType: "Type 删除 to confirm", delDo: "Delete for good", deleted: "Account deleted", linked: "Signed in on this device",
    signedIn: "Signed in", netError: "network error", since: "joined {d}",
    colours: ["red", "orange", "gold", "green", "teal", "blue", "purple", "grey"],
  },
};
const w = words(W, () => lang);
const colourName = (a) => (W[lang] || W.zh).colours[Number(a.slice(1))] ?? a;
const $app = document.getElementById("app");




// -- WebAuthn: the options' base64url fields to bytes and the credential back to JSON (no build step, no library)
const b64dec = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4)),
  (c) => c.charCodeAt(0)).buffer;
const b64enc = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
function credJSON(c) {
  const r = c.response;
  const response = { clientDataJSON: b64enc(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64enc(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = b64enc(r.authenticatorData);
    response.signature = b64enc(r.signature);
    if (r.userHandle) response.userHandle = b64enc(r.userHandle);
  }
  return { id: c.id, rawId: b64enc(c.rawId), type: c.type, response, clientExtensionResults: {},
    authenticatorAttachment: c.authenticatorAttachment || undefined };
}
const hasPasskeys = () => Boolean(window.PublicKeyCredential && navigator.credentials);

async function addPasskey() {
  const o = await post("/api/me/passkeys/begin");
  o.challenge = b64dec(o.challenge);
  o.user.id = b64dec(o.user.id);
  o.excludeCredentials = (o.excludeCredentials || []).map((d) => ({ ...d, id: b64dec(d.id) }));
  const cred = await navigator.credentials.create({ publicKey: o });
  return post("/api/me/passkeys/finish", { credential: credJSON(cred) });
}

async function passkeySignIn() {
  const o = await post("/api/passkeys/begin");
  o.challenge = b64dec(o.challenge);
  o.allowCredentials = (o.allowCredentials || []).map((d) => ({ ...d, id: b64dec(d.id) }));
  const cred = await navigator.credentials.get({ publicKey: o });
  return post("/api/passkeys/finish", { credential: credJSON(cred) });
}

// -- the page ------------------------------------------------------------------------------------------
function bar() {
  return h("div", { class: "bar" }, h("a", { href: "/", class: "back", id: "lobbylink" }, w("lobby")),
    h("span", { class: "grow title" }, w("title")),
    h("a", { href: "/clubs", class: "back", id: "clubslink" }, w("clubs")),
    h("button", { id: "lang", onclick: () => { lang = lang === "zh" ? "en" : "zh"; setLang(lang);
      document.documentElement.lang = lang; start(); } }, w("lang")));
}


function stranger() {
  const signIn = hasPasskeys() ? h("button", { class: "primary", id: "passkeyin", onclick: guard(async () => {
    await passkeySignIn(); toast(w("signedIn")); start(); }) }, w("passkeyIn")) : null;
  $app.replaceChildren(bar(), h("div", { class: "panel", id: "stranger" }, h("p", {}, w("stranger")),
    h("div", { class: "me-actions" }, h("a", { href: "/", class: "button", id: "tolobby" }, w("toLobby")), signIn)));
}

function profile(me) {
  let chosen = me.avatar;
  const status = h("p", { class: "status", id: "profilestatus", role: "status" });
  const nick = h("input", { id: "nickname", value: me.nickname, maxlength: me.nickname_max, autocomplete: "nickname" });
  const head = () => h("div", { class: "me-head" }, avatar(nick.value.trim() || me.nickname, chosen),
    h("div", {}, h("div", { class: "nick", id: "shownick" }, me.nickname), h("div", { class: "muted" }, w("since", { d: new Date(me.created_at * 1000).toLocaleDateString(lang === "en" ? "en" : "zh-CN") }))));
  const top = h("div", {}, head());
  const choices = h("div", { class: "avatars", role: "group", "aria-label": w("avatar") });
  const drawChoices = () => choices.replaceChildren(...me.avatars.map((a) => h("button", { type: "button", "data-avatar": a,
    "aria-pressed": String(a === chosen), "aria-label": `${w("avatar")}：${colourName(a)}`, onclick: () => { chosen = a; drawChoices(); top.replaceChildren(head()); } },
  avatar(nick.value.trim() || me.nickname, a, "small"))));
  drawChoices();
  nick.addEventListener("input", () => { drawChoices(); top.replaceChildren(head()); });
  const save = guard(async () => {
    const fresh = await post("/api/me", { nickname: nick.value, avatar: chosen });
    localStorage.setItem("daer.name", fresh.nickname); // the lobby's name field starts from it
    Object.assign(me, fresh); top.replaceChildren(head()); status.textContent = w("saved");
  });
  return h("div", { class: "panel", id: "profile" }, top,
    h("label", { for: "nickname" }, w("nickname")), nick,
    h("label", {}, w("avatar")), choices,
    h("button", { class: "primary", id: "save", style: "width:100%", onclick: save }, w("save")), status);
}

function device() {
  const box = h("div", { class: "linkbox", id: "linkbox" });
  const make = guard(async () => {
    const r = await post("/api/me/links");
    const field = h("input", { id: "linkurl", value: r.url, readonly: true, "aria-label": w("copy") });
    box.replaceChildren(
      h("img", { class: "qr", id: "qr", src: r.qr, alt: w("device"), width: 200, height: 200 }),
      h("p", { class: "muted" }, w("deviceHint", { m: Math.round(r.expires_in / 60) })),
      h("div", { class: "row" }, field, h("button", { id: "copylink", onclick: async () => {
        try { await navigator.clipboard.writeText(r.url); toast(w("copied")); } catch {
          field.focus(); field.select(); toast(w("copySelected")); } } }, w("copy"))));
  });
  return h("div", { class: "panel", id: "device" }, h("h2", {}, w("device")),
    h("div", { class: "me-actions" }, h("button", { id: "makelink", onclick: make }, w("makeLink"))), box);
}

function passkeys(me) {
  const count = h("p", { class: "muted", id: "passkeycount" }, w("passkeyCount", { n: me.passkeys }));
  const add = hasPasskeys() ? h("button", { id: "addpasskey", onclick: guard(async () => {
    const r = await addPasskey(); count.textContent = w("passkeyCount", { n: r.passkeys }); toast(w("passkeyAdded")); }) }, w("addPasskey"))
    : h("p", { class: "muted" }, w("noPasskey"));
  return h("div", { class: "panel", id: "passkeys" }, h("h2", {}, w("passkeys")), h("p", { class: "muted" }, w("passkeysHint")),
    count, h("div", { class: "me-actions" }, add));
}

function account(me) {
  const devices = h("p", { class: "muted", id: "devicecount" }, w("devicesCount", { n: me.devices }));
  return h("div", { class: "panel", id: "account" },
    h("h2", {}, w("devices")), devices,
    h("div", { class: "me-actions" },
      h("button", { id: "signoutothers", onclick: guard(async () => {
        const r = await post("/api/me/signout-others"); toast(w("signedOutOthers", { n: r.signed_out })); start(); }) }, w("signOutOthers")),
      h("button", { id: "signout", onclick: guard(async () => { await post("/api/me/signout"); stranger(); }) }, w("signOut"))));
}

function data() {
  const confirmField = h("input", { id: "delconfirm", placeholder: "删除", autocomplete: "off", "aria-label": w("delType") });
  const del = guard(async () => {
    await post("/api/me/delete", { confirm: confirmField.value.trim() });
    localStorage.removeItem("daer.name");
    toast(w("deleted")); stranger();
  });
  return h("div", { class: "panel", id: "data" }, h("h2", {}, w("data")),
    h("div", { class: "me-actions" }, h("a", { href: "/api/me/export", download: "", class: "button", id: "export" }, w("export"))),
    h("details", { class: "danger-zone", id: "delete" }, h("summary", {}, w("del")),
      h("p", { class: "muted" }, w("delHint")), h("label", { for: "delconfirm" }, w("delType")), confirmField,
      h("p", {}, h("button", { class: "danger", id: "deldo", style: "width:100%", onclick: del }, w("delDo")))));
}

async function start() {
  document.documentElement.lang = lang;
  document.title = `大贰 · ${w("title")}`;
  const m = location.hash.match(/^#link=([A-Za-z0-9_-]{1,128})$/);
  if (m) { // a second device's one-time link: spent at once, then gone from the address bar
    history.replaceState(null, "", "/me");
    try { await post("/api/me/link/redeem", { secret: m[1] }); toast(w("linked")); } catch (e) { toast(errText(e)); }
  }
  const res = await fetch("/api/me").catch(() => null);
  const me = res ? await res.json().catch(() => ({})) : { zh: w("netError"), en: "network error" };
  if (!res || !res.ok) { toast(errText(me)); stranger(); return; }
  if (!me.signed_in) { stranger(); return; }
  $app.replaceChildren(bar(), profile(me), myRecords(), device(), passkeys(me), account(me), data());
}
start();
