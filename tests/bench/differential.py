"""The fast path against the reference path on many generated clusters (a sweep, not a test).

``tests/core/test_fast_path.py`` holds a few seeds of each generator; this runs as many as asked,
each cluster simulated by both paths with every explanation, and prints one line per cluster:

    python -m tests.bench.differential --seeds 100:130

``--detail failed`` keeps only the explanations of the pods left pending, as the dashboard asks: a
cycle that schedules its pod then may walk the nodes for its feasible ones
(``ColumnarScheduler._walk``); ``--kernels`` runs the compiled loops that clusters of 1,000 nodes
or more run (the walk is one of them) on these smaller ones.

Three generators per seed: the random affinity, spread and priority clusters of the tests (60–162
nodes), the bench's ``dense-`` preset (27 bound pods per node, pod affinity, preemption; 40–130 nodes)
and its plain preset (100–300 nodes). A cluster whose results differ is written out (its YAML and both
results) under ``--out``, and the exit status is 1.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scheduler_core import load_scenario, simulate
from tests.bench.generate import generate, to_yaml
from tests.core.test_fast_path import generated_scenario


def cases(seed: int) -> list[tuple[str, str]]:
    """(name, YAML) of the three clusters of a seed."""
    dense = f"dense-{40 + 30 * (seed % 4)}x{150 + 50 * (seed % 3)}"
    plain = f"{100 + 50 * (seed % 5)}x{300 + 100 * (seed % 3)}"
    return [
        (f"random-{seed}", generated_scenario(seed, 60 + 17 * (seed % 7), 80 + 30 * (seed % 5), 150)),
        (f"{dense}-{seed}", to_yaml(generate(dense, seed).objects)),
        (f"{plain}-{seed}", to_yaml(generate(plain, seed).objects)),
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0:10", help="FIRST:END (END excluded), default 0:10")
    p.add_argument("--out", type=Path, default=Path("differential-out"),
                   help="where a cluster whose results differ is written")
    p.add_argument("--detail", choices=("all", "failed"), default="all",
                   help="which pods are explained: all (default), or those left pending")
    p.add_argument("--kernels", action="store_true",
                   help="run the compiled loops on every cluster, not only from 1,000 nodes")
    args = p.parse_args(argv)
    detail = True if args.detail == "all" else "failed"
    if args.kernels:
        from scheduler_core.columnar import kernels
        kernels.MIN_NODES = 0
    first, _, end = args.seeds.partition(":")
    differ = 0
    checked = 0
    for seed in range(int(first), int(end or int(first) + 1)):
        for name, text in cases(seed):
            t = time.perf_counter()
            scenario = load_scenario(text, filename=f"{name}.yaml")
            fast, ref = (json.dumps(simulate(scenario, seed=seed, detail=detail, fast=fast), sort_keys=True,
                                    default=str) for fast in (True, False))
            checked += 1
            same = fast == ref
            print(f"{name:24s} {len(scenario.nodes):4d} nodes {len(scenario.pods):5d} pods  "
                  f"{'same' if same else 'DIFFERENT'}  {time.perf_counter() - t:.1f} s", flush=True)
            if not same:
                differ += 1
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"{name}.yaml").write_text(text)
                (args.out / f"{name}.fast.json").write_text(fast)
                (args.out / f"{name}.reference.json").write_text(ref)
    print(f"{checked} clusters, {differ} with different results")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
