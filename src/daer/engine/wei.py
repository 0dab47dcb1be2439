"""偎, 提 and 跑 (跑胡子): the forced takes of one's own revealed card and the 跑 that grows a table meld.

Functions over a :class:`~daer.engine.state.GameState`, kept apart from the turn loop.  The options
(``play.wei`` / ``ti`` / ``pao`` / ``chou_wei``) are described in ``docs/rules/paohuzi.md``:

- 提: one's own revealed card is the fourth of a concealed 坎 or of one's 偎 — taken at once (scored as 垅).
- 偎: one's own revealed card is the third of a concealed pair — taken at once (scored as 坎).  A 偎 of a
  kind its owner passed up for 碰 is a 臭偎 (``play.chou_wei``).
- Nobody else may claim or 胡 a card that is 偎'd or 提'd (「不能胡任何人提或偎的牌」).  If the revealer
  himself can 胡 on it he is asked first (偎胡 / 提胡); if he passes, the 偎 / 提 is made all the same.
- 跑: a 招 claim that grows a 偎 (any card on offer) or a 碰 (a revealed card) into a four.
- Face down (``play.wei_hidden``): a 偎 (not a 臭偎) and the card that makes it are seen by their owner only —
  the events' other audiences get :class:`~daer.engine.events.FaceDown`, views show the meld without kinds
  (:meth:`~daer.engine.views.TableMeld.seen_by`) and no card on offer while its revealer decides on 偎胡.
  A later 提 / 跑 of the 偎 shows it; so does the end of a hand its owner wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from daer.cards import kind_of
from daer.engine.actions import Hu, Pass
from daer.engine.events import Claimed
from daer.engine.views import Offer, TableMeld
from daer.hands import Meld, MeldKind

if TYPE_CHECKING:
    from daer.engine.handstate import HandState


def forced_how(st: HandState, seat: int, k: int) -> str | None:
    """The forced take of ``seat``'s own revealed card of kind ``k``: ``ti``, ``wei``, ``chou_wei`` or None."""
    p = st.rules.play
    c = st.counts[seat][k]
    if p.ti and (c == 3 or meld_index(st, seat, MeldKind.WEI, k) is not None):
        return "ti"
    if p.wei and c == 2:
        return "chou_wei" if p.chou_wei and k in st.passed_peng[seat] else "wei"
    return None


def face_down(st: HandState, seat: int, cid: int) -> bool:
    """The card ``seat`` reveals goes into a face-down 偎 (``play.wei_hidden``; a 臭偎 is face up)."""
    return st.rules.play.wei_hidden and forced_how(st, seat, kind_of(cid)) == "wei"


def meld_viewer(st: HandState, owner: int, seat: int | None) -> int | None:
    """Whose eyes ``seat`` sees ``owner``'s melds with: the owner's once he has won (he shows his hand)."""
    won = st.result is not None and st.result.winner == owner
    return owner if won else seat


def offer_hidden(st: HandState, seat: int | None) -> bool:
    """The card on offer is one its revealer will 偎 face down (he alone decides on 偎胡): hidden from ``seat``."""
    offer = st.offer
    return offer is not None and st.forced == "wei" and st.rules.play.wei_hidden and seat != offer.owner


def on_reveal(st: HandState, seat: int, cid: int) -> bool:
    """Handle a forced 偎 / 提 of the card ``seat`` just revealed; False when there is none.

    A revealer who can 胡 on the card is asked alone (胡 or 过); :func:`take` runs on 过.
    """
    how = forced_how(st, seat, kind_of(cid))
    if how is None:
        return False
    can_hu = st.can_hu(seat, kind_of(cid), "self") is not None
    if can_hu or st.hold:  # held windows (the online table): a window every time, so none shows a 胡 was possible
        st.forced = how
        st.offer = Offer(card=cid, kind=kind_of(cid), source="reveal", owner=seat)
        st.actor = None
        st.choices = {}
        st.options = {seat: [Hu(seat=seat), Pass(seat=seat)]} if can_hu else {}
        st.phase = "claim"
        return True
    take(st, seat, cid, how)
    return True


def take(st: HandState, seat: int, cid: int, how: str) -> None:
    """Make the forced 提 / 偎 of ``cid`` for ``seat``, log it, and go on (discard, or 八块)."""
    k = kind_of(cid)
    st.forced = None
    st.offer = None
    wei = meld_index(st, seat, MeldKind.WEI, k)
    if how == "ti" and st.counts[seat][k] < 3 and wei is not None:
        ids = upgrade(st, seat, wei, MeldKind.LONG, cid)
    else:
        n = 3 if how == "ti" else 2
        ids = (*(st._take_kind(seat, k) for _ in range(n)), cid)
        st._add_meld(seat, MeldKind.LONG if how == "ti" else MeldKind.WEI, ids)
    down = how == "wei" and st.rules.play.wei_hidden
    if down:
        st.melds[seat][-1] = msgspec.structs.replace(st.melds[seat][-1], down=True)
    st.log.append(Claimed(seat=seat, how=how, kind=k, melds=(tuple(sorted(kind_of(c) for c in ids)),), down=down))
    st._after_claim_or_deal(seat)


def meld_index(st: HandState, seat: int, kind: MeldKind, k: int) -> int | None:
    """Index of the seat's table meld of ``kind`` made of kind ``k``, if any."""
    for i, m in enumerate(st.melds[seat]):
        if m.kind == kind.value and m.kinds and m.kinds[0] == k:
            return i
    return None


def pao_meld(st: HandState, seat: int, offer: Offer) -> int | None:
    """The 偎 (any offer) or 碰 (a reveal) that 跑 would grow with the card on offer (``play.pao``)."""
    if not st.rules.play.pao:
        return None
    wei = meld_index(st, seat, MeldKind.WEI, offer.kind)
    if wei is not None or offer.source != "reveal":
        return wei
    return meld_index(st, seat, MeldKind.PENG, offer.kind)


def upgrade(st: HandState, seat: int, i: int, kind: MeldKind, cid: int) -> tuple[int, ...]:
    """Grow table meld ``i`` of ``seat`` by card ``cid`` into a four of ``kind`` (跑 or 提)."""
    old = st.melds[seat][i]
    ids = tuple(sorted((*old.ids, cid)))
    kinds = tuple(sorted((*old.kinds, kind_of(cid))))
    st.melds[seat][i] = TableMeld(kind=kind.value, kinds=kinds, ids=ids)
    objs = list(st._meld_objs[seat])
    objs[i] = Meld(kind, kinds)
    st._meld_objs[seat] = tuple(objs)
    st.quads[seat] += 1
    st._hu_memo[seat].clear()
    return ids
