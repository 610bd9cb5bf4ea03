"""ScenarioError: the one exception for bad input.

Its message names the file, the object and the field, e.g.
``scenario.yaml: Pod default/p: spec.topologySpreadConstraints[0].maxSkew: must be >= 1``.
"""
from __future__ import annotations


class ScenarioError(Exception):
    """Bad input: file, object ("Kind ns/name", "" when unknown), field path and detail."""

    def __init__(self, file: str, object: str, field: str, detail: str) -> None:
        self.file = file
        self.object = object
        self.field = field
        self.detail = detail
        super().__init__(self.message())

    def message(self) -> str:
        parts = [p for p in (self.file, self.object, self.field) if p]
        return ": ".join(parts + [self.detail])

    def __str__(self) -> str:
        return self.message()
