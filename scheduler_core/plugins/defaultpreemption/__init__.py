"""DefaultPreemption (kube-scheduler v1.34 plugins/defaultpreemption, framework/preemption).

Extension points: PostFilter. It also exposes ``explain(state, pod)``.
CycleState keys written: ``"PostFilterDefaultPreemption"`` (the PostFilter trace read by
``explain``; no other plugin reads it).
Modules: ``default_preemption.py`` (the plugin: eligibility, victim selection),
``preemption.py`` (the Evaluator: dry runs, choice, evictions), ``candidates.py``
(importance, PDBs, pickOneNodeForPreemption), ``explain.py`` (the dashboard JSON).
"""
from .default_preemption import DefaultPreemption

__all__ = ["DefaultPreemption"]
