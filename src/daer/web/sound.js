// Sound and touch, all made on the device: effects synthesized with the Web Audio API, the spoken call-outs
// (碰 / 吃 / 招 / 胡 / 黄) small WAV files generated in the repo by scripts/make_voice.sh from Debian's espeak-ng
// (GPL-3.0-or-later; docs/sound.md) and served with the page — nothing is fetched from elsewhere.
// One mute switch, remembered on the device (localStorage "daer.mute"); vibration on one's turn where supported.
const KEY = "daer.mute";
let muted = localStorage.getItem(KEY) === "1";
let ac = null; // the AudioContext, made at the first tap (browsers allow sound only after a gesture)
const voices = new Map(); // name → AudioBuffer | Promise
export const VOICES = ["peng", "chi", "zhao", "hu", "huang"];

export const isMuted = () => muted;
export function setMuted(m) {
  muted = Boolean(m);
  localStorage.setItem(KEY, muted ? "1" : "0");
  if (!muted) unlock();
}

function unlock() {
  if (muted) return null;
  if (!ac) {
    const C = window.AudioContext || window.webkitAudioContext;
    if (!C) return null;
    try { ac = new C(); } catch { return null; }
    for (const v of VOICES) loadVoice(v);
  }
  if (ac.state === "suspended") ac.resume().catch(() => {});
  return ac;
}
// events that count as a gesture for every browser's autoplay rule (a touch's pointerdown does not)
for (const ev of ["click", "touchend", "keydown"]) document.addEventListener(ev, () => { if (!muted) unlock(); }, { capture: true });

function loadVoice(name) {
  if (voices.has(name)) return;
  const p = fetch(`/static/voice/${name}.wav`).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(r.status))))
    .then((buf) => new Promise((ok, no) => ac.decodeAudioData(buf, ok, no)))
    .then((b) => { voices.set(name, b); return b; })
    .catch(() => { voices.delete(name); return null; });
  voices.set(name, p);
}

const ready = () => (muted || !ac || ac.state !== "running" ? null : ac);

// one enveloped oscillator note: frequency (Hz), start offset and length (s), peak gain
function note(c, freq, at, len, { type = "sine", gain = 0.18, to = null } = {}) {
  const o = c.createOscillator(), g = c.createGain();
  const t0 = c.currentTime + at;
  o.type = type;
  o.frequency.setValueAtTime(freq, t0);
  if (to) o.frequency.exponentialRampToValueAtTime(to, t0 + len);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
  o.connect(g).connect(c.destination);
  o.start(t0); o.stop(t0 + len + 0.02);
}

// a short burst of filtered noise: a card slapped on the table
function slap(c, { at = 0, len = 0.07, freq = 1800, gain = 0.5 } = {}) {
  const n = Math.floor(c.sampleRate * len);
  const buf = c.createBuffer(1, n, c.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 3;
  const src = c.createBufferSource(), f = c.createBiquadFilter(), g = c.createGain();
  src.buffer = buf; f.type = "bandpass"; f.frequency.value = freq; f.Q.value = 0.9; g.gain.value = gain;
  src.connect(f).connect(g).connect(c.destination);
  src.start(c.currentTime + at);
}

export const sfx = {
  discard() { const c = ready(); if (c) { slap(c); note(c, 180, 0, 0.06, { type: "triangle", gain: 0.12 }); } },
  reveal() { const c = ready(); if (c) slap(c, { freq: 2600, gain: 0.3, len: 0.05 }); },
  claim() { const c = ready(); if (c) { slap(c, { freq: 1200 }); note(c, 523, 0.03, 0.12, { type: "triangle" }); note(c, 784, 0.1, 0.16, { type: "triangle" }); } },
  win() { const c = ready(); if (c) [523, 659, 784, 1047].forEach((f, i) => note(c, f, i * 0.11, 0.35, { type: "triangle", gain: 0.16 })); },
  draw() { const c = ready(); if (c) [392, 330, 262].forEach((f, i) => note(c, f, i * 0.14, 0.3, { gain: 0.12 })); },
  turn() { const c = ready(); if (c) { note(c, 880, 0, 0.18, { gain: 0.14 }); note(c, 1175, 0.12, 0.25, { gain: 0.12 }); } },
  tick() { const c = ready(); if (c) note(c, 1400, 0, 0.04, { type: "square", gain: 0.05 }); },
};

// the spoken word for a claim or the end: 碰 / 吃 / 招 / 胡 / 黄
export function callout(name) {
  const c = ready();
  const b = c && voices.get(name);
  if (!b || b instanceof Promise) return false;
  const src = c.createBufferSource(), g = c.createGain();
  src.buffer = b; g.gain.value = 0.9;
  src.connect(g).connect(c.destination);
  src.start();
  return true;
}

// a quick phrase's voice (web/voice/say-<id>.wav): loaded at its first use, then kept
export function playVoice(name) {
  const c = ready();
  if (!c) return;
  if (!voices.has(name)) { loadVoice(name); Promise.resolve(voices.get(name)).then(() => callout(name)); return; }
  callout(name);
}

export function vibrate(pattern) {
  if (muted || !navigator.vibrate) return;
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return; // refused before a first tap
  try { navigator.vibrate(pattern); } catch { /* not allowed before a tap: nothing to do */ }
}
