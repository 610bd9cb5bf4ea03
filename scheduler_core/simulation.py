"""The scheduling loop: queue, cycles, binds, preemption, evictions, events.

``Simulation`` runs each cycle through three hooks (``_new_record``, ``_schedule_pod``,
``_explain``) that the columnar fast path (``columnar/simulate.py``) overrides; the loop
itself, binds, failures, preemption and evictions exist once, here.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/schedule_one.go`` (scheduleOne,
schedulingCycle, handleSchedulingFailure) driven by the queue model of ``queue.py``,
without wall-clock time: it stops when the active queue is empty. Ties are broken by
``random.Random(seed)``, so a run repeats.
"""
from __future__ import annotations

import random
import time
import weakref

from .framework.cycle_state import CycleState
from .framework.fit_error import FitError
from .framework.interface import NominatingInfo
from .framework.runtime import Framework, HandleData, Nominator
from .framework.snapshot import Snapshot
from .framework.types import NodeInfo, PodInfo, PodKind, QueuedPodInfo, new_pod_info
from .k8s.types import Pod, replace_pod
from .plugins.registry import SCORE
from .queue import SchedulingQueue
from .schedule_one import CycleRecord, Scheduler, SchedulingError
from . import final_state, trace
from .step_counts import StepCounts, stepped_keys
from .plugins.defaultpreemption.default_preemption import STATE_KEY as PREEMPTION_KEY
from .plugins.defaultpreemption.explain import trace_to_json
from .plugins.volumebinding.explain import volumes_json
from .plugins.volumerestrictions.volume_restrictions import uses_volumes
from .run_memory import CHECKPOINT_EVERY, CycleOutcome, Diverged, RunLog

PROGRESS_SECONDS = 0.5  # how often a run's progress is told, at most

SCHEDULED, UNSCHEDULABLE, GATED = "Scheduled", "Unschedulable", "Gated"


def build_frameworks(scenario, data: HandleData) -> dict[str, Framework]:
    """One Framework per profile, keyed by schedulerName."""
    return {name: Framework(p, data) for name, p in scenario.config.profiles.items()}


def build_node_infos(scenario) -> dict[str, NodeInfo]:
    """NodeInfos in node order with the bound pods added, for one run to change: copies of the
    scenario's scheduler cache (scheduler_cache), which is built once per scenario."""
    return {name: ni.copy_for_run() for name, ni in scheduler_cache(scenario).items()}


# The scheduler caches of the latest scenarios run (scheduler_cache): (the scenario, weakly; its cache)
_CACHES: list[tuple[weakref.ref, dict[str, NodeInfo]]] = []
CACHES_KEPT = 2


def scheduler_cache(scenario) -> dict[str, NodeInfo]:
    """The scenario's nodes with the pods bound to them, as kube-scheduler's cache holds them before
    it schedules (_built_node_infos), built the first time a run of the scenario asks and kept for
    the scenario's next runs (the latest CACHES_KEPT scenarios'): a loaded scenario is run again
    (another seed, a pod's explanation on a worker), and at 150,000 pods the build takes a third
    of a second. Never changed: each run changes copies (NodeInfo.copy_for_run)."""
    for ref, cache in _CACHES:
        if ref() is scenario:
            return cache
    cache = _built_node_infos(scenario)
    _CACHES[:] = _CACHES[max(len(_CACHES) - CACHES_KEPT + 1, 0):] + [(weakref.ref(scenario, _forget), cache)]
    return cache


def forget_scheduler_caches() -> None:
    """Let every kept scheduler cache go: the next run of any scenario builds its own, as a first run does (a
    benchmark times that)."""
    _CACHES.clear()


def _forget(ref: weakref.ref) -> None:
    """A scenario is gone: so is its scheduler cache (which holds its bound pods)."""
    _CACHES[:] = [(r, c) for r, c in _CACHES if r is not ref]


