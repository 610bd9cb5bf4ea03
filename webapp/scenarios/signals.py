"""Signals the scenarios app sends for the apps above it (the pages) to hook into."""

from django.dispatch import Signal

# Sent by the worker when a run succeeded, before its outcome is stored: run=<Run>, result=<the engine's result>.
# Each receiver may return a JSON object; their union is stored with the run (RunPage.data) in the same write.
run_computed = Signal()
