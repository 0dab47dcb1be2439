// The calculator page's offline worker: keeps the page's own files so /calc opens without a network.
// Network first (an online page is always the newest), the cache when the network is down.  Scoring
// itself is a POST to the server and is never cached: offline, the page says it needs the network.
const CACHE = "daer-calc-v1";
const FILES = ["/calc", "/static/calc.js", "/static/calc.css", "/static/cards.js", "/static/i18n.js",
  "/static/style.css", "/api/score/options"];

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("daer-calc-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || !FILES.includes(url.pathname)) return;
  const key = url.pathname; // /calc?h=… opens the one cached page whatever the hand in its query string
  ev.respondWith(fetch(req).then((res) => {
    if (res.ok) { const copy = res.clone(); caches.open(CACHE).then((c) => c.put(key, copy)); }
    return res;
  }).catch(() => caches.match(key).then((hit) => hit || Response.error())));
});
