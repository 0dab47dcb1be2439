// The verifiable deal (docs/fairness.md), the same function as daer.engine.fairness: the deck follows from
// the server's seed and the seats' entropy; after the hand anyone can rebuild it and check the commitment.
const SCHEME = "daer-deal-v1";
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
const bytesOf = (text) => new Uint8Array((text.match(/../g) || []).map((x) => parseInt(x, 16)));
const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));

// SHA-256 is only offered by browsers on https pages and on the machine itself (localhost).
export const canVerify = () => Boolean(globalThis.crypto && globalThis.crypto.subtle);

// 16 random bytes as hex: what the page adds to every deal.
export function randomEntropy() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

export async function commitmentOf(seed) {
  return hex(await sha256(bytesOf(seed)));
}

export async function deriveDeck(seed, entropy, n = 80) {
  const key = await sha256(new TextEncoder().encode([SCHEME, seed, ...entropy].join("|")));
  const block = new Uint8Array(36);
  block.set(key);
  let counter = 0;
  let words = null;
  let pos = 8;
  const next = async () => {
    if (pos === 8) {
      new DataView(block.buffer).setUint32(32, counter++, false);
      words = new DataView((await sha256(block)).buffer);
      pos = 0;
    }
    return words.getUint32(4 * pos++, false);
  };
  const deck = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const m = i + 1;
    const limit = Math.floor(4294967296 / m) * m;
    let w = await next();
    while (w >= limit) w = await next();
    const j = w % m;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// {ok, zh, en} for a hand record (JSON as downloaded from /api/hands/ID/record).
export async function verifyRecord(rec) {
  const f = rec.fairness;
  if (!f || !rec.deck) return { ok: null, zh: "这一局没有可验证的发牌数据", en: "this hand has no verifiable deal" };
  if (!canVerify()) return { ok: null, zh: "此页面不能计算 SHA-256（需要 https），请用 daer verify", en: "SHA-256 needs https here; use daer verify" };
  if (f.scheme !== SCHEME || !/^[0-9a-f]{64}$/.test(f.seed)) return { ok: false, zh: "未知的发牌方案或种子", en: "unknown scheme or malformed seed" };
  if (await commitmentOf(f.seed) !== f.commitment) return { ok: false, zh: "种子与发牌前公布的承诺不符", en: "the seed does not match the commitment" };
  const deck = await deriveDeck(f.seed, f.entropy, rec.deck.length);
  if (deck.some((c, i) => c !== rec.deck[i])) return { ok: false, zh: "牌堆不是由种子和玩家随机数算出的", en: "the deck does not follow from the seed and entropy" };
  return { ok: true, zh: "发牌可验证：种子符合承诺，牌堆由种子和玩家随机数算出", en: "deal verified: the seed matches the commitment and the deck follows" };
}
