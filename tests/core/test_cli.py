"""CLI golden tests: a scenario in, the expected JSON, exit code and stderr out.

Golden files live in ``tests/core/golden/``: ``<case>.json`` holds the expected stdout
(for ``simulate``, the contract's keys ``pods``/``evicted`` plus ``events``; the per-cycle
explanations belong to the plugins and are checked in their own tests). Regenerate a
golden file only after checking the new output by hand.
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from scheduler_core.cli import main

G = Path(__file__).parent / "golden"
ROOT = Path(__file__).parents[2]
SPREAD_WARNING = (f"warning: {G}/spread.yaml: ConfigMap: 1 object ignored (ignored): kind not read "
                  "by the scheduler")


@dataclass
class Case:
    name: str
    argv: list[str]
    exit: int
    stderr: list[str]
    golden: str | None = None
    keys: tuple[str, ...] = ()


CASES = [
    Case("filter reports each node's first rejecting plugin",
         ["filter", f"{G}/spread.yaml", "--pod", "default/p"], 0, [SPREAD_WARNING],
         "filter-spread"),
    Case("score lists feasible nodes with normalized plugin scores",
         ["score", f"{G}/spread.yaml", "--pod", "q"], 0, [SPREAD_WARNING], "score-spread"),
    Case("simulate schedules in queue order and keeps gated pods",
         ["simulate", f"{G}/spread.yaml", "--seed", "1"], 0, [SPREAD_WARNING],
         "simulate-spread", ("pods", "evicted", "events")),
    Case("validate-update allows adding to nodeSelector while gated",
         ["validate-update", f"{G}/old-pod.yaml", f"{G}/new-pod-ok.yaml"], 0, [],
         "validate-allowed"),
    Case("validate-update rejects changing nodeSelector with exit 1",
         ["validate-update", f"{G}/old-pod.yaml", f"{G}/new-pod-bad.yaml"], 1, [],
         "validate-rejected"),
    Case("negative maxSkew is bad input",
         ["filter", f"{G}/bad-maxskew.yaml", "--pod", "default/p"], 2,
         [f"error: {G}/bad-maxskew.yaml: Pod default/p: spec.topologySpreadConstraints[0]."
          "maxSkew: Invalid value: -1: must be greater than zero"]),
    Case("an invalid label value in a pod anti-affinity selector is bad input",
         ["simulate", f"{G}/bad-affinity-label.yaml"], 2,
         [f"error: {G}/bad-affinity-label.yaml: Pod default/p: spec.affinity.podAntiAffinity."
          "requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0]."
          "values[0]: Invalid value: \"{{.bad-value.}}\": a valid label must be an empty "
          "string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
          "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
          "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
    Case("malformed YAML is bad input", ["simulate", f"{G}/bad-yaml.yaml"], 2,
         [f"error: {G}/bad-yaml.yaml: invalid YAML: did not find expected ',' or '}}' "
          "(line 4, column 1)"]),
    Case("a bound pod cannot be filtered",
         ["filter", f"{G}/spread.yaml", "--pod", "default/old"], 2,
         [SPREAD_WARNING, f"error: {G}/spread.yaml: Pod default/old: --pod: pod is already "
          "bound to node a1; choose a pending pod"]),
    Case("an unknown pod is bad input", ["score", f"{G}/spread.yaml", "--pod", "ns/none"], 2,
         [SPREAD_WARNING, f"error: {G}/spread.yaml: --pod: no pod ns/none in the scenario"]),
    Case("a bad configuration file is bad input",
         ["simulate", f"{G}/spread.yaml", "--config", f"{G}/config-list.yaml"], 2,
         [f"error: {G}/config-list.yaml: KubeSchedulerConfiguration: profiles[0].pluginConfig"
          "[0].args.defaultConstraints[0].labelSelector: Forbidden: constraint must not "
          "define a selector, as they deduced for each pod"]),
    Case("a missing file is bad input",
         ["validate-update", f"{G}/old-pod.yaml", f"{G}/missing.yaml"], 2,
         [f"error: {G}/missing.yaml: no such file"]),
    Case("an unknown command is a usage error", ["bogus"], 2,
         ["error: argument command: invalid choice: 'bogus' (choose from 'filter', 'score', "
          "'simulate', 'validate-update')"]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_cli_golden(case: Case, capsys) -> None:
    code = main(case.argv)
    out, err = capsys.readouterr()
    assert (code, err.splitlines()) == (case.exit, case.stderr)
    if case.golden is None:
        assert out == ""
        return
    doc = json.loads(out)
    if case.keys:
        doc = {k: doc[k] for k in case.keys}
    assert doc == json.loads((G / f"{case.golden}.json").read_text())


def test_stdout_is_indented_json_with_contract_key_order(capsys) -> None:
    main(["simulate", f"{G}/spread.yaml", "--seed", "1"])
    out = capsys.readouterr().out
    assert out.startswith('{\n  "pods": [\n')
    assert list(json.loads(out))[:2] == ["pods", "evicted"]


def test_module_entry_point_exit_code() -> None:
    proc = subprocess.run([sys.executable, "-m", "scheduler_core", "filter",
                           str(G / "bad-maxskew.yaml"), "--pod", "default/p"],
                          capture_output=True, text=True, cwd=ROOT)
    assert (proc.returncode, proc.stdout, len(proc.stderr.splitlines())) == (2, "", 1)


MIN_DOMAINS = Path(__file__).resolve().parents[2] / "webapp/scenarios/examples/min-domains.yaml"
PENDING = [f"default/api-5b7d9c8f4-{s}" for s in ("b8c9d", "e1f2g", "v4w5x", "y6z7a")]


@pytest.mark.parametrize("flag, explained", [
    ([], PENDING),  # the pods left pending (the default)
    (["--explain", "failed"], PENDING),
    (["--explain", "all"], "all ten"),
    (["--explain", "none"], None),
])
def test_simulate_explains_the_pods_its_flag_names(flag, explained, capsys) -> None:
    main(["simulate", str(MIN_DOMAINS), *flag])
    doc = json.loads(capsys.readouterr().out)
    got = sorted(doc["explanations"]) if "explanations" in doc else None
    if explained == "all ten":
        assert got == sorted(p["pod"] for p in doc["pods"]) and len(got) == 10
    else:
        assert got == explained
    assert [p["outcome"] for p in doc["pods"]].count("Unschedulable") == 4


def test_simulate_refuses_an_unknown_explain_value(capsys) -> None:
    assert main(["simulate", f"{G}/spread.yaml", "--explain", "some"]) == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith(
        "error: argument --explain: invalid choice: 'some'")


@pytest.mark.parametrize("text, error", [
    ("a: &a [*a]\n", "refers to a node that contains it"),
    ("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r}\nspec: {replicas: 2000000000, "
     "selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, "
     "spec: {containers: [{name: c}]}}}\n", "a scenario holds at most 100,000 pods"),
], ids=["alias inside the node it names", "replicas past the pod limit"])
def test_hostile_input_is_one_error_line_and_exit_2_within_seconds(text, error, tmp_path) -> None:
    # In a subprocess with a memory limit: before the limits, both grew until the process died.
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-c", "import resource, sys; "
                           "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
                           "from scheduler_core.cli import main; sys.exit(main(sys.argv[1:]))",
                           "simulate", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (proc.returncode, proc.stdout, len(proc.stderr.splitlines())) == (2, "", 1), proc.stderr
    assert proc.stderr.startswith(f"error: {path}: ") and error in proc.stderr


def test_every_key_simulate_prints_is_documented_in_the_contract(capsys) -> None:
    # docs/engine-cli.md's simulate table is the contract pages and scripts read; a key the engine
    # prints that the table does not name is a fact nobody can rely on.
    assert main(["simulate", f"{G}/spread.yaml", "--explain", "all"]) == 0
    printed = json.loads(capsys.readouterr().out)
    doc = (ROOT / "docs" / "engine-cli.md").read_text()
    table = doc[doc.index("## `simulate`"):doc.index("## `validate-update`")]
    undocumented = [k for k in printed if f"| `{k}` |" not in table]
    assert undocumented == []
