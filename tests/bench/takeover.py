"""A quick edit's run from the start against the same run taking over the run before it:
``python -m tests.bench.takeover --size 5000 --pairs 10``.

The scenario is generated as ``tests.bench.generate`` makes it (or ``--file``) and loaded once. Each pair sets
constraint 0's maxSkew of one app's pods (``--app``, bound and pending, as the draft editor's quick edit does) to
a new value, then simulates the edited scenario twice, in turn: from the start, and with a ``RunMemory`` that holds
the run of the scenario before the edit (``scheduler_core/run_memory.py``). It checks that the two results are
the same, byte for byte, and reports each way's median wall time, the median of the pairs' ratios and how many
cycles the second way took over. A benchmark, not a test: it times, and asserts only the results' equality.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="5000", help="a generated size (tests.bench.generate), default 5000")
    p.add_argument("--file", help="a scenario file instead of a generated size")
    p.add_argument("--app", default="frontend", help="the app whose spread constraint is edited (default frontend)")
    p.add_argument("--pairs", type=int, default=10, help="edits, each simulated both ways (default 10)")
    args = p.parse_args(argv)
    from scheduler_core import RunMemory, load_scenario, simulate, with_spread_fields
    from tests.bench.generate import generate, to_yaml

    if args.file:
        text, name = Path(args.file).read_text(), args.file
    else:
        text, name = to_yaml(generate(args.size, 0).objects), f"{args.size}.yaml"
    scenario = load_scenario(text, name)
    pods = [p.key for p in scenario.pods if p.labels.get("app") == args.app and p.topology_spread_constraints]
    if not pods:
        raise SystemExit(f"no pod of app={args.app} has a spread constraint")
    memory = RunMemory()
    simulate(scenario, seed=0, detail="failed", memory=memory)
    skew = next(p for p in scenario.pods if p.key == pods[0]).topology_spread_constraints[0].max_skew
    fresh, taken, ratios, over = [], [], [], set()
    for i in range(args.pairs):
        skew = skew % 5 + 1
        edited = with_spread_fields(scenario, pods, [], 0, {"max_skew": skew})
        if edited is None or edited == scenario:
            raise SystemExit(f"maxSkew {skew} of app={args.app} made no scenario to run")
        before = RunMemory()
        before.last = memory.last
        times = {}
        for way in (("fresh", "taken") if i % 2 == 0 else ("taken", "fresh")):
            started = time.perf_counter()
            result = simulate(edited, seed=0, detail="failed", memory=before if way == "taken" else None)
            times[way] = (time.perf_counter() - started, json.dumps(result))
        if times["fresh"][1] != times["taken"][1]:
            raise SystemExit(f"pair {i + 1}: the run that took over gave another result than the run from the start")
        fresh.append(times["fresh"][0])
        taken.append(times["taken"][0])
        ratios.append(times["taken"][0] / times["fresh"][0])
        over.add(before.last.taken_over)
        memory, scenario = before, edited
    print(f"{name}: maxSkew of app={args.app} ({len(pods)} pods) edited {args.pairs} times; each edited scenario "
          f"simulated from the start in a median of {statistics.median(fresh):.3f} s, and taking over "
          f"{'/'.join(map(str, sorted(over)))} cycles of the run before in {statistics.median(taken):.3f} s; median "
          f"ratio {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}); results equal", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
