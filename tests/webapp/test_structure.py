"""The web app's shape: engine.py is its one door to scheduler_core, and no two of its modules import
each other in a loop (imports inside functions count)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEBAPP = ROOT / "webapp"
# The command-line client runs `--local` simulations without the web app; it is a program of its own.
ENGINE_DOORS = {"webapp/scenarios/engine.py", "webapp/client/local.py"}


def modules():
    for path in sorted(WEBAPP.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if "migrations" in rel.parts:
            continue
        parts = list(rel.with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        yield ".".join(parts), is_package, path


def imports_of(name, is_package, path):
    """Every module name `path` imports, relative imports resolved, `from pkg import mod` as pkg.mod."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def graph():
    found = {name: (is_package, path) for name, is_package, path in modules()}
    return {name: {i for i in imports_of(name, *found[name]) if i in found and i != name} for name in found}, found


def test_only_the_engine_module_imports_scheduler_core():
    _, found = graph()
    importers = sorted(str(path.relative_to(ROOT)) for name, (is_package, path) in found.items()
                       if any(i == "scheduler_core" or i.startswith("scheduler_core.")
                              for i in imports_of(name, is_package, path)))
    assert set(importers) <= ENGINE_DOORS, importers


def test_no_webapp_modules_import_each_other_in_a_loop():
    edges, _ = graph()
    loops, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                loops.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [])
    # a package's __init__ importing its own modules is how a package is built, not a loop of the code
    loops = [loop for loop in loops if not all(a.startswith(b + ".") or b.startswith(a + ".")
                                               for a, b in zip(loop, loop[1:]))]
    assert loops == [], loops
