"""Benchmark driver: ``python -m tests.bench.run [--sizes small,500,1000,5000]``.

For each size: generate the scenario (``generate.py``) and write it as YAML, time the floor
(``floor.py``) in this process, then run the engine in a fresh subprocess per mode, so that
each peak RSS (``ru_maxrss``) belongs to that size and mode alone:

- ``results``: ``simulate(scenario, seed, detail="failed")``, the result collected as the
  dashboard stores it (placements, events, cycles, nodes, and the explanation of every
  pod left pending); the issue's target. Preceded by one ``run_filter`` and one
  ``run_score`` on a pending pod;
- ``explained``: ``detail=True``, every pod's latest cycle explained as well;
- ``fast``: ``detail=False``, no explanation at all.

Times: ``load_scenario`` on the YAML text, then ``simulate`` alone (loading excluded);
pods/s counts the pending pods that enter scheduling (gated pods excluded), the same count
the floor uses. Each subprocess has a time budget (``--budget-seconds``); past it the run is
reported as timed out, and a probe (the same nodes and bound pods with only the first
``--probe-pods`` pending pods) gives an estimated pods/s.

Sizes ``dense-1000`` and ``dense-5000`` are production density (about 27 bound pods per node,
pod affinity, preemption; see ``generate.py``): the same cluster is also loaded from
kubectl's JSON, and the report ends with the targets at that density.

``make bench`` runs ``python3 -m tests.bench.run`` (a few minutes: the 5000 size dominates),
then ``--sizes dense-5000 --modes results`` (5,000 nodes / ~145,000 pods: half an hour);
``--quick`` (sizes small and 500, results mode only) takes under a minute; ``--json PATH``
keeps the figures.

Exit code 1 when the engine is missing or raised an error; a run over its time budget or the
memory limit is a result, reported as such (exit 1 only with ``--strict``).
"""
from __future__ import annotations

import argparse
import collections
import gc
import importlib
import inspect
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SIZES = "small,500,1000,5000,dense-1000"
QUICK_SIZES = "small,500"
ENGINE_API = ("load_scenario", "simulate", "run_filter", "run_score")
# --modes -> simulate's detail
MODES = {"results": "failed", "explained": True, "fast": False}


# --- the subprocess side ----------------------------------------------------------------


