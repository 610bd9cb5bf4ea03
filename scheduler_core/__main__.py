"""``python -m scheduler_core``: hands off to ``cli.main``."""
import sys

from .cli import main

sys.exit(main())
