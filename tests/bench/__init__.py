"""Benchmark suite for the scheduling engine, run by ``make bench``.

Not part of the tests: no file here starts with ``test_`` and nothing here is collected by
pytest. ``python -m tests.bench.run --help`` lists the options.

- ``generate.py``  seeded generator of cluster manifests (a ``kind: List`` as kubectl prints it)
- ``floor.py``     the same workload's bare minimum in NumPy, the yardstick for ``simulate``
- ``run.py``       the driver: one subprocess per size and mode, a time budget, a table, JSON
"""
