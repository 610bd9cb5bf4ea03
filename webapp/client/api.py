"""The REST API over urllib: JSON in and out, DRF's error bodies turned into one readable line."""

import gzip
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

from .errors import ClientError

USER_AGENT = "whatif-cli"


def describe_errors(body):
    """DRF's error shapes ({"detail": ...} or field -> messages) as one line."""
    if isinstance(body, dict):
        if "detail" in body and isinstance(body["detail"], str):
            return body["detail"]
        parts = []
        for field, messages in body.items():
            if isinstance(messages, list):
                messages = " ".join(str(m) for m in messages)
            parts.append(str(messages) if field == "non_field_errors" else f"{field}: {messages}")
        return "; ".join(parts)
    if isinstance(body, list):
        return "; ".join(str(m) for m in body)
    return str(body)


class ApiError(ClientError):
    def __init__(self, status, body, message):
        super().__init__(message)
        self.status, self.body = status, body


class Api:
    def __init__(self, server, token=None, timeout=60):
        self.server, self.token, self.timeout = server.rstrip("/"), token, timeout

    def url(self, path):
        return path if path.startswith(("http://", "https://")) else f"{self.server}{path}"

    def request(self, method, path, body=None, headers=None, raw=False):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url(path), data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header("Accept-Encoding", "gzip")  # (a large run's result comes as the server keeps it, gzipped)
        req.add_header("User-Agent", USER_AGENT)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Token {self.token}")
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                content = _decoded(response.headers, response.read())
        except urllib.error.HTTPError as e:
            raise self.error(e.code, _decoded(e.headers, e.read()))
        except urllib.error.URLError as e:
            reason = getattr(e, "reason", e)
            raise ClientError(f"cannot reach the Whatif server at {self.server}: {reason}")
        except (socket.timeout, TimeoutError):
            raise ClientError(f"the Whatif server at {self.server} did not answer within {self.timeout} s")
        except ValueError as e:  # a malformed URL
            raise ClientError(f"bad server URL {self.server!r}: {e}")
        if raw:
            return content.decode("utf-8", errors="replace")
        try:
            return json.loads(content or b"null")
        except ValueError:
            raise ClientError(f"{self.url(path)} did not answer with JSON: is {self.server} a Whatif server?")

    def error(self, status, content):
        try:
            body = json.loads(content or b"null")
        except ValueError:
            body = content.decode("utf-8", errors="replace")[:200].strip()
        text = describe_errors(body) if body else f"HTTP {status}"
        if status == 401:
            text = f"the server refused the credentials ({text}); set WHATIF_TOKEN or run `whatif login`"
        elif status == 404 and not isinstance(body, dict):
            text = f"not found ({status}): is {self.server} a Whatif server?"
        elif status >= 500:
            text = f"the server failed (HTTP {status}): {text}"
        return ApiError(status, body, text)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, {} if body is None else body, **kw)

    def wait_for_run(self, url, timeout, interval=0.5, on_poll=None):
        """Poll a run until it succeeded or failed; ClientError after `timeout` seconds."""
        return self.wait_for(url, timeout, ("succeeded", "failed"), interval, on_poll, "run")

    def wait_for(self, url, timeout, final, interval=0.5, on_poll=None, what="analysis"):
        """Poll a run or an analysis until its status is one of `final`; ClientError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.get(url)
            if found.get("status") in final:
                return found
            if on_poll:
                on_poll(found)
            if time.monotonic() > deadline:
                raise ClientError(f"{what} {found.get('id')} is still {found.get('status')} after {timeout:g} s "
                                  f"(is a worker running?); see {url}")
            time.sleep(interval)
            interval = min(interval * 1.5, 5)


def _decoded(headers, content):
    """A response's body, gunzipped when the server sent it gzip-compressed."""
    if (headers.get("Content-Encoding") or "").strip().lower() == "gzip":
        try:
            return gzip.decompress(content)
        except (OSError, EOFError, zlib.error) as e:
            raise ClientError(f"the server's gzip-compressed answer could not be read: {e}")
    return content


def query(params):
    return "?" + urllib.parse.urlencode({k: v for k, v in params.items() if v not in (None, "")})
