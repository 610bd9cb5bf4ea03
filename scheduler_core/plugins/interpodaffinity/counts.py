"""Pod counts per topology pair kept across cycles (the fast path of InterPodAffinity).

Upstream PreFilter (``getExistingAntiAffinityCounts``,
``getIncomingAffinityAntiAffinityCounts``) and PreScore (``processExistingPod`` over every
node) visit every existing pod in every cycle: at 30 pods per node that is the cost of a
cycle. Whether an existing pod counts only depends on

- its namespace and labels, when the incoming pod's terms are matched against it (pods of
  one workload share them: a *class*);
- its own affinity terms, when they are matched against the incoming pod (pods of one
  workload share them too: a *group*).

So this keeps, for every class and group, how many of its pods sit on each node, and per
(class or group, topology key) how many in each topology value, updated from the nodes
whose NodeInfo changed since the last call (``NodeInfo.generation``, as PodTopologySpread's
``domain_cache``). A cycle then matches each term once per class or group instead of once
per pod. The sums are the reference recount's exactly (integers; only the order of dict
entries differs, which nothing reads); ``tests/core/test_fast_path.py`` compares both paths.
"""
from __future__ import annotations

import operator
from collections import Counter
from typing import Hashable, Mapping, Sequence

import numpy as np

from ...framework.types import NodeInfo, PodInfo
from ...k8s.shared_memo import MISS, IdentityMemo
from ...k8s.types import Pod
from .filtering import NO_NAMESPACE_LABELS, TopologyCounts, pod_matches_all_affinity_terms
from .scoring import PreScoreState


# per labels object and namespace: the pod class key (the loader shares one labels mapping
# among a workload's pods, so most pods find their key without building a frozenset)
_CLASS_KEYS: IdentityMemo[Hashable] = IdentityMemo()


_LABELS, _NAMESPACE = operator.attrgetter("pod.labels"), operator.attrgetter("pod.namespace")


def _class_key(pod: Pod) -> Hashable:
    labels = pod.labels
    key = _CLASS_KEYS.get(labels, extra=pod.namespace)
    if key is MISS:
        key = _CLASS_KEYS.put(("class", pod.namespace, frozenset(labels.items())), labels,
                              extra=pod.namespace)
    return key




def _record(ni: NodeInfo, labels: Mapping[str, str], counted: dict) -> tuple:
    """What PodCounts keeps of a node it counted: the NodeInfo, its generation, its labels, the
    pods of each key on it, and how its pod lists stood (_one_added reads the change from them)."""
    pods = ni.pods
    return (ni, ni.generation, labels, counted, len(pods), pods[-1] if pods else None,
            len(ni.pods_with_affinity))


