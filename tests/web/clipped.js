// The page test's check (test_layout.py): text or a countdown ring of the table cut by its container.
() => {
  const bad = [];
  const W = innerWidth, H = innerHeight;
  const clipsX = (cs) => cs.overflowX === 'hidden' || cs.overflowX === 'clip';
  const clipsY = (cs) => cs.overflowY === 'hidden' || cs.overflowY === 'clip';
  const scrolls = (cs) => /auto|scroll/.test(cs.overflowX + cs.overflowY);
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && e.className.baseVal === undefined ? '.' + String(e.className).trim().split(/\s+/).join('.') : '');
  const els = [...document.querySelectorAll('#table *, #app > .bar *')]
    .filter((e) => e.getClientRects().length && !e.closest('.sr') && getComputedStyle(e).visibility !== 'hidden');
  for (const e of els) {
    const texty = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) || e.classList.contains('timer');
    if (!texty) continue;
    const cs = getComputedStyle(e);
    const r = e.getBoundingClientRect();
    let inScroll = false;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) if (scrolls(getComputedStyle(a)) && a.scrollWidth > a.clientWidth + 1) { inScroll = true; break; }
    if (!inScroll && (r.left < -1 || r.right > W + 1)) { bad.push(['off-screen', name(e), e.textContent.slice(0, 30), Math.round(r.left), Math.round(r.right)]); continue; }
    if (cs.textOverflow !== 'ellipsis' && clipsX(cs) && e.scrollWidth > e.clientWidth + 1) bad.push(['cut', name(e), e.textContent.slice(0, 30)]);
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const ac = getComputedStyle(a);
      if (scrolls(ac)) break; // inside a scrolling box: scrolled into view by the player
      const ar = a.getBoundingClientRect();
      if ((clipsX(ac) && (r.left < ar.left - 1 || r.right > ar.right + 1)) || (clipsY(ac) && (r.top < ar.top - 1 || r.bottom > ar.bottom + 1))) {
        bad.push(['outside', name(e), e.textContent.slice(0, 30), name(a)]); break;
      }
    }
  }
  return bad;
}
