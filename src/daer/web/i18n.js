// Player-facing text: Chinese first, English on the switch.
// The words of the game, as the terminal says them (src/daer/cli/terms.py TERMS, docs/glossary.md "English
// words"; tests/web/test_page_bugs.py keeps the two in step): key → [中文, English].
export const TERMS = {
  run: ["顺", "run"],
  jiao: ["绞", "mixed trio"],
  pair: ["对", "pair"],
  kan: ["坎", "dealt pong"],
  peng: ["碰", "pong"],
  zhao: ["招", "kong"],
  long: ["垅", "dealt kong"],
  chi: ["吃", "chow"],
  wei: ["偎", "wei (drawn pong)"],
  chou_wei: ["臭偎", "open wei (pong passed up before)"],
  ti: ["提", "ti (kong from hand)"],
  pao: ["跑", "pao (kong)"],
  bi: ["比", "bi (must also lay down)"],
  dealer: ["庄", "dealer"],
  dijia: ["底家", "dijia (sits out)"],
  you: ["你", "you"],
  huang: ["黄牌", "draw"],
  hu: ["胡", "hu"],
  deng: ["等", "deng"],
};
const termEn = (key) => TERMS[key][1];
// seat tags say just "dijia" (glossary); buttons take capitals
const capital = (w) => w[0].toUpperCase() + w.slice(1);
const T = {
  zh: {
    title: "大贰 · 网上牌桌", create: "创建房间", join: "加入", joinCode: "房间号", name: "昵称",
    rules: "规则", hands: "局数", timer: "出牌计时（秒，0=不限）", bot: "机器人", bot_easy: "简单", bot_normal: "普通", bot_hard: "困难",
    bot_random: "随机", bot_randomish: "半随机", bot_heuristic: "经验型", bot_search: "搜索型（每步想一秒）", bot_learned: "学习型", bot_hybrid: "混合型（每步想一秒）", house: "自定规则",
    spectate: "观战", start: "开始（空位由机器人补上）", waitingHost: "等待房主开始…", share: "分享房间号或链接：",
    copy: "复制链接", copied: "已复制", copySelected: "已选中链接，请长按或按 Ctrl+C 复制",
    backTo: "回到房间 {code} 的牌桌", toLobby: "回大厅", netError: "网络错误", leave: "离开", dissolve: "解散房间", confirmDissolve: "确定解散房间？",
    confirmLeave: "确定离开？你的座位会交给机器人。", stock: "墩", bottom: "底", you: "我", next: "下家",
    across: "对家", prev: "上家", dealer: "庄", dijia: "底家", auto: "托管", offline: "离线", turn: "出牌",
    deciding: "请选择", waitOthers: "等待其他人…", yourTurn: "轮到你出牌：点一张牌，再点一次打出", waitsHint: "叫牌", hu: "胡",
    discard: "打", pass: "过", peng: "碰", zhao: "招", chi: "吃", bi: "比", winHu: "胡",
    resume: "取消托管", autoOn: "托管中：机器人代你出牌", nextHand: "下一局", ready: "已准备",
    settle: "结算", winner: "赢家", draw: "黄牌（无人胡）", multipliers: "番", factor: "倍数", deng: "等",
    red: "红字", pays: "付", total: "总分", finished: "比赛结束", replay: "回放", record: "下载牌谱",
    hand: "第 {n}/{N} 局", room: "房间", reconnecting: "连接中断，正在重连…", closed: "房间已关闭",
    fromReveal: "翻出", fromDiscard: "打出", points: "得分", seatsTitle: "座位", emptySeat: "空位",
    join2: "加入房间", noToken: "你还没有座位", hands2: "手牌", lang: "English", instant: "起手胡", calc: "计胡器",
    flags: { tianhu: "天胡", dihu: "地胡", haidi: "海底", self_drawn: "自摸" },
    score: "分", meldsLbl: "明牌", discardsLbl: "弃牌", lastDiscard: "刚打出的牌", seatToPlay: "{who} 出牌中…",
    secondsLeft: "剩余秒数", tapTwice: "点一张牌，再点一次（或点「打」）打出", bao: "报牌", feed: "记录", newHand: "新一局",
    huangWord: "黄", pace: "节奏（机器人出牌、等人吃碰的快慢）", pace_fast: "快", pace_normal: "标准", pace_slow: "慢（适合新手）", tishi: "提示", hintOpt: "提示：轮到你时显示机器人的建议和理由（练习用，付钱玩法不能开）", mute: "静音", sound: "声音", soundOn: "声音：开", soundOff: "声音：关",
  },
  en: {
    title: "Da Er · online table", create: "Create room", join: "Join", joinCode: "Room code", name: "Name",
    rules: "Rules", hands: "Hands", timer: "Turn timer (s, 0 = none)", bot: "Bots", bot_easy: "Easy", bot_normal: "Normal", bot_hard: "Hard",
    bot_random: "Random", bot_randomish: "Randomish", bot_heuristic: "Heuristic", bot_search: "Search (thinks ~1 s a move)", bot_learned: "Learned", bot_hybrid: "Hybrid (thinks ~1 s a move)", house: "House rules",
    spectate: "Watch", start: "Start (bots take empty seats)", waitingHost: "Waiting for the host…", share: "Share the code or link:",
    copy: "Copy link", copied: "Copied", copySelected: "Link selected: long-press or Ctrl+C to copy",
    backTo: "Back to the table of room {code}", toLobby: "To the lobby", netError: "network error", leave: "Leave", dissolve: "Dissolve room", confirmDissolve: "Dissolve the room?",
    confirmLeave: "Leave? A bot takes your seat.", stock: "Stock", bottom: "Bottom", you: "Me", next: "Next",
    across: "Across", prev: "Previous", dealer: "Dealer", dijia: termEn("dijia").replace(/ \(.*\)$/, ""), auto: "Auto", offline: "offline", turn: "to play",
    deciding: "Choose", waitOthers: "Waiting for others…", yourTurn: "Your turn: tap a card, tap again to discard", waitsHint: "Waiting on", hu: "hu",
    discard: "Discard", pass: "Pass", peng: capital(termEn("peng")), zhao: capital(termEn("zhao")), chi: capital(termEn("chi")),
    bi: "+ bi", winHu: "Hu!",
    resume: "Take back my seat", autoOn: "Auto-play: a bot plays for you", nextHand: "Next hand", ready: "Ready",
    settle: "Settlement", winner: "Winner", draw: "Draw (no winner)", multipliers: "Multipliers", factor: "Factor", deng: "Deng",
    red: "red cards", pays: "pays", total: "Total", finished: "Match over", replay: "Replay", record: "Download record",
    hand: "Hand {n}/{N}", room: "Room", reconnecting: "Connection lost, reconnecting…", closed: "The room is closed",
    fromReveal: "revealed", fromDiscard: "discarded", points: "Points", seatsTitle: "Seats", emptySeat: "empty",
    join2: "Join room", noToken: "You have no seat here", hands2: "Cards", lang: "中文", instant: "Instant win", calc: "Calculator",
    flags: { tianhu: "heavenly", dihu: "earthly", haidi: "last card", self_drawn: "self-drawn" },
    score: "Score", meldsLbl: "Melds", discardsLbl: "Discards", lastDiscard: "the last discard", seatToPlay: "{who} to play…",
    secondsLeft: "seconds left", tapTwice: "Tap a card, then tap it again (or Discard)", bao: "Declare ready", feed: "Log", newHand: "New hand",
    huangWord: "Draw", pace: "Pace (how fast bots play and claims wait)", pace_fast: "Fast", pace_normal: "Normal", pace_slow: "Slow (for beginners)", tishi: "Hint", hintOpt: "Hints: the bot's suggestion and why on your turn (for practice; not with money play)", mute: "Mute", sound: "Sound", soundOn: "Sound: on", soundOff: "Sound: off",
  },
};
export let lang = localStorage.getItem("daer.lang") || "zh";
export function setLang(l) { lang = l; localStorage.setItem("daer.lang", l); }
export function t(key, vars = {}) {
  let s = T[lang][key] ?? T.zh[key] ?? key;
  if (typeof s === "string") for (const [k, v] of Object.entries(vars)) s = s.replace(`{${k}}`, v);
  return s;
}
// A game word by its key (TERMS) in the page's language; `short` drops the English gloss ("wei (drawn pong)" → "wei").
export function term(key, { short = false } = {}) {
  const pair = TERMS[key];
  if (!pair) return key;
  if (lang !== "en") return pair[0];
  return short ? pair[1].replace(/ \(.*\)$/, "") : pair[1];
}
// A term the server sends in Chinese (a 列's shape, "顺") in the page's language ("run" in English).
const BY_ZH = Object.fromEntries(Object.values(TERMS));
export const termOfZh = (zh) => (lang === "en" ? BY_ZH[zh] ?? zh : zh);
