import yaml
from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.renderers import BaseRenderer

from webapp.scenarios import engine
from webapp.scenarios.manifests import documents, limits

UTF8_BOM, BOMS = b"\xef\xbb\xbf", (b"\xff\xfe", b"\xfe\xff")


def json_type(value):
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}[type(value)]


class DepthLimitedJSONParser(JSONParser):
    """DRF's JSON parser, refusing bodies that are not objects or nest so deep that building them overflows."""

    require_object = True  # every endpoint takes an object; views then name the missing fields

    def parse(self, stream, media_type=None, parser_context=None):
        too_deep = ParseError(f"JSON parse error: nested deeper than {settings.MANIFEST_MAX_NESTING} levels.")
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise too_deep
        problem, where = limits.json_problem(data) or (None, "")
        if problem == "depth":
            raise too_deep
        if problem == "nul":  # PostgreSQL text and jsonb cannot store it
            raise ParseError(f"JSON parse error: {where or 'the body'} contains a NUL (\\u0000) character; "
                             "strings cannot contain it.")
        if self.require_object and not isinstance(data, dict):
            raise ParseError(f"JSON parse error: the body must be a JSON object ({{...}}), not {json_type(data)}.")
        return data


class YAMLParser(BaseParser):
    """Accepts `Content-Type: application/yaml`.

    A body of Kubernetes objects becomes {"manifests": <the text as sent>}; a
    mapping with a `manifests` key is read as the JSON body would be.
    """

    media_type = "application/yaml"

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            data = stream.read()
            # a file sent as it is: kubectl honours a UTF-8 or UTF-16 byte-order mark, and so do we
            text = engine.decode(data, "request body") if data[:2] in BOMS or data[:3] == UTF8_BOM else data.decode(encoding)
            docs = documents.read(text, "request body")
        except (limits.TooLarge, engine.ScenarioInvalid) as e:
            raise ParseError(str(e))
        except (UnicodeDecodeError, yaml.YAMLError) as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ParseError(f"YAML parse error{where}: {getattr(e, 'problem', None) or e}")
        if len(docs) == 1 and isinstance(docs[0], dict):
            if "manifests" in docs[0] and "kind" not in docs[0]:
                return dict(docs[0])
        return {"manifests": text}


class XYAMLParser(YAMLParser):
    media_type = "application/x-yaml"


class TextYAMLParser(YAMLParser):
    media_type = "text/yaml"


class YAMLTextRenderer(BaseRenderer):
    """Lets a client ask for the manifests download with `Accept: application/yaml` (or text/yaml, for
    clients that read only text/* bodies as text); an error's body is then YAML too."""

    media_type = "application/yaml"
    format = "yaml"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


class TextYAMLRenderer(YAMLTextRenderer):
    media_type = "text/yaml"
