"""A run that starts from the cycles of the run before it (``RunMemory``).

A quick edit changes a few pending pods' scheduling directives: a spread constraint's maxSkew, a toleration, a node
selector. Until the first cycle of a pod the edit changed, the next run does what the previous one did, cycle for
cycle: the queue pops the same pods in the same order (their priority, creation time and gates are unchanged), and
nothing a cycle reads of a pending pod it is not scheduling is among those fields (the queue's order, the stepped
label keys and the nominations are compared below; a pod is nominated or bound only by its own cycles).

So a simulation given the memory of the run before it takes those cycles' outcomes from it instead of filtering,
scoring and preempting again: it pops the same pods and binds each where the previous run bound it, or fails it with
the same message, nomination, cleared nominations and victims, and the queue, the node table, the nominations, the
events and the results move as they moved then. From the latest checkpoint at or before that first cycle (the random
generator and selectHost's start index, taken every ``CHECKPOINT_EVERY`` cycles) it runs the cycles itself. The
result is the one a run from the start gives: the differential tests compare the two, byte for byte.

A popped pod that is not the one the memory has for that cycle would mean the runs parted earlier than this module
thinks: the simulation raises ``Diverged``, and ``simulate`` runs again from the start.
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from .k8s.types import Pod, same_but

CHECKPOINT_EVERY = 64

# The fields of a pending pod that only its own cycles read (before its first cycle no other cycle reads them): the
# scheduling directives a quick edit changes, but for the ones the queue reads (priority, its class, preemption
# policy, gates). Two scenarios that differ only there, in pending pods that are not nominated, run alike until
# the first cycle of one of those pods.
OWN_CYCLE_FIELDS = ("topology_spread_constraints", "tolerations", "affinity", "node_selector")
# The field of a bound pod no cycle reads: its own spread constraints (other pods' spread counts read its labels; its
# pod affinity terms, which InterPodAffinity reads of bound pods, are not among these).
BOUND_UNREAD_FIELDS = ("topology_spread_constraints",)
# The scenario's fields a run's outcome depends on besides its pods and workloads (warnings, summary and source
# only label the result, which the run makes from its own scenario).
_COMPARED = ("nodes", "services", "priority_classes", "pdbs", "namespaces", "config", "storage")


class Diverged(Exception):
    """The queue popped another pod than the remembered run's cycle had."""


@dataclass(slots=True)
class CycleOutcome:
    """What one cycle did, enough to do it again: the node it bound the pod to, or its failure (message,
    unschedulable plugins, nomination, the nominations it cleared, its victims); the cycle's nominated-node and
    evaluated-node fields (trace.cycle_json's arguments), the preemption trace it kept and its explanation."""

    pod: str
    host: str | None
    message: str | None
    traced: tuple  # (nominated node tried, whether it fit, nodes evaluated)
    plugins: frozenset | None = None
    nominating: object = None
    cleared: tuple[Pod, ...] = ()
    evictions: tuple[tuple[Pod, str], ...] = ()
    trace: object = None
    explanation: dict | None = None


class RunLog:
    """One run's cycles (``CycleOutcome`` each) and checkpoints, with what the next run is compared against."""

    def __init__(self, scenario, key: tuple) -> None:
        self.key = key  # (seed, detail, fast, stepped label keys)
        self.compared = tuple(getattr(scenario, name) for name in _COMPARED)
        self.pods, self.workloads = scenario.pods, scenario.workloads
        self.outcomes: list[CycleOutcome] = []
        self.first_cycle: dict[str, int] = {}  # pod key -> the number of its first cycle
        # the checkpoint at the start of cycle j * CHECKPOINT_EVERY + 1: (the generator's state, the start index)
        self.checkpoints: list[tuple] = []
        self.taken_over = 0  # how many of its first cycles this run took over from the run before

    def cycles_alike(self, scenario, key: tuple) -> int:
        """How many of this run's first cycles a run of ``scenario`` under ``key`` does alike, counted up to the
        latest checkpoint before the first cycle that could differ (0: none)."""
        if key != self.key or not all(_same(getattr(scenario, name), old)
                                      for name, old in zip(_COMPARED, self.compared)):
            return 0
        first = _first_touched(self.pods, scenario.pods, self.first_cycle, len(self.outcomes) + 1)
        if first is None or not _same_workloads(self.workloads, scenario.workloads):
            return 0
        return max(0, min((first - 1) // CHECKPOINT_EVERY, len(self.checkpoints) - 1)) * CHECKPOINT_EVERY


class RunMemory:
    """The latest run's ``RunLog``, for the next run of the same scenario or of one a quick edit made from it
    (``simulate(..., memory=)``). It keeps that run's pods and nodes (shared with its scenario, as a rule) and the
    explanations of its failed cycles, which the caller must not change in the result."""

    def __init__(self) -> None:
        self.last: RunLog | None = None

    def forget(self) -> None:
        self.last = None


def _same(new, old) -> bool:
    return new is old or new == old


_own = attrgetter(*OWN_CYCLE_FIELDS)


def _first_touched(old: tuple[Pod, ...], new: tuple[Pod, ...], first_cycle: dict[str, int], last: int) -> int | None:
    """The first cycle (``first_cycle``'s; ``last`` when none) of a pending pod that differs, when each such pod
    is not nominated and differs in OWN_CYCLE_FIELDS only, and the bound ones in BOUND_UNREAD_FIELDS only; None when
    the two differ otherwise, or a pod among the first CHECKPOINT_EVERY cycles differs (nothing to take over: the
    rest of the pods, equal objects read twice, need not be compared)."""
    if new is old:
        return last
    if len(new) != len(old):
        return None
    first = last
    for a, b in zip(old, new):
        if a is b:
            continue
        if a.node_name:
            if not same_but(a, b, BOUND_UNREAD_FIELDS):
                return None
            continue
        if a.nominated_node_name or not same_but(a, b, OWN_CYCLE_FIELDS):
            return None
        if _own(a) != _own(b):
            first = min(first, first_cycle.get(a.key, last))
            if first <= CHECKPOINT_EVERY:
                return None
    return first


def _same_workloads(old: tuple, new: tuple) -> bool:
    """The workloads alike but for their templates (the run reads a workload's selector, not its template)."""
    if new is old:
        return True
    if len(new) != len(old):
        return False
    for a, b in zip(old, new):
        if a is not b and not same_but(a, b, ("template",)):
            return False
    return True
