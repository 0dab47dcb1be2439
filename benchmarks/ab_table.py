"""Two servers' CPU per action compared at once (not a test): ``load_table.py`` run twice side by side.

Run: ``.venv/bin/python benchmarks/ab_table.py --b OTHER/src [--a THIS/src] [--rounds 3] [--tables 1000]
[--seconds 40] [--b-server-arg=--loop --b-server-arg=uvloop] [--b-python OTHER/.venv/bin/python]
[-- load_table.py's own options]``.

A change worth a few per cent cannot be seen by running the server before and after it one after the other: on
a shared host the same code reads ±15-20% from one run to the next (docs/benchmarks.md, "The ratio's spread on
one host").  Here both servers run **at the same time**, each with its own load client, database and port, so
whatever else the host does slows both alike; each round prints both servers' CPU per applied action
(``load_table.py``'s figure, without the peer) and B's ratio to A, and the end the median ratio.  The two sides
start in turn (A first in odd rounds).  With the same code on both sides five rounds read 0.995-1.006
(docs/benchmarks.md, "Two servers at once"); a single round may still stray by 2%: judge by the median of
several.  Give ``--tables`` for each side: two servers at 1,000 tables each load the machine as one at 2,000.

``--a`` / ``--b`` name a ``src/`` folder each (``load_table.py --src``): a ``git archive`` of a commit, with the
built extensions (``daer/hands/_fasthand*.so``, the mypyc modules and ``daer/_native.json``) copied in, so both
sides run the same compiled code.  ``--b-server-arg`` passes a ``daer serve`` option to B only (a setting rather
than a change of code).  ``--b-python`` runs B's load client and server on another interpreter: a virtual
environment of that Python with the project installed editable from the tree whose ``src/`` is ``--b`` (so its
extensions are built for that Python there).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PER_ACTION = re.compile(r"([0-9.]+) µs per action")
HELD = re.compile(r"(\d+) held")
FRAMES = re.compile(r"([0-9.]+) update frames to the people per action")


def figures(out: str) -> tuple[float | None, int | None, float | None]:
    """(µs per action, tables held, frames per action) read from one ``load_table.py`` output."""
    us, held, frames = PER_ACTION.search(out), HELD.search(out), FRAMES.search(out)
    return (float(us.group(1)) if us else None, int(held.group(1)) if held else None,
            float(frames.group(1)) if frames else None)


def side(src: str, args: argparse.Namespace, extra: list[str], server_args: list[str],
         python: str = sys.executable) -> list[str]:
    """The command line of one side's ``load_table.py`` (its server runs on the same ``python``)."""
    return [python, str(HERE / "load_table.py"), "--tables", str(args.tables), "--seconds",
            str(args.seconds), "--no-peer", "--src", src, *[f"--server-arg={a}" for a in server_args], *extra]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default=str(HERE.parent / "src"), help="side A's src/ folder (default: this checkout's)")
    ap.add_argument("--b", required=True, help="side B's src/ folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tables", type=int, default=1000, help="tables of each side")
    ap.add_argument("--seconds", type=int, default=40, help="each side's measured window")
    ap.add_argument("--b-server-arg", action="append", default=[], help="a `daer serve` option for B only")
    ap.add_argument("--b-python", default=sys.executable,
                    help="the interpreter of B's load client and server (default: this one)")
    args, extra = ap.parse_known_args()
    extra = [e for e in extra if e != "--"]
    ratios: list[float] = []
    for r in range(1, args.rounds + 1):
        order = [("A", args.a, [], sys.executable), ("B", args.b, args.b_server_arg, args.b_python)]
        if r % 2 == 0:
            order.reverse()
        procs = {name: subprocess.Popen(side(src, args, extra, sa, py), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True) for name, src, sa, py in order}
        outs = {name: p.communicate()[0] for name, p in procs.items()}
        (a_us, a_held, a_fr), (b_us, b_held, b_fr) = figures(outs["A"]), figures(outs["B"])
        if a_us is None or b_us is None:
            for name, out in outs.items():
                print(f"--- {name}'s output:\n{out[-3000:]}", file=sys.stderr)
            sys.exit(f"round {r}: a side printed no CPU per action")
        ratios.append(b_us / a_us)
        print(f"round {r}: A {a_us:.0f} µs an action ({a_held} held, {a_fr} frames an action), "
              f"B {b_us:.0f} µs ({b_held} held, {b_fr} frames), B/A {b_us / a_us:.3f}", flush=True)
    print(f"B/A median {statistics.median(ratios):.3f} over {len(ratios)} round(s) "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
