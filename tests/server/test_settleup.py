"""The settle-up sheet's transfers (docs/clubs.md, "The settle-up sheet"): they settle every net exactly, and
for a few nets there are never fewer possible (checked against every partition of the nets)."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from daer.store.settleup import EXACT_UP_TO, fewest_transfers


def _zero_sum(values: list[int]) -> dict[int, int]:
    return dict(enumerate([*values, -sum(values)]))


nets = st.lists(st.integers(-60, 60), min_size=0, max_size=EXACT_UP_TO - 1).map(_zero_sum)
small = st.lists(st.sampled_from([-30, -20, -10, -5, 5, 10, 20, 30]), min_size=0, max_size=7).map(_zero_sum)


def _settled(n: dict[int, int], transfers: list[tuple[int, int, int]]) -> bool:
    left = dict(n)
    for payer, payee, amount in transfers:
        assert amount > 0 and payer != payee
        left[payer] += amount
        left[payee] -= amount
    return all(v == 0 for v in left.values())


def _partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1:]]
        yield [[first], *part]


def _brute_minimum(n: dict[int, int]) -> int:
    """n − the most blocks of a partition of the non-zero nets whose blocks each add up to zero."""
    live = [v for v in n.values() if v]
    if not live:
        return 0
    most = max(len(p) for p in _partitions(live) if all(sum(b) == 0 for b in p))
    return len(live) - most


@settings(max_examples=300, deadline=None)
@given(nets)
def test_the_transfers_settle_every_net_exactly(n: dict[int, int]) -> None:
    transfers = fewest_transfers(n)
    assert _settled(n, transfers)
    assert len(transfers) <= max(0, sum(1 for v in n.values() if v) - 1)


@settings(max_examples=200, deadline=None)
@given(small)
def test_up_to_eight_nets_take_the_fewest_transfers_possible(n: dict[int, int]) -> None:
    assert len(fewest_transfers(n)) == _brute_minimum(n)


def test_many_nets_are_settled_greedily_in_at_most_n_minus_one() -> None:
    n = _zero_sum([(-1) ** i * (i * 7 % 23 + 1) for i in range(30)])
    transfers = fewest_transfers(n)
    assert _settled(n, transfers) and len(transfers) <= 30
