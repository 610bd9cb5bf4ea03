"""JSON text for the large documents the engine returns (a run's result, its page's rows).

At 5,000 nodes and 150,000 pods a result is 136 MB of JSON, which the json module takes seconds to write out in
the worker. ``dumps`` writes the same values with orjson (compact: no spaces after separators, which nothing
reads), and anything orjson refuses (an integer beyond 64 bits) the json module's way. ``LargeJSONEncoder`` is
the same for a JSONField's writes.
"""
import json

import orjson


def dumps(value) -> bytes:
    """value as UTF-8 JSON text."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(value).encode()


class LargeJSONEncoder(json.JSONEncoder):
    def encode(self, o):
        return dumps(o).decode()
