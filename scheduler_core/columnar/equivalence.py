"""Failed cycles worked out once while nothing changes.

A cycle's outcome depends on the cluster (the pods on each node), the nominations, and the
pod's spec; not on the pod's name, UID or age. When the cluster is full, thousands of pods
of one workload fail in a row, each with the same filters, the same diagnosis and the same
fruitless preemption dry run. While no pod is bound or removed and no nomination changes,
a pod equal to one that has just failed, apart from its identity, fails the same way: its
cycle is the recorded one again, with the same message, unschedulable plugins, nodes
evaluated and explanation.

Two things differ from cycle to cycle and are done again: the rotating start index moves
by the nodes the cycle evaluated, and preemption draws its offset from the seeded
generator (``GetOffsetAndNumCandidates``), so the dry run's trace is the recorded one walked
from the new offset (``WalkAgain``). Both paths draw the same numbers; the differential
tests compare this path with the reference, which runs every cycle.

kube-scheduler once had an equivalence cache of predicate results, keyed by the pod's
controller, since removed; this one compares the pod's whole spec, keeps whole failed
cycles only, and forgets them at any change.
"""
from __future__ import annotations

from operator import attrgetter

from ..framework.fit_error import FitError
from ..framework.interface import NominatingInfo
from ..framework.runtime import Nominator
from ..k8s.types import Pod
from ..plugins.defaultpreemption.preemption import PreemptionTrace, WalkAgain, walked_in_vain

# what a pod is apart from its identity (queue order reads the last two, no plugin does),
# its containers apart from their images: only ImageLocality reads those, to score feasible
# nodes, and a failed cycle has none
_IDENTITY = frozenset({"name", "key", "uid", "creation_timestamp", "start_time", "file_index"})
_FIELDS = tuple(f for f in Pod.__slots__ if f not in _IDENTITY | {"containers", "init_containers"})
_fields = attrgetter(*_FIELDS)


def _spec(pod: Pod) -> tuple:
    return (_fields(pod), *(tuple((c.name, c.requests, c.limits, c.ports, c.restart_policy)
                                  for c in cs) for cs in (pod.containers, pod.init_containers)))


_KEEP = 16  # distinct failing specs kept between two changes


class FailedCycle:
    """What a failed cycle left, to be left again by an equal pod's cycle."""

    __slots__ = ("spec", "error", "evaluated", "message", "plugins", "nominating", "trace",
                 "walk", "explanation")

    def __init__(self, spec: tuple, error: FitError, evaluated: int, message: str,
                 plugins: set[str], nominating: NominatingInfo | None,
                 trace: PreemptionTrace | None) -> None:
        # (its traceback, which holds the failed cycle's frames and all they held, is not kept)
        self.spec, self.error, self.evaluated = spec, error.with_traceback(None), evaluated
        self.message, self.plugins, self.nominating = message, plugins, nominating
        self.trace = trace
        # a dry run that walked potential nodes from a drawn offset is walked again from another
        self.walk = WalkAgain(trace) if trace is not None and trace.potential_nodes else None
        self.explanation: dict | None = None

    def trace_from(self, offset: int, num: int) -> PreemptionTrace | None:
        return self.trace if self.walk is None else self.walk.from_offset(offset, num)


class FailedCycles:
    """The failed cycles since the last change to the cluster or the nominations."""

    def __init__(self, nominator: Nominator) -> None:
        self.nominator = nominator
        self.changes = 0  # pods bound or removed (the simulation counts them)
        self._at: tuple[int, int] | None = None
        self._cycles: list[FailedCycle] = []

    def moment(self) -> tuple[int, int]:
        return self.changes, self.nominator.version

    def find(self, pod: Pod, explained: bool) -> FailedCycle | None:
        """The recorded failure of a pod equal to ``pod``, if nothing changed since (one
        with an explanation when ``explained``)."""
        if not self._eligible(pod):
            return None
        if self._at != self.moment():
            self._at, self._cycles = self.moment(), []
            return None
        spec = _spec(pod)
        for c in self._cycles:
            if c.spec == spec:
                return c if c.explanation is not None or not explained else None
        return None

    def add(self, pod: Pod, since: tuple[int, int], cycle_of) -> FailedCycle | None:
        """Record the failed cycle ``cycle_of(spec)`` makes, when the pod may be replayed and
        the cycle changed nothing (``since``: the moment it started)."""
        if not self._eligible(pod) or self.moment() != since:
            return None
        if self._at != since:
            self._at, self._cycles = since, []
        spec = _spec(pod)
        self._cycles = [c for c in self._cycles if c.spec != spec][-(_KEEP - 1):]
        c = cycle_of(spec)
        self._cycles.append(c)
        return c

    def kept(self) -> tuple:
        """The failed cycles kept and the moment they were kept since (for ``take_over``)."""
        return self._at, tuple(self._cycles)

    def take_over(self, kept: tuple) -> None:
        """Another run's ``kept()``, at the same moment of an alike run (run_memory.py)."""
        self._at, self._cycles = kept[0], list(kept[1])

    def _eligible(self, pod: Pod) -> bool:
        """A nominated pod tries its node first and sees other nominations without itself."""
        return (not pod.nominated_node_name and pod.deletion_timestamp is None and
                not self.nominator.node_of(pod))


def replayable(nominating: NominatingInfo | None, trace: PreemptionTrace | None) -> bool:
    """A failure that nominated nothing, whose dry run (if any) is walked again as it was."""
    if nominating is not None and nominating.nominated_node_name:
        return False
    if trace is None or not trace.eligible or not trace.potential_nodes:
        return True
    return walked_in_vain(trace)