def _built_node_infos(scenario) -> dict[str, NodeInfo]:
    """NodeInfos in node order with the bound pods added (the scheduler cache). A pod's PodInfo
    is new_pod_info's, made once per PodKind: what it holds follows from the pod's affinity,
    labels, namespace, containers, init containers, overhead, requests and priority, objects
    the loader shares among a workload's pods (dense-5000's 138,705 bound pods are 1,030 kinds)."""
    infos = {n.name: NodeInfo(n) for n in scenario.nodes}
    bound: dict[str, tuple[list[PodInfo], list[PodKind]]] = {name: ([], []) for name in infos}
    kinds: dict[tuple, PodKind] = {}
    for p in scenario.pods:
        if p.node_name:
            on = bound.get(p.node_name)
            if on is not None:
                key = (id(p.affinity), id(p.labels), p.namespace, id(p.containers), id(p.init_containers),
                       id(p.overhead), id(p.requests), p.priority)
                kind = kinds.get(key)
                if kind is None:
                    pi = new_pod_info(p)
                    kind = kinds[key] = PodKind(pi, (p.affinity, p.labels, p.containers, p.init_containers,
                                                     p.overhead, p.requests))
                else:
                    pi = kind.info_for(p)
                on[0].append(pi)
                on[1].append(kind)
    for name, (pods, of) in bound.items():
        if pods:
            infos[name].add_pod_infos(pods, of)
    _image_states(infos)
    return infos


def _image_states(infos: dict[str, NodeInfo]) -> None:
    """Fill NodeInfo.image_states as the scheduler cache does (ImageLocality's helper)."""
    from .plugins.imagelocality.image_locality import image_states_for
    states = image_states_for(ni.node for ni in infos.values())
    for name, ni in infos.items():
        ni.image_states = states.get(name, {})


