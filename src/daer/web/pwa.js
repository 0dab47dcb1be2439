// Installable page: registers the table page's offline worker (/sw.js) and says clearly, Chinese first, when the
// server cannot be reached — the page opens from its cache, but the game needs the server.
import { lang } from "./i18n.js";

const TEXT = {
  offline: ["离线：连不上服务器。牌局需要服务器才能进行，网络恢复后会自动重连。",
    "Offline: the server cannot be reached. The game needs the server; it reconnects by itself when the network is back."],
  update: ["新版本已就绪", "A new version is ready"],
  reload: ["刷新", "Reload"],
};
const say = (key) => TEXT[key][lang === "en" ? 1 : 0];

// The server answers (any status below 500: a proxy in front says 502/503/504 when the server is down).
async function reachable() {
  try {
    const res = await fetch("/healthz", { cache: "no-store" });
    return res.status < 500;
  } catch {
    return false;
  }
}

let probing = false;
let again = null;
function banner(show) {
  let el = document.getElementById("offline");
  if (!show) { if (el) el.remove(); return; }
  if (el) return;
  el = document.createElement("div");
  el.id = "offline";
  el.className = "netbanner";
  el.setAttribute("role", "alert");
  const [zh, en] = TEXT.offline;
  el.append(Object.assign(document.createElement("b"), { textContent: lang === "en" ? en : zh }));
  if (lang !== "en") el.append(Object.assign(document.createElement("span"), { textContent: en, lang: "en" }));
  document.body.prepend(el);
}

// Look at the server now, and again every few seconds while it cannot be reached.
export async function check() {
  if (probing) return;
  probing = true;
  let ok = false;
  try { ok = navigator.onLine !== false && await reachable(); } finally { probing = false; }
  banner(!ok);
  clearTimeout(again);
  if (!ok) again = setTimeout(check, 3000);
}

function offerReload() {
  if (document.getElementById("updated")) return;
  const btn = Object.assign(document.createElement("button"), { id: "reload", textContent: say("reload") });
  btn.addEventListener("click", () => location.reload());
  const el = document.createElement("div");
  el.id = "updated";
  el.className = "netbanner update";
  el.setAttribute("role", "status");
  el.append(Object.assign(document.createElement("span"), { textContent: say("update") }), btn);
  document.body.prepend(el);
}

window.addEventListener("offline", () => banner(true));
window.addEventListener("online", check);
// the table page marks a dropped socket on <body data-conn="lost">: look whether the server is still there
new MutationObserver(() => { if (document.body.dataset.conn === "lost") check(); })
  .observe(document.body, { attributes: true, attributeFilter: ["data-conn"] });
check();

if ("serviceWorker" in navigator) {
  let had = navigator.serviceWorker.controller !== null;
  // a new version's worker took over (not the first worker claiming a first visit): this page still runs the old
  // files until it is reloaded
  navigator.serviceWorker.addEventListener("controllerchange", () => { if (had) offerReload(); had = true; });
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}
