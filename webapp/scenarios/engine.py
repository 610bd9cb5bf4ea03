"""The only module that imports scheduler_core.

It hands the engine a revision's text, returns the engine's JSON-ready dicts
unchanged, and turns ScenarioError into ScenarioInvalid, which the API and
the forms show next to the object and field it names.
"""

import importlib
import inspect
import logging

import yaml

SCENARIO_FILE = "scenario.yaml"
log = logging.getLogger(__name__)


class ScenarioInvalid(Exception):
    """The manifests are not a scenario the engine accepts (a user problem)."""

    def __init__(self, message, object="", field="", input="manifests"):
        super().__init__(message)
        self.object = object
        self.field = field
        self.input = input  # "manifests" or "config": which text is wrong


class EngineUnavailable(Exception):
    """scheduler_core (or the function asked for) is not installed yet."""


def _core():
    try:
        return importlib.import_module("scheduler_core")
    except ImportError as e:
        log.warning("scheduler_core cannot be imported: %s", e)
        raise EngineUnavailable("the scheduling engine is not installed") from e


def _function(name):
    core = _core()
    try:
        function = getattr(core, name, None)
    except ImportError as e:  # scheduler_core exports lazily; the module may not exist yet
        log.warning("scheduler_core.%s cannot be imported: %s", name, e)
        raise EngineUnavailable(f"the scheduling engine has no {name}() yet") from e
    if inspect.ismodule(function):
        # Importing a submodule of the same name (scheduler_core/simulate.py) replaces the
        # package's lazy export with the module; the function lives inside it.
        function = getattr(function, name, None)
    if not callable(function):
        raise EngineUnavailable(f"the scheduling engine has no {name}() yet")
    return function


def _scenario_error_class():
    try:
        return getattr(_core(), "ScenarioError", None)
    except ImportError:
        return None


def load(manifests, config=""):
    """Parse and check a scenario with the engine; raises ScenarioInvalid."""
    check_yaml(manifests, SCENARIO_FILE)
    if config:
        check_yaml(config, "config.yaml")
    load_scenario = _function("load_scenario")
    error_class = _scenario_error_class() or ValueError
    try:
        return load_scenario(manifests, filename=SCENARIO_FILE, config_text=config or None)
    except error_class as e:
        in_config = "config" in str(getattr(e, "file", "") or "")
        raise ScenarioInvalid(
            str(e), object=getattr(e, "object", "") or "", field=getattr(e, "field", "") or "",
            input="config" if in_config else "manifests",
        ) from e


def validate(manifests, config=""):
    """Check a scenario before it is saved; returns the engine's warnings.

    While the engine is not installed, only the YAML syntax can be checked.
    """
    try:
        scenario = load(manifests, config)
    except EngineUnavailable:
        return []
    return list(getattr(scenario, "warnings", []) or [])


def check_yaml(text, filename):
    input = "config" if filename.startswith("config") else "manifests"
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(e, "problem", None) or "invalid YAML"
        raise ScenarioInvalid(f"{filename}: {problem}{where}", input=input) from e
    if not documents:
        raise ScenarioInvalid(f"{filename}: no Kubernetes objects found", input=input)
    for document in documents:
        if not isinstance(document, dict):
            raise ScenarioInvalid(f"{filename}: each document must be a Kubernetes object (a mapping)", input=input)
    return documents


def simulate(manifests, config="", seed=0):
    """Run the whole scheduling loop; returns the engine's result dict."""
    scenario = load(manifests, config)
    return _function("simulate")(scenario, seed=seed)


def run_filter(manifests, config, pod):
    return _function("run_filter")(load(manifests, config), pod)


def run_score(manifests, config, pod):
    return _function("run_score")(load(manifests, config), pod)


def validate_pod_update(old, new):
    return _function("validate_pod_update")(old, new)