def _rss_mb() -> float:
    """Peak resident set size of this process so far, in MB: VmHWM on Linux (ru_maxrss
    keeps the high-water mark of the process it was forked from across exec: the bench's
    own, which holds the generated cluster), else ru_maxrss."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _timed_calls(fn, budget: float = 2.0, limit: int = 5) -> dict:
    """The first call, then more calls up to ``limit`` or ``budget`` seconds; seconds."""
    times = []
    start = time.perf_counter()
    while len(times) < limit and (not times or time.perf_counter() - start < budget):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return {"first": times[0], "median": statistics.median(times), "calls": len(times)}


def _engine_function(module, name: str):
    """``module.name`` as a callable. ``scheduler_core`` exports lazily, and importing its
    submodule ``simulate.py`` replaces the package's ``simulate`` export with that module;
    the function then lives in the module named by ``_EXPORTS``, or inside the submodule."""
    function = getattr(module, name)
    if inspect.ismodule(function):
        home = getattr(module, "_EXPORTS", {}).get(name)
        function = getattr(importlib.import_module(home) if home else function, name)
    if not callable(function):
        raise TypeError(f"{module.__name__}.{name} is not callable")
    return function


def worker(args: argparse.Namespace) -> int:
    """Load one scenario file and run the engine on it, one JSON line per phase."""
    out = open(args.results, "a", encoding="utf-8")

    def record(phase: str, **fields) -> None:
        out.write(json.dumps({"phase": phase, "rss_mb": _rss_mb(), **fields}) + "\n")
        out.flush()

    def fail(phase: str, exc: BaseException) -> None:
        lines = traceback.format_exception_only(type(exc), exc)
        record(phase, error=lines[-1].strip(), traceback=traceback.format_exc()[-4000:])

    record("begin-import")
    try:
        module = importlib.import_module(args.engine)
        engine = argparse.Namespace(**{n: _engine_function(module, n) for n in ENGINE_API})
        text = Path(args.worker).read_text(encoding="utf-8")
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        fail("import", exc)
        return 1
    record("ready")

    record("begin-load")
    try:
        t, c = time.perf_counter(), time.process_time()
        scenario = engine.load_scenario(text, filename=Path(args.worker).name)
        record("load", seconds=time.perf_counter() - t, cpu_seconds=time.process_time() - c)
    except Exception as exc:  # noqa: BLE001
        fail("load", exc)
        return 1
    del text
    if args.probe_pod:
        for name in ("run_filter", "run_score"):
            record(f"begin-{name}")
            try:
                fn = getattr(engine, name)
                record(name, **_timed_calls(lambda: fn(scenario, args.probe_pod)))
            except Exception as exc:  # noqa: BLE001
                fail(name, exc)

    # (the probe's calls built the scenario's scheduler cache, which a later run copies: time a first run)
    getattr(sys.modules.get("scheduler_core.simulation"), "forget_scheduler_caches", lambda: None)()
    record("begin-simulate")
    try:
        t, c = time.perf_counter(), time.process_time()
        result = engine.simulate(scenario, seed=args.seed, detail=MODES[args.mode])
        seconds, cpu_seconds = time.perf_counter() - t, time.process_time() - c
    except Exception as exc:  # noqa: BLE001
        fail("simulate", exc)
        return 1
    pods = result.get("pods", []) if isinstance(result, dict) else []
    outcomes = collections.Counter(str(p.get("outcome")) for p in pods)
    extra = {k: len(result[k]) for k in ("evicted", "cycles", "events")
             if isinstance(result, dict) and isinstance(result.get(k), list)}
    record("simulate", seconds=seconds, cpu_seconds=cpu_seconds, pods=len(pods),
           outcomes=dict(outcomes), **extra)

    record("begin-serialize")
    try:
        t = time.perf_counter()
        size = len(json.dumps(result, default=str))
        record("serialize", seconds=time.perf_counter() - t, bytes=size)
    except Exception as exc:  # noqa: BLE001
        fail("serialize", exc)
    # last, with the run let go: the peaks recorded so far are the YAML load's and the run's
    del scenario, result
    gc.collect()
    if args.json_twin:  # the same cluster as kubectl -o json prints it
        record("begin-load-json")
        try:
            twin = Path(args.json_twin).read_text(encoding="utf-8")
            t = time.perf_counter()
            twin_scenario = engine.load_scenario(twin, filename=Path(args.json_twin).name)
            record("load-json", seconds=time.perf_counter() - t)
            del twin, twin_scenario
        except Exception as exc:  # noqa: BLE001
            fail("load-json", exc)
    return 0


# --- the driver side --------------------------------------------------------------------


def _engine_status(engine: str) -> str:
    """"ready", or why the engine cannot be benchmarked yet."""
    try:
        module = importlib.import_module(engine)
        for name in ENGINE_API:
            _engine_function(module, name)
    except Exception as exc:  # noqa: BLE001 - the engine may be half written
        return f"not ready: {type(exc).__name__}: {exc}"
    return "ready"


def _proc_rss_mb(pid: int) -> tuple[float, float]:
    """Current and peak RSS of a running process in MB (Linux /proc; zeros elsewhere)."""
    rss = hwm = 0.0
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, hwm


def _spawn(args: argparse.Namespace, path: Path, mode: str, probe_pod: str,
           budget: float, json_twin: Path | None = None) -> dict:
    """One worker subprocess; its phases, and ``timeout``/``error`` when it did not finish."""
    results = path.parent / f"{path.stem}.{mode}.{time.monotonic_ns()}.jsonl"
    cmd = [sys.executable, "-m", "tests.bench.run", "--worker", str(path), "--mode", mode,
           "--results", str(results), "--seed", str(args.seed), "--engine", args.engine]
    if probe_pod:
        cmd += ["--probe-pod", probe_pod]
    if json_twin is not None:
        cmd += ["--json-twin", str(json_twin)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    run: dict = {"mode": mode, "phases": {}}
    start = time.perf_counter()
    stderr = open(path.parent / f"{results.stem}.stderr", "w+", encoding="utf-8")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    hwm = 0.0
    while True:  # watch the budget and the memory; a young engine may need a lot of both
        try:
            proc.wait(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            pass
        rss, peak_now = _proc_rss_mb(proc.pid)
        hwm = max(hwm, peak_now)
        if time.perf_counter() - start > budget:
            run["timeout"] = budget
        elif rss > args.memory_limit_mb:
            run["memory_limit"] = args.memory_limit_mb
        else:
            continue
        proc.kill()
        proc.wait()
        break
    if proc.returncode != 0 and "timeout" not in run and "memory_limit" not in run:
        run["exit_code"] = proc.returncode
        stderr.seek(0)
        run["stderr"] = stderr.read()[-2000:]
    stderr.close()
    Path(stderr.name).unlink()
    run["wall_seconds"] = time.perf_counter() - start
    last_begin = None
    peak = 0.0
    if results.exists():
        for line in results.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            peak = max(peak, entry.pop("rss_mb", 0.0))
            phase = entry.pop("phase")
            if phase.startswith("begin-"):
                last_begin = phase[len("begin-"):]
            else:
                run["phases"][phase] = entry | {"rss_mb": peak}
                if "error" in entry:
                    run.setdefault("errors", []).append(f"{phase}: {entry['error']}")
        results.unlink()
    run["peak_rss_mb"] = max(peak, hwm)
    if "timeout" in run or "memory_limit" in run:
        run["timed_out_in"] = last_begin
    return run


def bench_size(args: argparse.Namespace, size_name: str, workdir: Path,
               engine_ok: bool) -> dict:
    from .floor import run_floor
    from .generate import C_EMITTER, generate, parse_size, to_json, to_yaml

    size = parse_size(size_name)
    row: dict = {"size": size.name}
    t = time.perf_counter()
    cluster = generate(size, args.seed)
    row["generate_seconds"] = time.perf_counter() - t
    t = time.perf_counter()
    text = to_yaml(cluster.objects)
    row["dump_seconds"] = time.perf_counter() - t
    row["c_emitter"] = C_EMITTER
    row.update(cluster.meta())
    row["attempted"] = cluster.pending - cluster.gated
    row["yaml_bytes"] = len(text.encode("utf-8"))
    path = workdir / f"bench-{size.name}-seed{args.seed}.yaml"
    path.write_text(text, encoding="utf-8")
    del text
    json_path = None
    if size.dense:  # loading the same cluster as JSON is timed too
        json_path = path.with_suffix(".json")
        json_text = to_json(cluster.objects)
        row["json_bytes"] = len(json_text.encode("utf-8"))
        json_path.write_text(json_text, encoding="utf-8")
        del json_text
    _progress(f"{size.name}: generated {row['yaml_bytes'] / 1e6:.1f} MB in "
              f"{row['generate_seconds'] + row['dump_seconds']:.1f} s")

    floor = run_floor(cluster.objects, repeats=1 if args.quick else 3)
    row["floor"] = floor.as_dict()
    del cluster
    _progress(f"{size.name}: floor {floor.pods_per_second:,.0f} pods/s")

    row["runs"] = {}
    if not engine_ok:
        return row
    for i, mode in enumerate(args.modes):
        run = _spawn(args, path, mode, row["probe_pod"] if i == 0 else "",
                     args.budget_seconds, json_path if i == 0 else None)
        _summarise_run(run, row)
        row["runs"][mode] = run
        _progress(f"{size.name}: {mode}: {_run_text(run)}")
        if run.get("timed_out_in") == "simulate" and args.probe_pods > 0:
            probe = row.setdefault("probes", {})[mode] = _probe(args, size, workdir, mode)
            _progress(f"{size.name}: {mode} probe: {_run_text(probe)}")
    if not args.keep:
        path.unlink()
        if json_path is not None:
            json_path.unlink()
        for probe_file in workdir.glob(f"bench-{size.name}-seed{args.seed}-probe*.yaml"):
            probe_file.unlink()
    return row


def _probe(args: argparse.Namespace, size, workdir: Path, mode: str) -> dict:
    """Simulate the first ``--probe-pods`` pending pods, and none: the difference is the
    per-pod rate without the fixed cost of a simulation (snapshot, frameworks, result)."""
    from .generate import generate, to_yaml

    runs = {}
    for limit in (args.probe_pods, 0):
        cluster = generate(size, args.seed, pending_limit=limit)
        path = workdir / f"bench-{size.name}-seed{args.seed}-probe{limit}.yaml"
        if not path.exists():
            path.write_text(to_yaml(cluster.objects), encoding="utf-8")
        runs[limit] = _spawn(args, path, mode, "", args.budget_seconds)
        runs[limit]["attempted"] = cluster.pending - cluster.gated
        if "seconds" not in runs[limit]["phases"].get("simulate", {}):
            break
    run = runs[args.probe_pods]
    run["probe_pending"] = args.probe_pods
    sim = run["phases"].get("simulate")
    if sim and "seconds" in sim:
        run["pods_per_second"] = run["attempted"] / sim["seconds"] if sim["seconds"] else None
        empty = runs.get(0, {}).get("phases", {}).get("simulate", {})
        if "seconds" in empty:
            run["fixed_seconds"] = empty["seconds"]
            per_pod = sim["seconds"] - empty["seconds"]
            run["marginal_pods_per_second"] = run["attempted"] / per_pod if per_pod > 0 else None
    return run


def _summarise_run(run: dict, row: dict) -> None:
    sim = run["phases"].get("simulate")
    if sim and "seconds" in sim:
        run["pods_per_second"] = row["attempted"] / sim["seconds"] if sim["seconds"] else None
        floor = row["floor"]["pods_per_second"]
        run["floor_ratio"] = run["pods_per_second"] / floor if floor else None
        # nodes x pods: flat when the cost per pod grows linearly with the nodes
        run["us_per_pod_per_1000_nodes"] = (
            sim["seconds"] / row["attempted"] / (row["nodes"] / 1000) * 1e6)


def _run_text(run: dict) -> str:
    parts = []
    load = run["phases"].get("load", {})
    if "seconds" in load:
        parts.append(f"load {load['seconds']:.2f} s")
    if run.get("pods_per_second"):
        parts.append(f"simulate {run['pods_per_second']:,.0f} pods/s")
    if "timeout" in run:
        parts.append(f"timed out after {run['timeout']:.0f} s in {run.get('timed_out_in')}")
    if "memory_limit" in run:
        parts.append(f"stopped at the {run['memory_limit']:,.0f} MB memory limit in "
                     f"{run.get('timed_out_in')} after {run['wall_seconds']:.0f} s")
    parts += run.get("errors", [])
    if "exit_code" in run and not run.get("errors"):
        parts.append(f"exit {run['exit_code']}: {run.get('stderr', '').strip()[-300:]}")
    parts.append(f"peak {run['peak_rss_mb']:.0f} MB")
    return ", ".join(parts)


def _progress(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- the report ----------------------------------------------------------------------------


def _fmt(value, spec: str = ",.0f", suffix: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:{spec}}{suffix}"


def _targets(report: dict) -> list[str]:
    """The targets at production density: dense-5000 (5,000 nodes, ~135,000 bound and
    10,000 pending pods) loaded in 15 s from YAML and from JSON, simulated at 2,000 pods/s
    in at most 3 GB; dense-1000 loaded and simulated in 10 s in all."""
    lines = []
    for row in report["sizes"]:
        if not row["runs"] or not row["size"].startswith("dense-"):
            continue
        det = row["runs"].get("results") or next(iter(row["runs"].values()))
        over = bool({"timeout", "memory_limit"} & det.keys())
        load = det["phases"].get("load", {}).get("seconds")
        load_json = det["phases"].get("load-json", {}).get("seconds")
        sim = det["phases"].get("simulate", {}).get("seconds")
        rate = (det.get("pods_per_second")
                or row.get("probes", {}).get(det["mode"], {}).get("pods_per_second"))
        name = row["size"]
        if name == "dense-1000":
            total = load + sim if load is not None and sim is not None else None
            lines.append(f"target {name} load + simulate <= 10 s: {_fmt(total, '.1f')} s "
                         f"(load {_fmt(load, '.1f')} s, simulate {_fmt(sim, '.1f')} s)")
        elif name == "dense-5000":
            lines += [
                f"target {name} load <= 15 s: YAML {_fmt(load, '.1f')} s "
                f"({row['yaml_bytes'] / 1e6:.0f} MB), JSON {_fmt(load_json, '.1f')} s",
                f"target {name} simulate >= 2,000 pods/s: {'~' if over and rate else ''}"
                f"{_fmt(rate)} pods/s ({det['mode']})",
                f"target {name} peak memory <= 3,000 MB: {'>' if over else ''}"
                f"{_fmt(det['phases'].get('serialize', {}).get('rss_mb', det['peak_rss_mb']))} MB "
                f"(loading from YAML and the {det['mode']} run)"]
    return lines


def _pods_per_second(run: dict, row: dict) -> str:
    """Measured pods/s; after a timeout, ``~N`` estimated by the probe run."""
    if run.get("pods_per_second"):
        return _fmt(run["pods_per_second"])
    probe = row.get("probes", {}).get(run.get("mode"), {})
    if {"timeout", "memory_limit"} & run.keys() and probe.get("pods_per_second"):
        return "~" + _fmt(probe["pods_per_second"])
    return "-"


def render(report: dict) -> str:
    lines = [f"scheduler_core bench  {report['when']}  commit {report['commit']}  "
             f"{report['machine']}  load average at start {report.get('loadavg', '?')}",
             f"engine: {report['engine']}", ""]
    header = ("size", "nodes", "pending", "bound", "yaml MB", "gen s", "load s", "json s", "filter ms",
              "score ms", "sim s", "sim cpu s", "pods/s", "explained pods/s", "fast pods/s",
              "peak MB", "us/pod/knode",
              "floor pods/s", "ratio")
    table = [header]
    notes = []
    for row in report["sizes"]:
        det = row["runs"].get("results") or next(iter(row["runs"].values()), None) or {}
        fast = row["runs"].get("fast") or {}
        full = row["runs"].get("explained") or {}
        ph = det.get("phases", {})
        sim = ph.get("simulate", {})
        flt, scr = ph.get("run_filter", {}), ph.get("run_score", {})
        peak = max([r.get("peak_rss_mb", 0) for r in row["runs"].values()] or [0]) or None
        table.append((
            row["size"], _fmt(row["nodes"]), _fmt(row["pending"]), _fmt(row["bound"]),
            _fmt(row["yaml_bytes"] / 1e6, ".1f"),
            _fmt(row["generate_seconds"] + row["dump_seconds"], ".1f"),
            _fmt(ph.get("load", {}).get("seconds"), ".2f"),
            _fmt(ph.get("load-json", {}).get("seconds"), ".2f"),
            _fmt(flt["median"] * 1e3 if "median" in flt else None, ".1f"),
            _fmt(scr["median"] * 1e3 if "median" in scr else None, ".1f"),
            _fmt(sim.get("seconds"), ".2f"), _fmt(sim.get("cpu_seconds"), ".2f"),
            _pods_per_second(det, row), _pods_per_second(full, row), _pods_per_second(fast, row),
            (">" if any({"timeout", "memory_limit"} & r.keys() for r in row["runs"].values())
             else "") + _fmt(peak),
            _fmt(det.get("us_per_pod_per_1000_nodes"), ".1f"),
            _fmt(row["floor"]["pods_per_second"]),
            _fmt(det.get("floor_ratio"), ".3f", "x")))
        for mode, run in row["runs"].items():
            if {"timeout", "memory_limit", "exit_code"} & run.keys() or run.get("errors"):
                notes.append(f"{row['size']} {mode}: {_run_text(run)}")
            sim_m = run["phases"].get("simulate", {})
            if sim_m.get("outcomes"):
                counts = ", ".join(f"{sim_m[k]} {k}" for k in ("evicted", "cycles", "events")
                                   if k in sim_m)
                counts = "; ".join(filter(None, [f"{sim_m.get('pods')} pod records", counts]))
                notes.append(f"{row['size']} {mode}: outcomes {sim_m['outcomes']} ({counts})")
            ser = run["phases"].get("serialize", {})
            if "bytes" in ser and mode != "fast":
                notes.append(f"{row['size']} {mode}: result as JSON {ser['bytes'] / 1e6:.1f} MB"
                             f" in {ser['seconds']:.2f} s")
        for mode, pr in row.get("probes", {}).items():
            est = pr.get("pods_per_second")
            text = _run_text(pr)
            if est:
                text = f"{est:,.1f} pods/s"
                if pr.get("marginal_pods_per_second"):
                    text += (f" ({pr['marginal_pods_per_second']:,.1f} pods/s without the "
                             f"{pr['fixed_seconds']:.1f} s an empty simulate takes)")
                rate = pr.get("marginal_pods_per_second") or est
                total = row["attempted"] / rate + pr.get("fixed_seconds", 0.0)
                text += f", so about {total:,.0f} s for all {row['attempted']}"
            notes.append(f"{row['size']} {mode}: probe with the first {pr['probe_pending']} "
                         f"pending pods: {text}")
        f = row["floor"]
        notes.append(f"{row['size']}: floor placed {f['scheduled']}/{f['attempted']} "
                     f"(no preemption; {row['preemptors']} pods need it), "
                     f"{row['gated']} gated")
    notes += _targets(report)
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    for r in table:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))
    lines.append("")
    lines += notes
    lines.append("")
    lines.append("pods/s: pending non-gated pods / simulate seconds (loading excluded), "
                 "results mode (explanations of the pods left pending); explained: every "
                 "pod's latest cycle explained; fast: no explanations; "
                 "sim cpu s: process time, less sensitive to other load on the machine; "
                 "ratio: pods/s over the floor's; peak MB: high-water RSS of the subprocess "
                 "(interpreter and YAML text included; '>' when a run timed out); "
                 "json s: loading the same cluster from kubectl's JSON (dense sizes); "
                 "~: estimated by a probe run; filter/score: median of up to 5 calls on "
                 "one pending pod.")
    return "\n".join(lines)


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.bench.run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default=None,
                   help=f"comma-separated: small, 500, 1000, 5000 or NODESxPENDING "
                        f"(default {DEFAULT_SIZES}; with --quick {QUICK_SIZES})")
    p.add_argument("--quick", action="store_true",
                   help="results mode only, one floor pass, budget capped at 120 s")
    p.add_argument("--budget-seconds", type=float, default=300.0,
                   help="time limit of each engine subprocess (default 300)")
    p.add_argument("--memory-limit-mb", type=float, default=6144.0,
                   help="stop an engine subprocess whose RSS passes this (default 6144)")
    p.add_argument("--modes", default="results,explained,fast",
                   help="results (detail='failed'), explained (detail=True), fast (detail=False)")
    p.add_argument("--probe-pods", type=int, default=200,
                   help="pending pods in the probe run after a timeout (0: no probe)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a run overran its time or memory budget, too")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    p.add_argument("--workdir", help="where the scenario files go (default: a temp dir)")
    p.add_argument("--keep", action="store_true", help="keep the generated YAML files")
    p.add_argument("--engine", default="scheduler_core", help=argparse.SUPPRESS)
    # internal: the subprocess side
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--mode", default="results", help=argparse.SUPPRESS)
    p.add_argument("--results", help=argparse.SUPPRESS)
    p.add_argument("--probe-pod", default="", help=argparse.SUPPRESS)
    p.add_argument("--json-twin", default="", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args)

    sizes = (args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)).split(",")
    args.modes = [m for m in args.modes.split(",") if m]
    if args.quick:
        args.modes = args.modes[:1]
        args.budget_seconds = min(args.budget_seconds, 120.0)
        args.probe_pods = min(args.probe_pods, 100)
    from .generate import parse_size

    for s in sizes:
        parse_size(s)  # fail early on a typo
    engine = _engine_status(args.engine)
    _progress(f"engine {args.engine}: {engine}")
    own_dir = args.workdir is None
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="whatif-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    import numpy
    import yaml

    report = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "commit": _commit(),
        "machine": f"{platform.python_implementation()} {platform.python_version()}, "
                   f"{os.cpu_count()} cpu, numpy {numpy.__version__}, "
                   f"PyYAML {yaml.__version__} (libyaml {yaml.__with_libyaml__})",
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "engine": engine, "seed": args.seed, "budget_seconds": args.budget_seconds,
        "modes": args.modes, "sizes": [],
    }
    try:
        for s in sizes:
            report["sizes"].append(bench_size(args, s, workdir, engine == "ready"))
    finally:
        if own_dir and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(render(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    failed = engine != "ready" or any(
        "exit_code" in r or r.get("errors")
        for row in report["sizes"] for r in row["runs"].values())
    over = any({"timeout", "memory_limit"} & r.keys()
               for row in report["sizes"] for r in row["runs"].values())
    complete = not failed and not (over and args.strict)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
