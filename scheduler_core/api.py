"""The Python API under the CLI: ``run_filter``, ``run_score``, ``simulate``.

Each takes a loaded Scenario and returns the JSON-ready dict of the command-line
contract (``docs/engine-cli.md``). Unknown or bound pods raise
ScenarioError naming ``--pod``.
"""
from __future__ import annotations

import random
from types import SimpleNamespace

from .errors import ScenarioError
from .framework.cycle_state import CycleState
from .framework.interface import Code, Status
from .framework.runtime import Framework, HandleData, Nominator
from .framework.snapshot import Snapshot
from .framework.types import new_pod_info
from .k8s.types import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY, Pod
from .simulation import build_node_infos
from .simulate import simulate as _simulate

__all__ = ["run_filter", "run_score", "simulate", "spread_constrained_pods"]


def simulate(scenario, seed: int = 0, detail=True, fast: bool = True, progress=None, memory=None) -> dict:
    """Run the whole scheduling loop (see ``simulation.py``): ``detail`` True, False,
    "failed" or pod keys says which pods' latest cycles are explained; ``fast=False``
    forces the reference path; ``progress(cycles, bound, pending_at_start)`` is called
    now and then during a long run; ``memory`` (a RunMemory) lets a run take over the
    cycles of the run before it that the scenario's changes cannot reach (run_memory.py)."""
    return _simulate(scenario, seed=seed, detail=detail, fast=fast, progress=progress, memory=memory)


def _pending_pod(scenario, pod_key: str) -> Pod:
    if "/" not in pod_key:
        pod_key = f"default/{pod_key}"
    pod = scenario.pod(pod_key)
    if pod is None:
        raise ScenarioError(scenario.source, "", "--pod", f"no pod {pod_key} in the scenario")
    if pod.node_name:
        raise ScenarioError(scenario.source, f"Pod {pod_key}", "--pod",
                            f"pod is already bound to node {pod.node_name}; choose a pending pod")
    return pod


def _setup(scenario, pod: Pod) -> tuple[Framework, Snapshot]:
    profile = scenario.config.profiles.get(pod.scheduler_name)
    if profile is None:
        raise ScenarioError(scenario.source, f"Pod {pod.key}", "spec.schedulerName",
                            f"no profile for scheduler name {pod.scheduler_name!r}")
    nominator = Nominator()
    for p in scenario.pods:
        if not p.node_name and p.nominated_node_name and p.key != pod.key:
            nominator.add(new_pod_info(p), p.nominated_node_name)
    fwk = Framework(profile, HandleData(scenario, nominator, random.Random(0)))
    snapshot = Snapshot(build_node_infos(scenario).values())
    fwk.set_snapshot(snapshot)
    return fwk, snapshot


def _filter_all(fwk: Framework, snapshot: Snapshot, state: CycleState, pod: Pod
                ) -> dict[str, Status]:
    """PreFilter once, then Filter (with nominated pods) on every node."""
    pre_res, s, plugins = fwk.run_pre_filter_plugins(state, pod)
    if not s.is_success():
        return {ni.name: s for ni in snapshot.list()}
    out = {}
    for ni in snapshot.list():
        if pre_res is not None and not pre_res.all_nodes() and ni.name not in pre_res.node_names:
            out[ni.name] = Status(Code.UnschedulableAndUnresolvable, (
                f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins))}]",),
                ",".join(sorted(plugins)))
            continue
        out[ni.name] = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
    return out


def run_filter(scenario, pod_key: str) -> dict:
    """The ``filter`` command: each node's verdict for one pending pod."""
    pod = _pending_pod(scenario, pod_key)
    fwk, snapshot = _setup(scenario, pod)
    statuses = _filter_all(fwk, snapshot, CycleState(), pod)
    return {"pod": pod.key, "nodes": {n: s.to_json() for n, s in statuses.items()}}


def run_score(scenario, pod_key: str) -> dict:
    """The ``score`` command: per-plugin normalized scores and the weighted total on
    every feasible node."""
    pod = _pending_pod(scenario, pod_key)
    fwk, snapshot = _setup(scenario, pod)
    state = CycleState()
    statuses = _filter_all(fwk, snapshot, state, pod)
    feasible = [ni for ni in snapshot.list() if statuses[ni.name].is_success()]
    nodes: dict[str, dict] = {}
    if feasible:
        st = fwk.run_pre_score_plugins(state, pod, feasible)
        scores, st2 = fwk.run_score_plugins(state, pod, feasible) if st.is_success() else ([], st)
        if not st2.is_success():
            raise ScenarioError(scenario.source, f"Pod {pod.key}", "", f"scoring failed: "
                                f"{st2.message()}")
        nodes = {s.name: {"total": s.total, "plugins": dict(s.plugins)} for s in scores}
    return {"pod": pod.key, "nodes": nodes}


def spread_constrained_pods(scenario) -> set[str]:
    """Keys of the pods PodTopologySpread constrains under their profile: by their own
    constraints, or by the cluster defaults (when their Services and controller give a
    selector). The dashboard offers their skew even when no explanation was kept."""
    from .plugins.podtopologyspread.plugin import PodTopologySpread

    plugins: dict[str, PodTopologySpread | None] = {}
    memo: dict[tuple, bool] = {}
    out: set[str] = set()
    for pod in scenario.pods:
        if pod.topology_spread_constraints:
            out.add(pod.key)
            continue
        name = pod.scheduler_name
        if name not in plugins:
            profile = scenario.config.profiles.get(name)
            plugins[name] = None if profile is None or \
                PodTopologySpread.NAME not in profile.all_plugins() else PodTopologySpread(
                    profile.args.get(PodTopologySpread.NAME),
                    SimpleNamespace(objects=scenario, fast=False))
        pl = plugins[name]
        if pl is None:
            continue
        # the loader shares labels and owner references among a workload's pods
        key = (name, pod.namespace, id(pod.labels), id(pod.owner_references))
        found = memo.get(key)
        if found is None:
            found = memo[key] = bool(pl.get_constraints(pod, DO_NOT_SCHEDULE)
                                     or pl.get_constraints(pod, SCHEDULE_ANYWAY))
        if found:
            out.add(pod.key)
    return out