class PodCounts:
    """Per node and per topology value, the existing pods of each class and group."""

    def __init__(self) -> None:
        # node name -> (NodeInfo, its generation, its labels, {key: pods on it})
        self._nodes: dict[str, tuple[NodeInfo, int, Mapping[str, str], dict]] = {}
        self._classes: dict[Hashable, Pod] = {}  # class key -> a pod of it
        self._groups: dict[Hashable, PodInfo] = {}  # group key -> a pod of it (its terms)
        self._on_nodes: dict[Hashable, dict[str, int]] = {}  # key -> node name -> pods
        self._totals: dict[tuple[Hashable, str], dict[str, int]] = {}  # (key, tk) -> value -> pods
        self._keys_of: dict[Hashable, list[str]] = {}  # key -> topology keys with totals
        # the same totals as arrays over each topology key's value ids (PreScore's sums)
        self._vectors: dict[tuple[Hashable, str], np.ndarray] = {}
        self._value_ids: dict[str, dict[str, int]] = {}  # tk -> value -> id
        self._value_names: dict[str, list[str]] = {}  # tk -> values in id order
        self._seen: list[NodeInfo] = []  # the last call's nodes, and their generations
        self._seen_generations: list[int] = []
        # following a Snapshot's change log: its node list, the log, how much of it is read
        self._log_of: tuple[Sequence[NodeInfo], list[NodeInfo]] | None = None
        self._log_read = 0
        # a class's key is an even number, a group's an odd one, one per distinct class key or four
        # term tuples (hashing those, term by term, cost more than the counting): per labels object
        # (the loader shares one among a workload's pods) and namespace the class's, and per
        # identities of the four tuples (pods of a workload share them) the group's
        self._class_of_labels: dict[int, tuple[Mapping[str, str], str, int]] = {}
        self._class_ids: dict[Hashable, int] = {}
        self._group_of_terms: dict[tuple[int, int, int, int], tuple[tuple, int]] = {}
        self._group_ids: dict[tuple, int] = {}
        # moved whenever a class or group gains its first pod or loses its last (what _present
        # lists), and PreScore's matched terms per incoming pod kind, valid at that version
        self._present_version = 0
        self._score_plans: dict[tuple, tuple] = {}
        self._score_plans_version = 0

    # --- keeping up with the nodes ------------------------------------------------------

    def refresh(self, all_nodes: Sequence[NodeInfo],
                changed: list[NodeInfo] | None = None) -> None:
        """Bring the counts to all_nodes' pods: only the nodes whose NodeInfo changed are
        recounted; another set of nodes is counted afresh. ``changed`` is the change log
        of the Snapshot all_nodes comes from (``Snapshot.changed``), when it keeps one:
        called again with the same list and log, only the NodeInfos logged since are
        looked at, not every node's generation."""
        if changed is not None and self._log_of is not None and \
                self._log_of[0] is all_nodes and self._log_of[1] is changed:
            new = changed[self._log_read:]
            self._log_read = len(changed)
            if new:
                self._recount(list({id(ni): ni for ni in new}.values()), all_nodes)
            return
        self._log_of = None
        self._refresh_all(all_nodes)
        if changed is not None:
            self._log_of, self._log_read = (all_nodes, changed), len(changed)
            self._seen, self._seen_generations = [], []  # (a later call without the log
            # compares every node again)

    def _refresh_all(self, all_nodes: Sequence[NodeInfo]) -> None:
        generations = [ni.generation for ni in all_nodes]
        seen = self._seen_generations
        if len(all_nodes) == len(self._seen) and all(map(operator.is_, all_nodes, self._seen)):
            if generations == seen:
                return  # (the same NodeInfos, unchanged: the usual second call of a cycle)
            moved = np.flatnonzero(np.array(generations) != np.array(seen))
            changed = [all_nodes[i] for i in moved.tolist()]
        else:
            changed = all_nodes
        self._seen, self._seen_generations = list(all_nodes), generations
        self._recount(changed, all_nodes)

    def _recount(self, changed: Sequence[NodeInfo], all_nodes: Sequence[NodeInfo]) -> None:
        """Recount the nodes of changed whose NodeInfo or generation moved."""
        nodes = self._nodes
        if len(nodes) != len(all_nodes):
            self._rebuild(all_nodes)
            return
        for ni in changed:
            rec = nodes.get(ni.name)
            if rec is None:  # (names are unique: with as many nodes, another set)
                self._rebuild(all_nodes)
                return
            if rec[0] is ni and rec[1] == ni.generation:
                continue
            labels = ni.node.labels if ni.node else {}
            old_labels, old = rec[2], rec[3]
            same_labels = old_labels is labels or old_labels == labels
            added = self._one_added(ni, rec) if same_labels else None
            if added is not None:  # (a pod bound to the node: only its keys move)
                new = dict(old)
                for key in added:
                    new[key] = new.get(key, 0) + 1
                    self._apply(key, ni.name, labels, 1)
                nodes[ni.name] = _record(ni, labels, new)
                continue
            new = self._contribution(ni)
            if same_labels:
                for key in old.keys() | new.keys():
                    d = new.get(key, 0) - old.get(key, 0)
                    if d:
                        self._apply(key, ni.name, labels, d)
            else:
                for key, n in old.items():
                    self._apply(key, ni.name, old_labels, -n)
                for key, n in new.items():
                    self._apply(key, ni.name, labels, n)
            nodes[ni.name] = _record(ni, labels, new)

    def _rebuild(self, all_nodes: Sequence[NodeInfo]) -> None:
        kept = self._seen, self._seen_generations, self._log_of, self._log_read
        self.__init__()
        self._seen, self._seen_generations, self._log_of, self._log_read = kept
        for ni in all_nodes:
            labels = ni.node.labels if ni.node else {}
            new = self._contribution(ni)
            for key, n in new.items():
                self._apply(key, ni.name, labels, n)
            self._nodes[ni.name] = _record(ni, labels, new)

    def _one_added(self, ni: NodeInfo, rec: tuple) -> list | None:
        """The keys of the one pod added to ni since rec was counted (NodeInfo.add_pod_info
        appends it to its lists and moves the generation by one), None when ni changed
        otherwise: its contribution is then counted afresh."""
        before, last, with_affinity = rec[4], rec[5], rec[6]
        pods = ni.pods
        if rec[0] is not ni or ni.generation != rec[1] + 1 or len(pods) != before + 1 or \
                (before and pods[before - 1] is not last):
            return None
        pi = pods[-1]
        keys = list(self._contribution_of((pi,), ()))
        aff = ni.pods_with_affinity
        if len(aff) == with_affinity + 1 and aff[-1] is pi:
            keys.extend(self._contribution_of((), (pi,)))
        elif len(aff) != with_affinity:
            return None
        return keys

    def _contribution(self, ni: NodeInfo) -> dict:
        return self._contribution_of(ni.pods, ni.pods_with_affinity)

    def _contribution_of(self, pods: Sequence[PodInfo], with_affinity: Sequence[PodInfo]) -> dict:
        out: dict = {}
        known = self._class_of_labels
        if len(pods) > 1:  # (a node's pods, most of whose labels objects are known: counted by them, in C)
            by_labels = Counter(zip(map(id, map(_LABELS, pods)), map(_NAMESPACE, pods)))
            hits = [known.get(lid) for lid, _ in by_labels]
            if all(hit is not None and hit[1] == ns for hit, (_, ns) in zip(hits, by_labels)):
                for hit, n in zip(hits, by_labels.values()):  # (in the order the pods first have each)
                    out[hit[2]] = out.get(hit[2], 0) + n  # (an entry keeps its labels alive: their id is theirs)
                pods = ()
        for pi in pods:
            pod = pi.pod
            hit = known.get(id(pod.labels))
            if hit is None or hit[0] is not pod.labels or hit[1] != pod.namespace:
                hit = known[id(pod.labels)] = (pod.labels, pod.namespace, self._class_id(pod))
            key = hit[2]  # (the entry keeps the labels, and so their id)
            out[key] = out.get(key, 0) + 1
        for pi in with_affinity:
            key = self._group_key(pi)
            if key is None:
                continue
            if key not in self._groups:
                self._groups[key] = pi
            out[key] = out.get(key, 0) + 1
        return out

    def _class_id(self, pod: Pod) -> int:
        """The number of the pod's class (an even number; groups have odd ones)."""
        key = _class_key(pod)
        found = self._class_ids.get(key)
        if found is None:
            found = self._class_ids[key] = 2 * len(self._class_ids)
            self._classes[found] = pod
        return found

    def _group_key(self, pi: PodInfo) -> int | None:
        """The number of the pod's group (its four term tuples), None without terms."""
        ids = (id(pi.required_affinity_terms), id(pi.required_anti_affinity_terms),
               id(pi.preferred_affinity_terms), id(pi.preferred_anti_affinity_terms))
        hit = self._group_of_terms.get(ids)
        if hit is None:
            terms = (pi.required_affinity_terms, pi.required_anti_affinity_terms,
                     pi.preferred_affinity_terms, pi.preferred_anti_affinity_terms)
            key = self._group_ids.setdefault(terms, 2 * len(self._group_ids) + 1) \
                if any(terms) else None
            hit = self._group_of_terms[ids] = (terms, key)  # (it keeps the tuples, and their ids)
        return hit[1]

    def _apply(self, key: Hashable, name: str, labels: Mapping[str, str], d: int) -> None:
        per_node = self._on_nodes.setdefault(key, {})
        empty = not per_node
        n = per_node.get(name, 0) + d
        if n:
            per_node[name] = n
        else:
            del per_node[name]
        if empty != (not per_node):
            self._present_version += 1
        for tk in self._keys_of.get(key, ()):
            tv = labels.get(tk)
            if tv is None:
                continue
            totals = self._totals[(key, tk)]
            m = totals.get(tv, 0) + d
            if m:
                totals[tv] = m
            else:
                del totals[tv]
            vid = self._value_id(tk, tv)
            vec = self._vectors[(key, tk)]
            if vid >= len(vec):
                vec = self._vectors[(key, tk)] = np.concatenate(
                    (vec, np.zeros(max(len(vec), vid + 1 - len(vec)), np.int64)))
            vec[vid] += d

    def _value_id(self, tk: str, tv: str) -> int:
        ids = self._value_ids.get(tk)
        if ids is None:
            ids = self._value_ids[tk] = {}
            self._value_names[tk] = []
        vid = ids.get(tv)
        if vid is None:
            vid = ids[tv] = len(ids)
            self._value_names[tk].append(tv)
        return vid

    def _by_value(self, key: Hashable, tk: str) -> dict[str, int]:
        """Pods of key per value of topology key tk (over nodes that have tk)."""
        found = self._totals.get((key, tk))
        if found is None:
            found = {}
            nodes = self._nodes
            for name, n in self._on_nodes.get(key, {}).items():
                tv = nodes[name][2].get(tk)
                if tv is not None:
                    found[tv] = found.get(tv, 0) + n
            self._totals[(key, tk)] = found
            self._keys_of.setdefault(key, []).append(tk)
            ids = [self._value_id(tk, tv) for tv in found]
            vec = self._vectors[(key, tk)] = np.zeros(
                max(len(self._value_names.get(tk, ())), 16), np.int64)
            vec[ids] = list(found.values())
        return found

    def _present(self, keys: dict) -> list:
        return [(key, rep) for key, rep in keys.items() if self._on_nodes.get(key)]

    # --- what PreFilter and PreScore read -----------------------------------------------

    def existing_anti_affinity_counts(self, pod: Pod, ns_labels: Mapping[str, str]
                                      ) -> TopologyCounts:
        """getExistingAntiAffinityCounts: existing pods' required anti-affinity terms that
        match pod, counted on the pairs of the existing pods' nodes."""
        return self.existing_anti_affinity_summed(pod, ns_labels).counts()

    def existing_anti_affinity_summed(self, pod: Pod, ns_labels: Mapping[str, str]
                                      ) -> "SummedCounts":
        """existing_anti_affinity_counts as the vectors it sums."""
        out = SummedCounts()
        for key, rep in self._present(self._groups):
            for t in rep.required_anti_affinity_terms:
                if t.matches(pod, ns_labels):
                    self._add_part(out, key, t.topology_key)
        return out

    def incoming_counts(self, pod_info: PodInfo) -> tuple[TopologyCounts, TopologyCounts]:
        """getIncomingAffinityAntiAffinityCounts: existing pods matching all of the pod's
        required affinity terms (on each term's pair), and each anti-affinity term."""
        affinity, anti_affinity = self.incoming_summed(pod_info)
        return affinity.counts(), anti_affinity.counts()

    def incoming_summed(self, pod_info: PodInfo) -> tuple["SummedCounts", "SummedCounts"]:
        """incoming_counts as the vectors each map sums."""
        affinity, anti_affinity = SummedCounts(), SummedCounts()
        aff_terms = pod_info.required_affinity_terms
        anti_terms = pod_info.required_anti_affinity_terms
        if not aff_terms and not anti_terms:
            return affinity, anti_affinity
        for key, rep in self._present(self._classes):
            if pod_matches_all_affinity_terms(aff_terms, rep):
                for t in aff_terms:
                    self._add_part(affinity, key, t.topology_key)
            for t in anti_terms:
                if t.matches(rep, NO_NAMESPACE_LABELS):
                    self._add_part(anti_affinity, key, t.topology_key)
        return affinity, anti_affinity

    def _add_part(self, into: "SummedCounts", key: Hashable, tk: str) -> None:
        """Add the pods of key per value of tk to into, as they are now (a copy: the counts
        move on as pods bind)."""
        if self._by_value(key, tk):
            names = self._value_names[tk]
            into.add(tk, names, self._vectors[(key, tk)][:len(names)].copy())

    def _score_plan(self, s: PreScoreState, all_pods: bool, hard_pod_affinity_weight: int) -> list:
        """The (class or group, topology key, weight) that PreScore adds up for the incoming pod,
        in the order the reference meets them: its preferred terms matched against each class
        present (all_pods), then each group's terms against it. The same for every pod with the
        same terms objects, labels object, namespace and namespace labels while the classes and
        groups present stay the same (a workload's pods share those objects)."""
        incoming = s.pod_info.pod
        ns_labels = s.namespace_labels
        pa, paa = s.pod_info.preferred_affinity_terms, s.pod_info.preferred_anti_affinity_terms
        if self._score_plans_version != self._present_version or len(self._score_plans) > 4096:
            self._score_plans, self._score_plans_version = {}, self._present_version
        which = (all_pods, hard_pod_affinity_weight, id(pa), id(paa), id(incoming.labels),
                 incoming.namespace, tuple(ns_labels.items()))
        hit = self._score_plans.get(which)
        if hit is not None:  # (the entry keeps the objects, and so their ids)
            return hit[1]
        wanted: list[tuple[Hashable, str, int]] = []
        if all_pods:  # the incoming pod's preferred terms against every existing pod
            classes = self._present(self._classes)
            for terms, sign in ((pa, 1), (paa, -1)):
                for wt in terms:
                    t = wt.term
                    for key, rep in classes:
                        if t.matches(rep, NO_NAMESPACE_LABELS):
                            wanted.append((key, t.topology_key, wt.weight * sign))
        for key, rep in self._present(self._groups):  # existing pods' terms against it
            if hard_pod_affinity_weight > 0:
                for t in rep.required_affinity_terms:
                    if t.matches(incoming, ns_labels):
                        wanted.append((key, t.topology_key, hard_pod_affinity_weight))
            for terms, sign in ((rep.preferred_affinity_terms, 1),
                                (rep.preferred_anti_affinity_terms, -1)):
                for wt in terms:
                    t = wt.term
                    if t.matches(incoming, ns_labels):
                        wanted.append((key, t.topology_key, wt.weight * sign))
        self._score_plans[which] = ((pa, paa, incoming.labels), wanted)
        return wanted

    def topology_score(self, s: PreScoreState, all_pods: bool,
                       hard_pod_affinity_weight: int) -> bool:
        """PreScore's sums (s.set_vectors: per topology key, arrays over its values, from
        which s.topology_score is the map the reference builds); False when nothing
        contributed."""
        parts: dict[str, list[tuple[np.ndarray, int]]] = {}
        for key, tk, weight in self._score_plan(s, all_pods, hard_pod_affinity_weight):
            if self._by_value(key, tk):
                parts.setdefault(tk, []).append((self._vectors[(key, tk)], weight))
        vectors = {}
        for tk, found in parts.items():
            names = self._value_names[tk]
            n = len(names)
            sums = np.zeros(n, np.int64)
            present = np.zeros(n, bool)
            for vec, weight in found:
                v = vec[:n]  # (an array may be longer than the values it counts, or
                sums[:len(v)] += weight * v  # shorter when values came after it: zeros)
                present[:len(v)] |= v != 0
            vectors[tk] = (names, sums, present)
        s.set_vectors(vectors)
        return bool(vectors)


