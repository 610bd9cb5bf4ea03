"""What a load did with a file: objects read per kind, objects ignored per kind and why,
pods the engine added, and the warnings, each naming the file, the kind and the objects.

A real cluster dump holds thousands of objects the scheduler never reads (Events,
ConfigMaps, Secrets...). One line per (kind, reason) with a count and the first few
names says what was left out without drowning the warnings that matter.
"""
from __future__ import annotations

from typing import Iterable

# At most this many object names are written in one aggregated warning.
MAX_NAMES = 3


def names_text(names: list[str], total: int | None = None) -> str:
    """``a, b, c and 81 more``: the first MAX_NAMES names of a group of ``total``."""
    total = len(names) if total is None else total
    shown = ", ".join(names[:MAX_NAMES])
    rest = total - min(len(names), MAX_NAMES)
    return f"{shown} and {rest} more" if rest > 0 else shown


class LoadReport:
    """Collects what one load read, ignored and added; ``summary()`` is its JSON form."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.read: dict[str, int] = {}  # kind -> objects read (List items counted)
        # (kind, reason) -> [count, first names, warn?]: objects left out, in first-seen order
        self.ignored: dict[tuple[str, str], list] = {}
        self.added: dict[str, int] = {}  # "Kind ns/name" of the owner -> pods it added
        self.warnings: list[str] = []

    def count_read(self, kind: str) -> None:
        """One object of ``kind`` was read."""
        self.read[kind] = self.read.get(kind, 0) + 1

    def ignore(self, kind: str, reason: str, name: str = "", warn: bool = True) -> None:
        """An object of ``kind`` named ``name`` (``ns/name``) is left out for ``reason``;
        ``warn`` False: a normal omission (a finished pod), kept in the summary only."""
        entry = self.ignored.setdefault((kind, reason), [0, [], warn])
        entry[0] += 1
        if name and len(entry[1]) < MAX_NAMES:
            entry[1].append(name)

    def add(self, owner: str, count: int) -> None:
        """``owner`` (``Kind ns/name``) got ``count`` pods it lacked."""
        if count:
            self.added[owner] = self.added.get(owner, 0) + count

    def warn(self, message: str) -> None:
        """A warning about one object or group (already naming file, kind and object)."""
        self.warnings.append(message)

    def warn_group(self, kind: str, names: list[str], total: int, path: str, detail: str
                   ) -> None:
        """One warning for ``total`` objects of ``kind`` with the same problem at ``path``."""
        what = f"{kind} {names_text(names, total)}"
        self.warnings.append(": ".join(p for p in (self.file, what, path, detail) if p))

    def ignored_warnings(self) -> list[str]:
        """One line per ignored (kind, reason) that warrants a warning."""
        out = []
        for (kind, reason), (count, names, warn) in self.ignored.items():
            if not warn:
                continue
            objects = "object" if count == 1 else "objects"
            named = f" ({names_text(names, count)})" if names else ""
            out.append(f"{self.file}: {kind}: {count} {objects} ignored{named}: {reason}")
        return out

    def summary(self, warnings: Iterable[str]) -> dict:
        """The JSON-ready summary: {file, read, ignored, added, warnings}."""
        return {
            "file": self.file,
            "read": dict(self.read),
            "ignored": [{"kind": kind, "reason": reason, "count": count, "examples": names}
                        for (kind, reason), (count, names, _) in self.ignored.items()],
            "added": [{"owner": owner, "pods": n} for owner, n in self.added.items()],
            "warnings": list(warnings),
        }
