"""Where the server and token come from: flags, then WHATIF_SERVER / WHATIF_TOKEN, then the config file."""

import json
import os
from pathlib import Path

from .errors import ClientError


def config_path():
    if os.environ.get("WHATIF_CONFIG"):
        return Path(os.environ["WHATIF_CONFIG"])
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "whatif" / "config.json"


def load():
    path = config_path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ClientError(f"cannot read the config file {path}: {e}")
    if not isinstance(data, dict):
        raise ClientError(f"the config file {path} must hold a JSON object with \"server\" and \"token\"")
    return data


def save(server, token):
    """Write the config file readable by its owner only (it holds a token)."""
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"server": server, "token": token}, out, indent=2)
    except OSError as e:
        raise ClientError(f"cannot write the config file {path}: {e}")
    return path


def resolve(server=None, token=None, need_token=True):
    """(server URL, token) from the flags, the environment and the config file, in that order."""
    saved = None
    if not server:
        server = os.environ.get("WHATIF_SERVER") or (saved := load()).get("server")
    if not token:
        token = os.environ.get("WHATIF_TOKEN") or (saved if saved is not None else load()).get("token")
    if not server:
        raise ClientError("no server: pass --server URL, set WHATIF_SERVER, or run `whatif login --server URL`")
    if need_token and not token:
        raise ClientError("no API token: set WHATIF_TOKEN, pass --token, or run `whatif login`")
    return server.rstrip("/"), token