class SummedCounts:
    """A TopologyCounts given as the vectors it sums: per topology key, the names of its values
    (in id order; the list only grows) and the pods per value id, summed over the terms and pod
    classes or groups that count there. ``counts()`` builds the map: each pair's count is the
    sum the reference adds up pair by pair (only the order of the entries differs, which nothing
    reads)."""

    __slots__ = ("by_key",)

    def __init__(self) -> None:
        self.by_key: dict[str, tuple[list[str], np.ndarray]] = {}  # tk -> (names, pods per value)

    def add(self, tk: str, names: list[str], vec: np.ndarray) -> None:
        """Add vec (a new array, owned from now on) to tk's sums."""
        found = self.by_key.get(tk)
        if found is None:
            self.by_key[tk] = (names, vec)
            return
        sums = found[1]
        if len(vec) > len(sums):
            vec[:len(sums)] += sums
            self.by_key[tk] = (names, vec)
        else:
            sums[:len(vec)] += vec

    def counts(self) -> TopologyCounts:
        out: TopologyCounts = {}
        for tk, (names, sums) in self.by_key.items():
            nz = np.flatnonzero(sums)
            out.update(zip([(tk, names[v]) for v in nz.tolist()], sums[nz].tolist()))
        return out

    def empty(self) -> bool:
        return not any(sums.any() for _, sums in self.by_key.values())

    def first_pairs(self, limit: int) -> tuple[list[tuple[str, str, int]], int]:
        """The first ``limit`` (key, value, count) in (key, value) order, and how many pairs
        there are: what sorting the built map's pairs gives, without building it."""
        out: list[tuple[str, str, int]] = []
        total = 0
        for tk in sorted(self.by_key):
            names, sums = self.by_key[tk]
            order = _name_order(names)
            if len(sums) < len(names):
                order = order[order < len(sums)]
            listed = order[sums[order] != 0]
            total += len(listed)
            out.extend((tk, names[v], int(sums[v])) for v in listed[:max(0, limit - len(out))].tolist())
        return out, total


# a value names list (PodCounts', which only grows) -> (it, its length then, its ids in name order)
_ORDERS: dict[int, tuple[list[str], int, np.ndarray]] = {}


def _name_order(names: list[str]) -> np.ndarray:
    """The ids of names sorted by name, kept until the list grows."""
    hit = _ORDERS.get(id(names))
    if hit is None or hit[0] is not names or hit[1] != len(names):
        if len(_ORDERS) > 64:
            _ORDERS.clear()
        hit = _ORDERS[id(names)] = (names, len(names), np.array(
            sorted(range(len(names)), key=names.__getitem__), np.intp))
    return hit[2]
