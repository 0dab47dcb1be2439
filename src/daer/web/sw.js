// The table page's offline worker (/sw.js, scope /): the page shell opens at once from its cache, even on a flaky
// network; the game itself (the API, the WebSocket) always goes to the server and is never cached.
//
// The server writes BUILD when it serves this file (daer.server.http.pwa): the version is a hash of the shell's files
// and the list is every file the lobby, the table and the replay load.  A new version changes these bytes, so the
// browser installs the new worker, which caches the new files in a cache of its own, takes over and deletes the
// old caches; the page (web/pwa.js) offers a reload.
const BUILD = { version: "dev", files: [] }; // written by the server
const CACHE = `daer-table-${BUILD.version}`;
const PAGE = "/"; // index.html: the lobby and every /r/CODE
const REPLAY = "/static/replay.html"; // every /replay/CODE/N

self.addEventListener("install", (ev) => {
  // cache: "reload" — straight from the server, never a stale copy from the browser's HTTP cache
  ev.waitUntil(caches.open(CACHE)
    .then((c) => c.addAll(BUILD.files.map((f) => new Request(f, { cache: "reload" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("daer-table-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// The cache key a GET is answered from, or null for everything the worker leaves alone (the API, /ws, /healthz,
// /calc and its own worker, other sites).
function keyOf(req) {
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return null;
  if (req.mode === "navigate") {
    if (url.pathname === "/" || /^\/r\/[A-Za-z0-9]+\/?$/.test(url.pathname)) return PAGE;
    if (/^\/replay\/[^/]+\/\d+\/?$/.test(url.pathname)) return REPLAY;
    return null;
  }
  if (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest") return url.pathname;
  return null;
}

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  if (req.method !== "GET") return;
  const key = keyOf(req);
  if (key === null) return;
  // cache first (this version's files, all cached together at install); a file not in the list (a sound, an icon)
  // is fetched once and kept in the same cache
  ev.respondWith(caches.open(CACHE).then((c) => c.match(key).then((hit) => hit || fetch(req).then((res) => {
    if (res.ok && res.type === "basic" && key.startsWith("/static/")) c.put(key, res.clone());
    return res;
  }))));
});
