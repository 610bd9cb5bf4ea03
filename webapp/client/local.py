"""`--local`: the engine in this process, for pipelines without a Whatif server."""

from .errors import ClientError


def simulate(text, filename, config_text=None, config_filename="config.yaml", seed=0):
    """The engine's result for manifests `text`; ClientError naming the file, object and field."""
    import scheduler_core

    try:
        scenario = scheduler_core.load_scenario(text, filename, config_text, config_filename)
        return scheduler_core.simulate(scenario, seed=seed, detail="failed")
    except scheduler_core.ScenarioError as e:
        raise ClientError(str(e))
