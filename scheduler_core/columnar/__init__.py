"""The columnar scheduling loop: kube-scheduler's cycle over node arrays.

The reference path (``simulation.py``, ``schedule_one.py``, ``framework/runtime.py``) runs
every plugin node by node, as upstream does. This package runs the same cycle over a
columnar snapshot instead, one vectorized pass per plugin and pod:

- ``node_table.py``: node attributes as NumPy arrays (allocatable, requested, pod count),
  labels interned per key, and per-selector matching-pod counts updated as pods bind or
  are evicted (never recounted);
- ``status_table.py``: Status values interned as small ints, so a cycle's verdicts are
  one int array;
- ``node_groups.py``: per-pod caches of what depends only on the node objects and fixed
  pod fields (taints, node affinity, images), computed once per distinct pod template;
- ``plugins/``: one module per upstream plugin, holding its vectorized PreFilter,
  Filter, PreScore and Score (named after ``pkg/scheduler/framework/plugins/...``);
- ``runtime.py``: the Framework over those plugins (first rejecting filter wins, nominated
  pods, normalization and weights);
- ``schedule_one.py``: findNodesThatFitPod / prioritizeNodes / selectHost over arrays;
- ``simulate.py``: the reference simulation's loop with this cycle plugged into its hooks
  (``_new_record``, ``_schedule_pod``, ``_explain``); there is one loop. Preemption's dry
  runs and InterPodAffinity use the reference plugins on NodeInfos kept in step;
- ``equivalence.py``: a failed cycle worked out once while nothing changes, given again to
  the equal pods that fail after it (a full cluster fails thousands in a row).

Results are the reference path's, exactly: ``tests/core/test_columnar.py`` and
``tests/core/test_failed_cycles.py`` compare both on generated scenarios, placements,
messages, events and explanations included.
"""
