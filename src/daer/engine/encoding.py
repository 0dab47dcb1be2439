"""Fixed encodings of views and actions for learning (编码), built from a seat's :class:`View` only.

**Actions** are 212 discrete indices, the same for every ruleset:

======================  =====================================================
index                   action
======================  =====================================================
0 - 19                  ``Discard(kind)``: 打 the card of that kind (小一…十, 大壹…拾)
20                      ``Hu`` (胡, also 天胡 before the dealer's first discard)
21                      ``Zhao`` (招)
22                      ``Peng`` (碰)
23                      ``Pass`` (过)
24 + 28·p + b           ``Chi`` on the card on offer of kind ``k``
192 - 211               ``Bao(kind)``: 报牌 and 打 that kind (古蔺, ``play.bao``)
======================  =====================================================

For a 吃, ``p`` (0-5) is the position of the two hand kinds among the partner
pairs of ``k`` in :data:`daer.engine.claims.CHI_PAIRS` (sequences first, then
二七十, then the two 绞 shapes); ``b`` (0-27) numbers the 比 groups laid with it,
each group being kind ``k`` plus a partner pair of ``k`` (pair index ``q``): ``b = 0``
no 比, ``b = 1 + q`` one group, ``b = 7 + t`` two groups ``q1 ≤ q2`` where ``t`` counts
the pairs ``(q1, q2)`` in order (0,0), (0,1), … (0,5), (1,1), … (5,5).  At most two
groups are ever needed: a 吃 leaves at most two copies of the eaten kind in hand.
Every legal action has exactly one index; :func:`decode_action` turns an index back
into the action for the same view.

**Observations** are a float32 vector of :data:`OBS_SIZE` numbers; seats are
relative to the observer (0 = itself, 1 = next seat, …, over four seats):

* own concealed hand, count per kind (20), and own 过张 kinds (20);
* per relative seat: kinds in its table melds (4 × 20), its discards (4 × 20),
  its concealed-hand size / 21 (4), dealer flag (4), 底家 flag (4), playing flag (4);
* the card on offer: kind one-hot (20), from which relative seat (4), revealed or discarded (2);
* the face-up bottom cards (the shown one, or 隆昌's two dead ones), kinds (20); copies of each kind still
  unseen by this seat (20, ÷ 4); stock count / 80 (1); phase one-hot discard / claim / over (3).

Nothing else is read: no stock order, no other concealed hand.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from daer.cards import COPIES, N_KINDS, kind_of
from daer.engine.actions import Action, Bao, Chi, Discard, Hu, Pass, Peng, Zhao
from daer.engine.claims import CHI_PAIRS
from daer.engine.views import View

SEATS = 4
"""Relative seat slots in an observation (every ruleset so far has four seats or fewer)."""

HU, ZHAO, PENG, PASS = 20, 21, 22, 23
CHI_BASE = 24
MAX_PAIRS = 6
"""Most partner pairs any kind has (a red kind in the middle of a sequence)."""
_BI_COMBOS: list[tuple[int, ...]] = [(), *((q,) for q in range(MAX_PAIRS)),
                                     *combinations_with_replacement(range(MAX_PAIRS), 2)]
BI_COMBOS = len(_BI_COMBOS)
"""Ways to choose 0, 1 or 2 比 groups by pair index (28)."""
_BI_INDEX = {c: i for i, c in enumerate(_BI_COMBOS)}
BAO_BASE = CHI_BASE + MAX_PAIRS * BI_COMBOS
"""First index of ``Bao(kind)`` (192)."""
N_ACTIONS = BAO_BASE + N_KINDS
"""Size of the action space (212)."""

OBS_SIZE = 2 * N_KINDS + SEATS * (2 * N_KINDS + 4) + N_KINDS + SEATS + 2 + N_KINDS + N_KINDS + 1 + 3
"""Length of an observation vector."""

_PHASES = {"discard": 0, "claim": 1, "over": 2}


class EncodingError(ValueError):
    """An action or index that has no meaning for this view."""


def _pair_index(k: int, pair: tuple[int, ...]) -> int:
    for i, (p, _) in enumerate(CHI_PAIRS[k]):
        if p == pair:
            return i
    raise EncodingError(f"{pair} is not a partner pair of kind {k}")


def encode_action(action: Action, offer_kind: int | None = None) -> int:
    """The index of ``action``; a 吃 needs the kind on offer."""
    if isinstance(action, Discard):
        return action.kind
    if isinstance(action, Hu):
        return HU
    if isinstance(action, Zhao):
        return ZHAO
    if isinstance(action, Peng):
        return PENG
    if isinstance(action, Pass):
        return PASS
    if isinstance(action, Bao):
        return BAO_BASE + action.kind
    if offer_kind is None:
        raise EncodingError("a 吃 is encoded relative to the kind on offer")
    k = offer_kind
    p = _pair_index(k, tuple(action.hand))
    qs: list[int] = []
    for group in action.bi:
        rest = list(group)
        rest.remove(k)
        qs.append(_pair_index(k, tuple(sorted(rest))))
    combo = tuple(sorted(qs))
    if combo not in _BI_INDEX:
        raise EncodingError(f"too many 比 groups: {action.bi}")
    return CHI_BASE + p * BI_COMBOS + _BI_INDEX[combo]


def decode_action(index: int, view: View) -> Action:
    """The action of ``index`` for the seat of ``view`` (built from the index alone; legality not checked)."""
    seat = view.seat
    if seat is None:
        raise EncodingError("a spectator has no actions")
    if 0 <= index < N_KINDS:
        return Discard(seat=seat, kind=index)
    if index == HU:
        return Hu(seat=seat)
    if index == ZHAO:
        return Zhao(seat=seat)
    if index == PENG:
        return Peng(seat=seat)
    if index == PASS:
        return Pass(seat=seat)
    if BAO_BASE <= index < N_ACTIONS:
        return Bao(seat=seat, kind=index - BAO_BASE)
    if not CHI_BASE <= index < BAO_BASE or view.offer is None:
        raise EncodingError(f"index {index} means nothing now")
    k = view.offer.kind
    p, b = divmod(index - CHI_BASE, BI_COMBOS)
    pairs = CHI_PAIRS[k]
    if p >= len(pairs) or any(q >= len(pairs) for q in _BI_COMBOS[b]):
        raise EncodingError(f"index {index}: no such partner pair for kind {k}")
    groups = tuple(sorted(tuple(sorted((k, *pairs[q][0]))) for q in _BI_COMBOS[b]))
    return Chi(seat=seat, hand=pairs[p][0], bi=groups)


def offer_kind(view: View) -> int | None:
    """Kind of the card on offer, if any."""
    return view.offer.kind if view.offer is not None else None


def legal_indices(view: View) -> list[int]:
    """Indices of ``view.legal``, in the same order."""
    k = offer_kind(view)
    return [encode_action(a, k) for a in view.legal]


def action_mask(view: View) -> npt.NDArray[np.int8]:
    """1 for the index of every legal action, 0 elsewhere."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for i in legal_indices(view):
        mask[i] = 1
    return mask


