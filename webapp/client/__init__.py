"""`whatif`: the command-line client for scripts and CI pipelines.

It speaks the REST API with a token (flags, environment or a config file), or runs the
engine in-process with `--local`. Standard library only, and never Django: it imports
``scheduler_core`` for `--local` and nothing else of the project.
"""
