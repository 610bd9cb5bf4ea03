"""The only module that imports scheduler_core.

It hands the engine a revision's text, returns the engine's JSON-ready dicts
unchanged, and turns ScenarioError into ScenarioInvalid, which the API and
the forms show next to the object and field it names.
"""

import hashlib
import logging
import time
from collections import OrderedDict

import scheduler_core

from . import limits

log = logging.getLogger(__name__)

SCENARIO_FILE = "scenario.yaml"
CONFIG_FILE = "config.yaml"


class ScenarioInvalid(Exception):
    """The manifests are not a scenario the engine accepts (a user problem)."""

    def __init__(self, message, object="", field="", input="manifests"):
        super().__init__(message)
        self.object = object
        self.field = field
        self.input = input  # "manifests" or "config": which text is wrong


# Loaded scenarios by their text: a revision is simulated again and again (re-runs with
# other seeds, sweeps, explanations on demand), and scenarios are immutable values.
_LOADED = OrderedDict()
LOADED_MAX = 8  # scenarios kept per process
LOADED_MAX_BYTES = 8_000_000  # texts larger than this are not kept


def load(manifests, config=""):
    """Parse and check a scenario with the engine (once per text and process); raises
    ScenarioInvalid."""
    if len(manifests) + len(config or "") > LOADED_MAX_BYTES:
        return _load(manifests, config)
    key = hashlib.sha256(f"{len(manifests)}:{manifests}{config or ''}".encode()).digest()
    found = _LOADED.get(key)
    if found is None:
        found = _LOADED[key] = _load(manifests, config)
        if len(_LOADED) > LOADED_MAX:
            _LOADED.popitem(last=False)
    _LOADED.move_to_end(key)
    return found


def _load(manifests, config=""):
    if not manifests.strip():
        raise ScenarioInvalid(f"{SCENARIO_FILE}: no Kubernetes objects found")
    parsed = None
    for text, filename, which in ((manifests, SCENARIO_FILE, "manifests"), (config or "", CONFIG_FILE, "config")):
        try:
            # size and nesting, before a parser can choke on them
            docs = limits.check_text(text, filename, parse_fast)
        except limits.TooLarge as e:
            raise ScenarioInvalid(str(e), input=which) from e
        if which == "manifests":
            parsed = docs
    try:
        return scheduler_core.load_scenario(
            manifests, filename=SCENARIO_FILE, config_text=config or None, parsed=parsed)
    except scheduler_core.ScenarioError as e:
        raise ScenarioInvalid(
            str(e), object=e.object or "", field=e.field or "",
            input="config" if e.file == CONFIG_FILE else "manifests",
        ) from e


def parse_fast(text):
    """The engine's fast parse of a text (documents), or None when it takes PyYAML's path."""
    from scheduler_core.scenario_io import parse_fast as parse

    return parse(text)


def warm():
    """Load the engine's compiled loops for every cluster size (a worker runs many
    simulations, so compiling once pays off even on small ones)."""
    import os

    from scheduler_core.columnar import kernels

    kernels.MIN_NODES = int(os.environ.get("WHATIF_KERNEL_MIN_NODES", "0"))
    kernels.warm()


def validate(manifests, config=""):
    """Check a scenario before it is saved; returns the engine's warnings."""
    return list(load(manifests, config).warnings)


def simulate(manifests, config="", seed=0, detail="failed"):
    """Run the whole scheduling loop; returns the engine's result dict. ``detail``: which
    pods' latest cycles to explain ("failed": those left pending; or a list of pod keys)."""
    started = time.perf_counter()
    scenario = load(manifests, config)
    loaded = time.perf_counter()
    result = scheduler_core.simulate(scenario, seed=seed, detail=detail)
    log.info("engine: loaded %d nodes and %d pods in %.0f ms, simulated in %.0f ms",
             len(scenario.nodes), len(scenario.pods), (loaded - started) * 1000,
             (time.perf_counter() - loaded) * 1000)
    return result


def run_filter(manifests, config, pod):
    return scheduler_core.run_filter(load(manifests, config), pod)


def run_score(manifests, config, pod):
    return scheduler_core.run_score(load(manifests, config), pod)


def validate_pod_update(old, new):
    return scheduler_core.validate_pod_update(old, new)


def explain_node_affinity_update(old, new):
    """Which required node affinity requirement was removed, changed, moved or added, term by term."""
    from scheduler_core.validation import explain_node_affinity_update as explain

    return explain(old, new)


def qualified_name_errors(value):
    """Upstream IsQualifiedName's messages for a label key, taint key or gate name ([] when valid)."""
    from scheduler_core.validation.apimachinery import is_qualified_name

    return is_qualified_name(value)


def gated_pods(manifests, config=""):
    """[(namespace, name, [gate names])] of the pods the engine holds back, in file order."""
    return [
        (pod.namespace or "default", pod.name, [getattr(g, "name", g) for g in pod.scheduling_gates])
        for pod in load(manifests, config).pods if pod.scheduling_gates
    ]


def pod_metadata(manifests, config=""):
    """{"ns/name": {labels, owner, priority, gates, node}} of every pod in the manifests (for the dashboard)."""
    out = {}
    for pod in load(manifests, config).pods:
        owner = next((o for o in pod.owner_references if getattr(o, "controller", False)),
                     pod.owner_references[0] if pod.owner_references else None)
        out[f"{pod.namespace or 'default'}/{pod.name}"] = {
            "labels": dict(pod.labels or {}),
            "owner": f"{owner.kind}/{owner.name}" if owner else "",
            "priority": pod.priority or 0,
            "gates": [getattr(g, "name", g) for g in pod.scheduling_gates],
            "node": pod.node_name or "",
            "spread": bool(pod.topology_spread_constraints),
        }
    return out
