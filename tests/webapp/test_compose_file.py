import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


def test_it_defines_the_services_with_health_checks():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    assert {"web", "worker", "postgres", "redis", "migrate"} <= set(services)
    for name in ("web", "worker", "postgres", "redis"):
        assert "healthcheck" in services[name], name
    # --scale worker=4 needs a worker without a fixed name or published port.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]


def test_the_web_server_keeps_a_browser_s_connection_while_its_person_reads_an_edit_s_result():
    # (the next quick edit then reaches the process that holds the draft's documents)
    command = yaml.safe_load(COMPOSE.read_text())["services"]["web"]["command"]
    assert "--threads" in command and int(command[command.index("--keep-alive") + 1]) >= 30


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose (Debian) not installed")
def test_it_is_accepted_by_the_compose_validator():
    result = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
