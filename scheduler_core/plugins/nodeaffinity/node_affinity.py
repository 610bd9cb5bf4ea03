"""NodeAffinity plugin.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/nodeaffinity/
node_affinity.go``: nodeSelector and required node affinity in Filter, the sum of the
matching preferred terms' weights in Score, plus the profile's ``addedAffinity``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...config_args import NodeAffinityArgs
from ...framework.cycle_state import CycleState
from ...framework.interface import (MAX_NODE_SCORE, SKIP, SUCCESS, Code, NodeScore, Plugin,
                                    PreFilterResult, Status, new_status)
from ...framework.types import NodeInfo
from ...k8s.nodeaffinity import (OBJECT_NAME_FIELD, LazyErrorNodeSelector,
                                 NodeSelectorParseError, PreferredSchedulingTerms,
                                 RequiredNodeAffinity)
from ...k8s.types import Pod
from ..helper.normalize_score import default_normalize_score
from ..names import NODE_AFFINITY

PRE_FILTER_STATE_KEY = "PreFilter" + NODE_AFFINITY
PRE_SCORE_STATE_KEY = "PreScore" + NODE_AFFINITY

# node_affinity.go (v1.34)
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    required_node_selector_and_affinity: RequiredNodeAffinity

    def clone(self) -> "_PreFilterState":
        return self


@dataclass(frozen=True, slots=True)
class _PreScoreState:
    preferred_node_affinity: PreferredSchedulingTerms | None


def _required_terms(pod: Pod):
    """The pod's required node selector, or None when it has no required node affinity."""
    na = pod.affinity.node_affinity if pod.affinity else None
    return na.required if na is not None else None


def _pod_preferred_node_affinity(pod: Pod) -> PreferredSchedulingTerms | None:
    """getPodPreferredNodeAffinity; raises NodeSelectorParseError on a bad term."""
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is None or not na.preferred:
        return None
    return PreferredSchedulingTerms.from_terms(na.preferred)


def node_names_from_terms(terms) -> tuple[frozenset[str] | None, bool]:
    """The union over terms of the metadata.name In values (ANDed within a term).

    Returns (None, False) when some term has no such field requirement (every node is
    eligible), and (names, conflict) otherwise; conflict when the union is empty.
    """
    names: set[str] = set()
    for t in terms:
        term_names: set[str] | None = None
        for r in t.match_fields:
            if r.key == OBJECT_NAME_FIELD and r.operator == "In":
                s = set(r.values)
                term_names = s if term_names is None else term_names & s
        if term_names is None:
            return None, False
        names |= term_names
    return frozenset(names), not names


class NodeAffinity(Plugin):
    """nodeaffinity.NodeAffinity."""

    NAME = NODE_AFFINITY

    def __init__(self, args: NodeAffinityArgs | None, handle=None) -> None:
        """New: compile args.addedAffinity once (a bad added term is a config error)."""
        self.handle = handle
        added = args.added_affinity if args is not None else None
        self.added_node_selector: LazyErrorNodeSelector | None = None
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = None
        if added is not None:
            if added.required is not None:
                self.added_node_selector = LazyErrorNodeSelector.from_node_selector(added.required)
                errs = self.added_node_selector.parse_errors()
                if errs:
                    raise NodeSelectorParseError(", ".join(errs))
            if added.preferred:
                self.added_pref_sched_terms = PreferredSchedulingTerms.from_terms(added.preferred)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status]:
        """PreFilter: compile the pod's requirements; when every required term names nodes
        (matchFields metadata.name In), narrow the cycle to those nodes."""
        required = _required_terms(pod)
        if required is None and self.added_node_selector is None and not pod.node_selector:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(RequiredNodeAffinity.from_pod(pod)))
        if required is None or not required.node_selector_terms:
            return None, SUCCESS
        names, conflict = node_names_from_terms(required.node_selector_terms)
        if conflict:
            return None, new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_CONFLICT)
        if names:
            return PreFilterResult(names), SUCCESS
        return None, SUCCESS

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter: the enforced addedAffinity first, then nodeSelector + required affinity."""
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.match(node):
            return new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_ENFORCED)
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except KeyError:  # PreFilter disabled: compute here, as upstream falls back
            s = _PreFilterState(RequiredNodeAffinity.from_pod(pod))
        if not s.required_node_selector_and_affinity.match(node):
            return new_status(Code.UnschedulableAndUnresolvable, ERR_REASON_POD)
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """PreScore: compile the preferred terms; Skip when neither pod nor profile has any."""
        try:
            pref = _pod_preferred_node_affinity(pod)
        except NodeSelectorParseError as e:
            return new_status(Code.Error, str(e))
        if pref is None and self.added_pref_sched_terms is None:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(pref))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: sum of the weights of the matching preferred terms (added ones included)."""
        node = node_info.node
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        try:
            pref = state.read(PRE_SCORE_STATE_KEY).preferred_node_affinity
        except KeyError:
            try:
                pref = _pod_preferred_node_affinity(pod)
            except NodeSelectorParseError as e:
                return 0, new_status(Code.Error, str(e))
        if pref is not None:
            count += pref.score(node)
        return count, SUCCESS

    def score_extensions(self) -> "NodeAffinity":
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        """NormalizeScore: DefaultNormalizeScore(MaxNodeScore, false)."""
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        """The effective required and preferred node affinity of this cycle."""
        out: dict = {}
        try:
            out.update(state.read(PRE_FILTER_STATE_KEY)
                       .required_node_selector_and_affinity.describe())
        except KeyError:
            pass
        try:
            pref = state.read(PRE_SCORE_STATE_KEY).preferred_node_affinity
            if pref is not None:
                out["preferredTerms"] = pref.describe()
        except KeyError:
            pass
        if self.added_node_selector is not None:
            out["addedRequiredTerms"] = [str(t) for t in self.added_node_selector.terms]
        if self.added_pref_sched_terms is not None:
            out["addedPreferredTerms"] = self.added_pref_sched_terms.describe()
        return out or None
