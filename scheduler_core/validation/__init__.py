"""Pod update validation for scheduling directives, as kube-apiserver does it.

``validate_pod_update(old, new)`` answers whether replacing Pod manifest ``old`` with
``new`` would be accepted, with kubernetes v1.34's field paths, error types and wording
(``pkg/apis/core/validation/validation.go``, ``ValidatePodUpdate``; KEP-3838 "Pod Mutable
Scheduling Directives"). Modules:

- ``field.py``: ``FieldError`` and the error type strings (apimachinery ``field``);
- ``apimachinery.py``: name, label and ObjectMeta checks;
- ``decode.py``: type checks standing in for the apiserver's decoding;
- ``semantic.py``: v1 defaults, semantic equality, the spec diff;
- ``pod_spec.py``: the new Pod's directive fields;
- ``scheduling_directives.py``: the tolerations / gates / nodeSelector / affinity rules;
- ``pod_update.py``: ``ValidatePodUpdate`` itself;
- ``explain.py``: which required node affinity requirement was removed or changed.
"""
from scheduler_core.validation.explain import explain_node_affinity_update
from scheduler_core.validation.field import FieldError
from scheduler_core.validation.pod_update import pod_update_errors, validate_pod_update

__all__ = ["FieldError", "explain_node_affinity_update", "pod_update_errors", "validate_pod_update"]