class Simulation:
    """State of one run: the cluster, the queue, nominations, events and results."""

    def __init__(self, scenario, seed: int = 0, detail=True, fast: bool = True, memory=None) -> None:
        self.scenario = scenario
        self.detail = detail
        self.rng = random.Random(seed)
        self.nominator = Nominator()
        self.data = HandleData(scenario, self.nominator, self.rng, self._on_evict,
                               self._on_clear_nomination, fast)
        self.frameworks = build_frameworks(scenario, self.data)
        self.scheduler = Scheduler(scenario.config.percentage_of_nodes_to_score, self.rng)
        self.node_infos = build_node_infos(scenario)
        first = next(iter(self.frameworks.values()))
        cfg = scenario.config
        self.queue = SchedulingQueue(first.queue_sort_less, cfg.pod_initial_backoff_seconds,
                                     cfg.pod_max_backoff_seconds, first.queue_sort_key())
        self.pending: dict[str, Pod] = {}  # key -> current value (nominations change it)
        self.results: dict[str, dict] = {}  # key -> pods[] entry, first-attempt order
        self.gated: list[Pod] = []
        self.unhandled: list[Pod] = []  # pending pods no profile is responsible for
        self.evicted: list[str] = []
        self.evicted_by: dict[str, dict] = {}  # victim key -> its preemptor, cycle and node
        self.events: list[dict] = []
        self.cycles: list[dict] = []
        self.explanations: dict[str, dict] = {}  # pod key -> its latest cycle, explained
        # pod key -> (cycle, trace) of its latest preemption attempt, written out by result()
        self.preemptions: dict[str, tuple] = {}
        if isinstance(detail, (list, tuple, set, frozenset)):
            self.detail = frozenset(detail)
        self.node_index = {name: i for i, name in enumerate(self.node_infos)}
        self.cycle = 0
        self._evictions: list[tuple[Pod, Pod, str]] = []
        self.warnings = list(scenario.warnings)
        self.step_counts = StepCounts(self.node_infos,
                                      stepped_keys(scenario.pods, self.node_infos.values()))
        # run_memory.py: this run's cycles, kept for the next run (None: not kept), and the run before it, whose
        # first ``_alike`` cycles this one takes over
        self.log: RunLog | None = None
        self._before: RunLog | None = None
        self._alike = 0
        self._failed = self._cleared = None  # (this cycle's failure, the nominations it cleared), while logged
        if memory is not None and _loggable(scenario):
            key = (seed, self.detail, fast, tuple(self.step_counts.keys))
            self.log = RunLog(scenario, key)
            before, memory.last = memory.last, None  # (what this run does not take over is let go now)
            self._alike = before.cycles_alike(scenario, key) if before is not None else 0
            if self._alike:
                self._before = before
                self.log.taken_over = self._alike
                self.log.checkpoints.extend(before.checkpoints[:self._alike // CHECKPOINT_EVERY])

    # --- setup -------------------------------------------------------------------------
    def enqueue_pending(self) -> None:
        """Every pending pod: gated ones held back, the rest in the active queue."""
        for pod in self.scenario.pods:
            if pod.node_name:
                continue
            fwk = self.frameworks.get(pod.scheduler_name)
            if fwk is None:  # another scheduler's pod (the load warned about it)
                self.unhandled.append(pod)
                continue
            self.pending[pod.key] = pod
            if not fwk.run_pre_enqueue_plugins(pod).is_success():
                self.gated.append(pod)
                continue
            if pod.nominated_node_name:
                self.nominator.add(new_pod_info(pod), pod.nominated_node_name)
            # the PodInfo is computed at each attempt (schedule_one); the queue reads the pod
            self.queue.add(QueuedPodInfo(PodInfo(pod), timestamp=pod.creation_timestamp))

    def run(self, progress=None) -> None:
        """Pop and schedule pods until the queue is empty (with a safety bound on cycles).

        ``progress``, when given, is called now and then (every PROGRESS_SECONDS at most) with
        the cycles run so far, the pods bound so far and the pods pending at the start."""
        limit = 50 * (len(self.pending) + 1) + 1000
        total, told = len(self.pending), time.monotonic()
        while len(self.queue):
            if progress is not None and self.cycle % 64 == 0 and time.monotonic() - told >= PROGRESS_SECONDS:
                told = time.monotonic()
                progress(self.cycle, total - len(self.pending), total)
            if self.cycle >= limit:
                self.warnings.append(f"{self.scenario.source}: stopped after {limit} "
                                     "scheduling cycles")
                break
            qpi = self.queue.pop()
            pod = self.pending.get(qpi.pod.key)
            if pod is None:
                continue
            self.schedule_one(qpi, pod)

    # --- one pod -------------------------------------------------------------------------
    def schedule_one(self, qpi: QueuedPodInfo, pod: Pod) -> None:
        """scheduleOne: a cycle, then bind or handle the failure; evictions afterwards."""
        if pod.deletion_timestamp is not None:
            self._skip_deleting(pod)
            return
        log = self.log
        if log is not None:
            if self.cycle < self._alike:
                self._again(qpi, pod)
                return
            if self._before is not None:  # the first cycle of its own: from the checkpoint before it
                self._restore(self._before.checkpoints[self.cycle // CHECKPOINT_EVERY])
                self._before = None
            if self.cycle % CHECKPOINT_EVERY == 0:
                log.checkpoints.append(self._checkpoint())
            log.first_cycle.setdefault(pod.key, self.cycle + 1)
            self._failed, self._cleared = None, []
        cyc = self._start_cycle(qpi, pod)
        fwk = self.frameworks[pod.scheduler_name]
        state, record = CycleState(), self._new_record()
        key = pod.key
        try:
            result = self._schedule_pod(fwk, state, pod, record)
        except FitError as fe:
            self._fit_failure(fwk, state, qpi, pod, fe, cyc)
        except SchedulingError as se:
            # schedulingCycle: errors clear the nomination (clearNominatedNode)
            self._failure(qpi, pod, se.status.message(), set(), cyc, NominatingInfo("", "Override"))
        else:
            self._bind(fwk, state, qpi, pod, result.suggested_host, cyc)
        cyc.update(trace.cycle_json(record.nominated_node_tried, record.nominated_node_fit,
                                    record.nodes_evaluated))
        explanation = None
        if self._explains(pod, cyc, state):
            explanation = self.explanations[key] = self._explain(fwk, state, pod, record, cyc)
        if log is not None:
            self._log_outcome(log, key, record, cyc, state, explanation)
        self._end_cycle(cyc)

    def _start_cycle(self, qpi: QueuedPodInfo, pod: Pod) -> dict:
        """The cycle's number and the pod's attempt counted, its PodInfo made, its results entry; the cycle's JSON."""
        self.cycle += 1
        qpi.attempts += 1
        qpi.pod_info = new_pod_info(pod)
        key = pod.key
        if key not in self.results:
            self.results[key] = {"pod": key}
        return {"cycle": self.cycle, "pod": key, "attempt": qpi.attempts}

    def _end_cycle(self, cyc: dict) -> None:
        """The cycle's JSON kept, the victims' DELETEs, the pods per domain the cycle changed."""
        self.cycles.append(cyc)
        self._apply_evictions()
        changed = self.step_counts.take()
        if changed:
            cyc["podsPerDomain"] = changed

    # --- the cycles of the run before (run_memory.py) ----------------------------------------
    def _log_outcome(self, log: RunLog, key: str, record: CycleRecord, cyc: dict, state: CycleState,
                     explanation) -> None:
        failed, cleared, evictions = self._failed, self._cleared, self._evictions
        log.outcomes.append(CycleOutcome(
            key, cyc["node"] if cyc["result"] == SCHEDULED else None, cyc["message"],
            (record.nominated_node_tried, record.nominated_node_fit, record.nodes_evaluated),
            *(failed or (None, None)), tuple(cleared) if cleared else (),
            # (the evictions are this cycle's: _apply_evictions follows)
            tuple((victim, node) for victim, _, node in evictions) if evictions else (),
            state.get(PREEMPTION_KEY), explanation))

    def _again(self, qpi: QueuedPodInfo, pod: Pod) -> None:
        """The cycle the run before did at this point, done again from its outcome: the same bind, or the same
        failure with its nominations cleared, its victims and its nomination; the same cycle JSON, preemption
        trace and explanation."""
        done = self._before.outcomes[self.cycle]
        self._failed = self._cleared = None
        key = pod.key
        if done.pod != key:
            raise Diverged(f"cycle {self.cycle + 1}: {key} popped, {done.pod} remembered")
        cyc = self._start_cycle(qpi, pod)
        self.log.first_cycle.setdefault(key, self.cycle)
        self.log.outcomes.append(done)
        state = CycleState()
        if done.host is not None:
            self._bound_to(qpi, pod, done.host, cyc)
        else:
            fwk = self.frameworks[pod.scheduler_name]
            for cleared in done.cleared:
                fwk.clear_nominated_node_name(cleared)
            for victim, node in done.evictions:  # (the victim as this run holds it: its spec may be edited)
                self._evictions.append((self._bound_pod(node, victim), pod, node))
            if done.trace is not None:
                state.write(PREEMPTION_KEY, done.trace)
            self._failure(qpi, pod, done.message, set(done.plugins), cyc, done.nominating)
        cyc.update(trace.cycle_json(*done.traced))
        if self._explains(pod, cyc, state):
            self.explanations[key] = done.explanation
        self._end_cycle(cyc)

    def _bound_pod(self, node: str, pod: Pod) -> Pod:
        """The pod bound to ``node`` under pod's key (pod itself when there is none)."""
        ni = self.node_infos.get(node)
        key = pod.key
        for pi in ni.pods if ni is not None else ():
            if pi.pod.key == key:
                return pi.pod
        return pod

    def _checkpoint(self) -> tuple:
        """What a run carries from cycle to cycle besides the cluster, the queue and the nominations: the random
        generator's state and selectHost's start index."""
        return self.rng.getstate(), self.scheduler.next_start_node_index

    def _restore(self, checkpoint: tuple) -> None:
        """The checkpoint of the run before at this cycle (``_checkpoint``'s) taken over."""
        self.rng.setstate(checkpoint[0])
        self.scheduler.next_start_node_index = checkpoint[1]

    def _explains(self, pod: Pod, cyc: dict, state: CycleState) -> bool:
        """Whether this cycle is explained (``detail``: True, False, "failed" or a
        collection of pod keys); a preemption attempt is always kept when detail is on.
        With "failed", a pod scheduled after failing loses its failure's explanation
        (an explanation is always of the pod's latest cycle)."""
        if not self.detail:
            return False
        attempt = state.get(PREEMPTION_KEY)
        if attempt is not None:
            # (a trace is not changed after its cycle: only a pod's latest is written out)
            self.preemptions[pod.key] = (self.cycle, attempt)
        explained = self._explained(pod, cyc.get("result") != SCHEDULED)
        if not explained and self.detail == "failed":
            self.explanations.pop(pod.key, None)
        return explained

    def _explained(self, pod: Pod, failed: bool) -> bool:
        """Whether ``detail`` asks for an explanation of the pod's cycle that failed (or not)."""
        detail = self.detail
        if not detail or detail is True:
            return bool(detail)
        if detail == "failed":
            return failed
        return pod.key in detail

    # --- the cycle's hooks (the columnar simulation overrides them) ------------------------
    def _new_record(self) -> CycleRecord:
        """What a cycle records for the explanation."""
        return CycleRecord()

    def _schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod, record: CycleRecord):
        """schedulePod over a Snapshot of the NodeInfos taken now; raises FitError or
        SchedulingError."""
        return self.scheduler.schedule_pod(fwk, state, pod, Snapshot(self.node_infos.values()),
                                           record)

    def _explain(self, fwk: Framework, state: CycleState, pod: Pod, record: CycleRecord,
                 cyc: dict) -> dict:
        """The pod's explanation of this cycle (trace.explanation_json) from the record."""
        index = self.node_index
        groups: dict = {}
        passed = []
        for name, st in record.filter.items():
            if st.is_success():
                passed.append(name)
            else:
                groups.setdefault(st, []).append(name)
        passed.sort(key=index.__getitem__)
        rejected = trace.rejected_json(
            (st, len(names), sorted(names, key=index.__getitem__)[:trace.MAX_NODE_NAMES])
            for st, names in groups.items())
        rows = [(s.name, s.total, list(s.plugins.values()), list((s.raw or {}).values()))
                for s in record.scores.values()]
        plugins = list(next(iter(record.scores.values())).plugins) if record.scores else []
        chosen = cyc.get("node") if cyc.get("result") == SCHEDULED else None
        return trace.explanation_json(
            cyc, len(self.node_infos), len(passed), rejected, passed,
            trace.scores_json(plugins, rows, chosen, fwk.profile.weights,
                              _skipped(fwk.points[SCORE], plugins) if record.scores else ()),
            fwk.explain(state, pod))

    def _skip_deleting(self, pod: Pod) -> None:
        """skipPodSchedule: a terminating pending pod is never scheduled."""
        msg = f"skip schedule deleting pod: {pod.key}"
        self._event("Warning", "FailedScheduling", pod, msg)
        self.results[pod.key] = {"pod": pod.key, "outcome": UNSCHEDULABLE, "node": None,
                                 "nominatedNode": pod.nominated_node_name or None,
                                 "message": msg}
        self.pending.pop(pod.key, None)

    def _bind(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, pod: Pod,
              host: str, cyc: dict) -> None:
        st = fwk.run_reserve_plugins(state, pod, host)
        if st.is_success():
            st = fwk.run_bind_plugins(state, pod, host)
        if not st.is_success():
            self._failure(qpi, pod, st.message(), {st.plugin} if st.plugin else set(), cyc)
            return
        self._bound_to(qpi, pod, host, cyc)

    def _bound_to(self, qpi: QueuedPodInfo, pod: Pod, host: str, cyc: dict) -> None:
        """The bind's effects, once the Reserve and Bind plugins said yes."""
        bound = replace_pod(pod, node_name=host, nominated_node_name="", phase="Running")
        pi = qpi.pod_info if qpi.pod_info.pod is pod else new_pod_info(pod)
        pi = PodInfo(bound, pi.required_affinity_terms, pi.required_anti_affinity_terms,
                     pi.preferred_affinity_terms, pi.preferred_anti_affinity_terms,
                     pi.requests, pi.non_zero_requests)
        self.node_infos[host].add_pod_info(pi)
        self._bound(host, pi)
        self.step_counts.moved(host, +1)
        self.nominator.delete(pod)
        key = pod.key
        del self.pending[key]
        self.results[key] = {"pod": key, "outcome": SCHEDULED, "node": host}
        self._event("Normal", "Scheduled", pod, f"Successfully assigned {key} to {host}", host)
        cyc.update(result=SCHEDULED, node=host, message=None)
        self.queue.move_after_assigned_pod_add(bound)

    def _fit_failure(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, pod: Pod,
                     fe: FitError, cyc: dict) -> None:
        """schedulingCycle's FitError branch: PostFilter (preemption), then the failure."""
        nominated = None
        if fwk.has_post_filter_plugins():
            result, st = fwk.run_post_filter_plugins(state, pod, fe.diagnosis)
            fe.diagnosis.post_filter_msg = st.message()
            if result is not None:
                nominated = result.nominating_info
        self._failure(qpi, pod, str(fe), set(fe.diagnosis.unschedulable_plugins), cyc, nominated)

    def _failure(self, qpi: QueuedPodInfo, pod: Pod, message: str, plugins: set[str],
                 cyc: dict, nominating=None) -> None:
        """handleSchedulingFailure: event, nomination update, unschedulable pool."""
        if self._cleared is not None:
            self._failed = (frozenset(plugins), nominating)
        self._event("Warning", "FailedScheduling", pod, message)
        if nominating is not None and nominating.mode == "Override":
            pod = self._set_nomination(pod, nominating.nominated_node_name)
        qpi.unschedulable_plugins = plugins
        self.queue.add_unschedulable(qpi)
        self.results[pod.key] = {"pod": pod.key, "outcome": UNSCHEDULABLE, "node": None,
                                 "nominatedNode": pod.nominated_node_name or None,
                                 "message": message}
        cyc.update(result=UNSCHEDULABLE, node=None, message=message)

    def _set_nomination(self, pod: Pod, node: str) -> Pod:
        pod = replace_pod(pod, nominated_node_name=node)
        self.pending[pod.key] = pod
        self.nominator.add(new_pod_info(pod), node)
        if node:
            self._event("Normal", "Nominated", pod,
                        f"Pod {pod.key} is nominated to node {node}", node)
        return pod

    def _bound(self, node: str, pi: PodInfo) -> None:
        """A pod was added to node's NodeInfo (the columnar simulation follows)."""

    def _removed(self, node: str, victim: Pod) -> None:
        """A pod was removed from node's NodeInfo (the columnar simulation follows)."""

    # --- handle callbacks ------------------------------------------------------------------
    def _on_evict(self, victim: Pod, preemptor: Pod, node: str) -> None:
        self._evictions.append((victim, preemptor, node))

    def _on_clear_nomination(self, pod: Pod) -> None:
        if self._cleared is not None:
            self._cleared.append(pod)
        current = self.pending.get(pod.key)
        if current is not None:
            self.pending[pod.key] = replace_pod(current, nominated_node_name="")
            if pod.key in self.results and "nominatedNode" in self.results[pod.key]:
                self.results[pod.key]["nominatedNode"] = None

    def _apply_evictions(self) -> None:
        """The victims' DELETEs land after the preemptor's cycle; each moves the pooled
        pods it may help (the preemptor among them)."""
        if not self._evictions:
            return
        for victim, preemptor, node in self._evictions:
            ni = self.node_infos.get(node)
            if ni is None or not ni.remove_pod(victim):
                continue
            self._removed(node, victim)
            self.step_counts.moved(node, -1)
            self.queue.move_all_to_active(victim)
            self.evicted.append(victim.key)
            self.evicted_by[victim.key] = {"pod": preemptor.key, "cycle": self.cycle,
                                           "node": node}
            if victim.key in self.results:  # pending at the start, scheduled, then preempted
                self.results[victim.key]["evicted"] = True
            # upstream's message names the preemptor by UID; a person reads namespace/name
            self._event("Normal", "Preempted", victim,
                        f"Preempted by pod {preemptor.key} on node {node}", node,
                        preemptor=preemptor.key)
        self._evictions.clear()

    def _event(self, type_: str, reason: str, pod: Pod, message: str, node: str | None = None,
               preemptor: str | None = None) -> None:
        ev = {"seq": len(self.events) + 1, "cycle": self.cycle, "type": type_,
              "reason": reason, "pod": pod.key}
        if node:
            ev["node"] = node
        if preemptor:
            ev["preemptor"] = preemptor
        ev["message"] = message
        self.events.append(ev)

    # --- output ------------------------------------------------------------------------
    def ignored(self) -> list[dict]:
        """Pending pods no profile is responsible for: not in ``pods`` (they are neither
        scheduled nor unschedulable), each with the reason."""
        return [{"pod": p.key, "reason": ignored_reason(p)} for p in self.unhandled]

    def result(self) -> dict:
        """The JSON-ready result: contract keys first, then events, cycles, nodes, warnings."""
        pods = list(self.results.values())
        pods += [{"pod": p.key, "outcome": GATED, "node": None} for p in self.gated]
        out = {"pods": pods, "evicted": list(self.evicted), "ignored": self.ignored(),
               "events": self.events, "cycles": self.cycles}
        if self.detail:
            out["explanations"] = self.explanations
            out["preemptions"] = {key: {"cycle": cycle, **trace_to_json(attempt)}
                                  for key, (cycle, attempt) in self.preemptions.items()}
        out["spreadConstraints"] = trace.spread_constraints_json(self.scenario.pods)
        out["nodes"] = trace.nodes_json(self.node_infos.values())
        storage = getattr(self.scenario, "storage", None)
        if storage is not None and not storage.empty():
            fwk = next(iter(self.frameworks.values()))
            out["volumes"] = volumes_json(fwk.volume_cache(), self.scenario.pods,
                                          self.node_infos.values(), fwk)
        out["warnings"] = self.warnings
        out["podsPerDomainAtStart"] = self.step_counts.initial
        out.update(self._final_state())
        out["counts"] = final_state.counts_json(pods, out["boundPods"], out["evicted"], out["ignored"])
        return out

    def _final_state(self) -> dict:
        """Every pod's labels, owner and priority, where the pods bound before the run
        ended, and each spread constraint's final counts (``final_state.py``)."""
        pods = self.scenario.pods
        info, bound = final_state.pods_json(pods, self.evicted_by)
        spread, by_pod = final_state.spread_domains_json(
            pods, self.scenario.config.profiles, self.scenario, list(self.node_infos.values()),
            self._matching_counts(), self._domain_counts())
        for key, indices in by_pod.items():
            info[key] = {**info[key], "spread": indices}  # (entries are shared: pods_json)
        return {"podInfo": info,
                "boundPods": bound,
                "spreadDomains": spread,
                "podsPerDomain": final_state.pods_per_domain_json(self.node_infos.values())}

    def _matching_counts(self):
        """(selector, namespace) -> how many pods of each node (in node_infos order) the
        selector matches, where this simulation keeps them (the columnar one does); None: the
        final state counts each node's pods."""
        return None

    def _domain_counts(self):
        """(pod, action, constraints) -> PreFilter's per-domain counts of each constraint,
        where this simulation keeps them (the columnar one does); None: the final state
        counts them."""
        return None


def _loggable(scenario) -> bool:
    """Whether a run's cycles can be taken over by the next run (run_memory.py): not where a volume plugin keeps
    state from a cycle's Reserve to the next cycles (the cycles taken over run no Reserve)."""
    storage = getattr(scenario, "storage", None)
    return (storage is None or storage.empty()) and not uses_volumes(scenario.pods)


def _skipped(score_plugins, scored) -> list[str]:
    """The profile's score plugins that scored nothing in a cycle (PreScore skipped them)."""
    return [pl.NAME for pl in score_plugins if pl.NAME not in scored]


def ignored_reason(pod: Pod) -> str:
    """Why a pending pod is not simulated: kube-scheduler only takes pods whose
    schedulerName is one of its profiles (eventhandlers.go responsibleForPod)."""
    return (f"schedulerName {_go_quote(pod.scheduler_name)} matches no profile: another "
            "scheduler's pod, which kube-scheduler never tries")


def _go_quote(s: str) -> str:
    """Go's %q for the plain strings scheduler names are."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
