"""What the OpenAPI schema says beyond the views' own annotations.

- Request bodies are documented as JSON only (the views also parse forms and YAML for
  the pages and for curl, but a generated client needs one media type per body); the
  operations that take raw YAML say so with `extend_schema(request={...})`.
- `postprocess` adds the error responses every operation can give, with DRF's error
  shapes, and the headers (ETag, Location, Retry-After) the views send.
"""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

JSON_TYPES = ("application/json", "application/merge-patch+json")


class AutoSchema(SpectacularAutoSchema):
    def map_parsers(self):
        return [media_type for media_type in super().map_parsers() if media_type in JSON_TYPES]


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


ERROR_SCHEMAS = {
    "Error": {
        "type": "object",
        "description": "DRF's error shape for everything but field validation.",
        "properties": {"detail": {"type": "string"}},
        "required": ["detail"],
    },
    "ValidationError": {
        "type": "object",
        "description": "Bad input: field name -> list of messages (non_field_errors for the whole body), or a "
                       "detail; a refused scenario text also names the object, field and input (manifests or "
                       "config) at fault.",
        "properties": {
            "detail": {"type": "string"},
            "object": {"type": "string", "nullable": True},
            "field": {"type": "string", "nullable": True},
            "input": {"type": "string", "nullable": True},
            "non_field_errors": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": {},
    },
    "StaleRevision": {
        "type": "object",
        "description": "The revision the change was based on is no longer the current one.",
        "properties": {"detail": {"type": "string"}, "current_revision": {"type": "integer"}},
        "required": ["detail", "current_revision"],
    },
}

ETAG = {"ETag": {"description": 'The scenario\'s current revision number, quoted: "3". Send it back as If-Match.',
                 "schema": {"type": "string"}}}
LOCATION = {"Location": {"description": "URL of the created (or queued) resource.",
                         "schema": {"type": "string", "format": "uri"}}}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before trying again.", "schema": {"type": "integer"}}}

ERRORS = {
    "400": ("Bad input; the body names each field at fault.", "ValidationError", {}),
    "401": ("No credentials, or an invalid or revoked token.", "Error", {}),
    "403": ("Your role in the scenario's team does not allow this (or a session request lacks its CSRF token).",
            "Error", {}),
    "404": ("Not found, or not visible to you.", "Error", {}),
    "409": ("Stale base revision: reload, reapply the change and send it again.", "StaleRevision", ETAG),
    "413": ("The request body is larger than the server accepts (MAX_REQUEST_BYTES).", "Error", {}),
    "415": ("Unsupported Content-Type.", "Error", {}),
    "428": ('Say which revision you edited: If-Match: "<n>" or a "revision" field.', "Error", {}),
    "429": ("Too many attempts from this address; retry after Retry-After seconds.", "Error", RETRY_AFTER),
    "503": ("The run queue (broker) is unavailable; the run stays queued. Retry after Retry-After seconds.",
            "Error", RETRY_AFTER),
}

# Errors that depend on what an operation does, not on its shape.
BASED_ON_A_REVISION = {"scenarios_revisions_create", "scenarios_revisions_restore_create",
                       "scenarios_draft_save_create", "scenarios_pods_updates_create"}
QUEUES_RUNS = {"scenarios_runs_create", "scenarios_draft_run_create", "scenarios_sweeps_create",
               "scenarios_pods_updates_create"}
EXTRA_ERRORS = {
    "scenarios_revisions_create": {"428"},
    "auth_token_create": {"429"},
}
# Headers of the success responses, by operation id and status.
HEADERS = {
    "scenarios_retrieve": {"200": ETAG},
    "scenarios_create": {"201": {**ETAG, **LOCATION}},
    "scenarios_update": {"200": ETAG},
    "scenarios_partial_update": {"200": ETAG},
    "scenarios_revisions_create": {"201": {**ETAG, **LOCATION}},
    "scenarios_revisions_restore_create": {"201": {**ETAG, **LOCATION}},
    "scenarios_draft_save_create": {"201": {**ETAG, **LOCATION}},
    "scenarios_runs_create": {"202": LOCATION},
    "scenarios_draft_run_create": {"202": LOCATION},
    "scenarios_sweeps_create": {"202": LOCATION},
    "scenarios_pods_updates_create": {"201": {**ETAG, **LOCATION}},
}


def error_codes(operation):
    """The error statuses an operation can answer, from what it takes and does."""
    params = {p["in"] for p in operation.get("parameters", [])}
    codes = set(EXTRA_ERRORS.get(operation["operationId"], ()))
    if operation.get("security") != [{}]:
        codes |= {"401", "403"}
    if "requestBody" in operation:
        codes |= {"400", "413", "415"}
    if params & {"query", "header"}:
        codes.add("400")
    if "path" in params or any(p["name"] == "page" for p in operation.get("parameters", [])):
        codes.add("404")  # an unknown id, or a page past the end
    if operation["operationId"] in BASED_ON_A_REVISION:
        codes.add("409")
    if operation["operationId"] in QUEUES_RUNS:
        codes.add("503")
    return codes


def path_schema(schema):
    """Path ids are digits (the URL patterns' [0-9]+ and <int:>); other segments are anything but a slash."""
    if schema.get("type") == "integer" or schema.get("pattern") == "^[0-9]+$":
        return {"type": "integer", "minimum": 0}
    if schema.get("type") == "string":
        return {**schema, "pattern": "^[^/]+$"}
    return schema


def postprocess(result, generator, request, public):
    """drf-spectacular postprocessing hook: error responses and response headers."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(ERROR_SCHEMAS)
    for operations in result["paths"].values():
        for operation in operations.values():
            # DRF's ?format= override (the manifests download has several renderers) is not part of the contract
            operation["parameters"] = [p for p in operation.get("parameters", []) if p["name"] != "format"]
            for parameter in operation["parameters"]:
                if parameter["in"] == "path":
                    parameter["schema"] = path_schema(parameter["schema"])
            responses = operation["responses"]
            for code in sorted(error_codes(operation)):
                if code in responses:
                    continue
                description, schema, headers = ERRORS[code]
                responses[code] = {"description": description,
                                   "content": {"application/json": {"schema": ref(schema)}}}
                if headers:
                    responses[code]["headers"] = headers
            for code, headers in HEADERS.get(operation["operationId"], {}).items():
                responses[code].setdefault("headers", {}).update(headers)
    return result