def encode_view(view: View) -> npt.NDArray[np.float32]:
    """The observation vector of a seat's view (see the module docstring)."""
    me = view.seat
    if me is None:
        raise EncodingError("observations are a seat's, not a spectator's")
    n = len(view.hand_sizes)
    if n > SEATS:
        raise EncodingError(f"at most {SEATS} seats are encoded, the table has {n}")
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    seen = [0] * N_KINDS
    for cid in view.hand:
        out[kind_of(cid)] += 1
        seen[kind_of(cid)] += 1
    for k in view.guo:
        out[N_KINDS + k] = 1
    base = 2 * N_KINDS
    block = 2 * N_KINDS + 4
    for s in range(n):
        r = (s - me) % n
        o = base + r * block
        for m in view.melds[s]:
            for k in m.kinds:
                out[o + k] += 1
                seen[k] += 1
        out[o + 2 * N_KINDS] = view.hand_sizes[s] / 21
        out[o + 2 * N_KINDS + 1] = s == view.dealer
        out[o + 2 * N_KINDS + 2] = s == view.dijia
        out[o + 2 * N_KINDS + 3] = s in view.players
    for s, k in view.discards:
        out[base + ((s - me) % n) * block + N_KINDS + k] += 1
        seen[k] += 1
    o = base + SEATS * block
    if view.offer is not None:
        out[o + view.offer.kind] = 1
        out[o + N_KINDS + (view.offer.owner - me) % n] = 1
        out[o + N_KINDS + SEATS + (view.offer.source == "discard")] = 1
        seen[view.offer.kind] += 1
    o += N_KINDS + SEATS + 2
    for b in view.bottoms or ((view.bottom,) if view.bottom is not None else ()):
        out[o + b] = 1
        if view.stock > 0 or view.dead:  # dead bottom cards (隆昌) never appear elsewhere
            seen[b] += 1
    o += N_KINDS
    for k in range(N_KINDS):
        out[o + k] = (COPIES - seen[k]) / COPIES
    o += N_KINDS
    out[o] = view.stock / 80
    out[o + 1 + _PHASES[view.phase]] = 1
    return out


__all__ = [
    "BI_COMBOS",
    "CHI_BASE",
    "HU",
    "N_ACTIONS",
    "OBS_SIZE",
    "PASS",
    "PENG",
    "ZHAO",
    "EncodingError",
    "action_mask",
    "decode_action",
    "encode_action",
    "encode_view",
    "legal_indices",
]
