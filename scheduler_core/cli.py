"""Command line: ``python -m scheduler_core filter|score|simulate|validate-update``.

The contract is ``docs/engine-cli.md``: one JSON document on stdout
(indent 2), exit 0 on success, 1 for a "no" (update rejected), 2 on bad input with one
``error: ...`` line on stderr; warnings go to stderr as ``warning: ...``. This is the
only module that prints or exits. An unexpected exception (a bug) is reported as one
``error: internal error: ...`` line with exit 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from .errors import ScenarioError

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2
# simulate --explain: which pods get an explanation (api.simulate's detail)
EXPLAIN = {"failed": "failed", "all": True, "none": False}


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one ``error:`` line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Raise instead of printing usage and exiting."""
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser for the four commands of engine-cli.md."""
    p = _Parser(prog="python -m scheduler_core",
                description="kube-scheduler v1.34's decisions for Kubernetes manifests")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, help_ in (("filter", "PreFilter and Filter for one pending pod"),
                        ("score", "Filter, then Score the feasible nodes for one pending pod")):
        c = sub.add_parser(name, help=help_)
        c.add_argument("scenario")
        c.add_argument("--pod", required=True, metavar="NS/NAME")
        c.add_argument("--config", metavar="FILE")
    s = sub.add_parser("simulate", help="run the whole scheduling loop")
    s.add_argument("scenario")
    s.add_argument("--config", metavar="FILE")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--explain", choices=sorted(EXPLAIN), default="failed",
                   help="which pods' latest cycle is explained in \"explanations\": the "
                        "pods left pending (default), all pods, or none")
    v = sub.add_parser("validate-update", help="would the apiserver accept this Pod update?")
    v.add_argument("old")
    v.add_argument("new")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (``__main__`` exits with it)."""
    try:
        args = build_parser().parse_args(argv)
        doc, code = _dispatch(args)
    except _UsageError as e:
        return _fail(f"error: {e}")
    except ScenarioError as e:
        return _fail(f"error: {e}")
    except Exception as e:  # noqa: BLE001 - a bug must not print a traceback
        return _fail(f"error: internal error: {type(e).__name__}: {e}")
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    return code


def _fail(line: str) -> int:
    sys.stderr.write(line.replace("\n", " ") + "\n")
    return EXIT_BAD_INPUT


def _warn(warnings: Sequence[str]) -> None:
    for w in warnings:
        sys.stderr.write(f"warning: {w}\n")


def _dispatch(args: argparse.Namespace) -> tuple[Any, int]:
    from . import api
    if args.command == "validate-update":
        return _validate_update(args.old, args.new)
    from .scenario import load_scenario_file
    scenario = load_scenario_file(args.scenario, args.config)
    _warn(scenario.warnings)
    if args.command == "filter":
        return api.run_filter(scenario, args.pod), EXIT_OK
    if args.command == "score":
        return api.run_score(scenario, args.pod), EXIT_OK
    result = api.simulate(scenario, seed=args.seed, detail=EXPLAIN[args.explain])
    _warn(result.get("warnings", [])[len(scenario.warnings):])
    return result, EXIT_OK


def _validate_update(old_path: str, new_path: str) -> tuple[dict, int]:
    from .validation import validate_pod_update
    old, new = _one_pod(old_path), _one_pod(new_path)
    result = validate_pod_update(old, new)
    return result, EXIT_OK if result.get("allowed") else EXIT_NO


def _one_pod(path: str) -> dict:
    """Read a file holding exactly one Pod manifest."""
    from .scenario import _read_text
    from .scenario_io import read_documents
    docs = list(read_documents(_read_text(path), path))
    if len(docs) != 1:
        raise ScenarioError(path, "", "", f"expected exactly one Pod, found {len(docs)} objects")
    if docs[0].get("kind") not in ("Pod", None):
        raise ScenarioError(path, str(docs[0].get("kind")), "kind",
                            "Unsupported value: expected a Pod")
    return docs[0]
