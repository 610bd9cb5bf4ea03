"""``simulate``: one run of the scheduling loop over a loaded scenario.

The loop is ``simulation.Simulation``; by default it runs its cycles over node arrays
(``columnar.simulate.ColumnarSimulation``, which overrides the cycle's hooks), falling back
to the reference cycle for a profile or a scenario the arrays do not cover.
"""
from __future__ import annotations

import contextlib
import gc

from .columnar.runtime import Unsupported
from .columnar.simulate import ColumnarSimulation
from .scenario_io import engine_frozen, something_frozen, without_cycle_collection
from .run_memory import Diverged
from .simulation import Simulation


def simulate(scenario, seed: int = 0, detail=True, fast: bool = True, progress=None, memory=None) -> dict:
    """Run the whole scheduling loop over a Scenario; JSON-ready result. By default the
    cycles run over node arrays (``columnar/``); ``fast=False`` forces the reference path,
    every plugin node by node as upstream. Results are equal.

    ``detail``: which pods get an explanation of their latest cycle ("explanations",
    plus "preemptions"): True every pod, "failed" the pods whose latest cycle failed, a
    collection of pod keys those pods, False none.

    ``progress``: called now and then with (cycles so far, pods bound so far, pods pending at
    the start), for a caller that shows a long run's progress.

    ``memory`` (run_memory.RunMemory): the run before, whose cycles this run takes over as far as
    the scenario allows (the same result, sooner, after a quick edit); it then holds this run."""
    try:
        return _run(scenario, seed, detail, fast, progress, memory)
    except Diverged:  # (a bug: the differential tests look for it) the run again, from the start
        memory.forget()
        return _run(scenario, seed, detail, fast, progress, memory)


def _run(scenario, seed, detail, fast, progress, memory) -> dict:
    with _scenario_frozen() as frozen:
        sim = _columnar(scenario, seed, detail, memory) if fast else None
        if sim is None:
            sim = Simulation(scenario, seed, detail, fast, memory)
        frozen()  # (the simulation's own NodeInfos, PodInfos and node arrays as well)
        sim.enqueue_pending()
        sim.run(progress)
        with without_cycle_collection():  # (the result is JSON: no reference cycles to find in it)
            result = _frozen_too(sim.result(), frozen)
    if memory is not None:
        memory.last = sim.log
    return result


def _frozen_too(result: dict, frozen) -> dict:
    """The result, frozen with the rest (``frozen()``): the collector, resumed, would
    otherwise walk all of it on its next allocation (15 ms at 5,000 nodes); the unfreeze
    after the run hands it back. (Not a local of simulate: a traceback kept in the run may
    hold that frame, and so its locals, until a full collection.)"""
    frozen()
    return result


# The youngest generation's threshold while a run goes on (Python's default is 700): a
# cycle allocates thousands of short-lived containers, and a collection every 700 of them
# was most of the collector's time in a run at production density. The middle generation
# is collected after this many of those (default 10): it holds what the run keeps (results,
# events, the pods bound), and each collection of it walked all of that again (65 ms each,
# three a run, at 150,000 pods).
RUN_GC_THRESHOLD = 20_000
RUN_GC_THRESHOLD_1 = 100


@contextlib.contextmanager
def _scenario_frozen():
    """The objects that exist when a run starts (the loaded scenario, mostly) are left out
    of the cycle collector's scans while it runs (``gc.freeze``), and handed back after
    (``gc.unfreeze``): a run allocates many short-lived containers, and each full
    collection would otherwise walk the whole scenario again. The context's value freezes
    what exists by then too (the simulation once built, then its result). Garbage cycles are still
    collected, less often (``RUN_GC_THRESHOLD``). Left alone when something else already
    froze objects (it owns that state)."""
    if something_frozen() or not gc.isenabled():
        yield lambda: None
        return
    threshold = gc.get_threshold()
    gc.freeze()
    engine_frozen(+1)
    gc.set_threshold(max(threshold[0], RUN_GC_THRESHOLD), max(threshold[1], RUN_GC_THRESHOLD_1),
                     *threshold[2:])
    try:
        yield gc.freeze
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()
        engine_frozen(-1)


def _columnar(scenario, seed: int, detail, memory=None) -> Simulation | None:
    """The columnar simulation, or None for a profile it cannot run."""
    try:
        return ColumnarSimulation(scenario, seed, detail, memory)
    except Unsupported:
        return None
