"""Two trees of the engine, timed against each other: ``python -m tests.bench.ab --base DIR``.

``DIR`` is another checkout of this repository (``git worktree add /tmp/base <commit>``). One process per tree loads
the same scenario once (``--size``, generated as ``tests.bench.generate`` makes it, or ``--file``), simulates it once
to warm up, then both are asked for one simulation at a time, in turn (the first tree first in even pairs, the other
in odd ones). Each simulation's process time is taken in its process; the report gives each tree's median and the
median of the pairs' ratios (this checkout over the base).

A machine whose speed drifts from minute to minute (a shared host) moves two simulations a few seconds apart
together, so the pairs' ratios show a change of a few percent that timings taken a tree at a time hide. A benchmark,
not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The child: the engine of the tree it is started in, the scenario loaded once; one simulation per line read.
CHILD = r'''
import sys, time
root, path, detail = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, root)
import scheduler_core
if not scheduler_core.__file__.startswith(root):
    raise SystemExit(f"scheduler_core came from {scheduler_core.__file__}, not {root}")
from scheduler_core import load_scenario, simulate
scenario = load_scenario(open(path).read())
detail = {"true": True, "false": False}.get(detail, detail)
simulate(scenario, seed=0, detail=detail)
print("ready", flush=True)
for _ in sys.stdin:
    started = time.process_time()
    simulate(scenario, seed=0, detail=detail)
    print(f"{time.process_time() - started:.6f}", flush=True)
'''


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="another checkout of this repository (the base of the ratios)")
    p.add_argument("--size", default="5000", help="a generated size (tests.bench.generate), default 5000")
    p.add_argument("--file", help="a scenario file instead of a generated size")
    p.add_argument("--pairs", type=int, default=20, help="simulations of each tree (default 20)")
    p.add_argument("--detail", default="failed", help='simulate\'s detail: "failed" (default), true or false')
    args = p.parse_args(argv)
    base = Path(args.base).resolve()
    if not (base / "scheduler_core" / "__init__.py").is_file():
        raise SystemExit(f"--base {base}: no scheduler_core there")
    with tempfile.TemporaryDirectory(prefix="whatif-ab-") as tmp:
        path = args.file
        if path is None:
            from tests.bench.generate import generate, to_yaml
            path = str(Path(tmp) / f"{args.size}.yaml")
            Path(path).write_text(to_yaml(generate(args.size, 0).objects))
        trees = (base, ROOT)
        procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(tree), path, args.detail], cwd=tree,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for tree in trees]
        try:
            for proc, tree in zip(procs, trees):
                if proc.stdout.readline().strip() != "ready":
                    raise SystemExit(f"the engine of {tree} did not load the scenario")
            times: tuple[list[float], list[float]] = ([], [])
            for i in range(args.pairs):
                for k in ((0, 1) if i % 2 == 0 else (1, 0)):
                    procs[k].stdin.write("go\n")
                    procs[k].stdin.flush()
                    times[k].append(float(procs[k].stdout.readline()))
        finally:
            for proc in procs:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(60)
    ratios = [b / a for a, b in zip(*times)]
    print(f"base {base}: median {statistics.median(times[0]):.3f} s; this checkout {ROOT}: median "
          f"{statistics.median(times[1]):.3f} s (process time of one simulation, {args.pairs} each, in turn)")
    print(f"median of the pairs' ratios (this checkout / base): {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
