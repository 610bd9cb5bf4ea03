"""Containers and pod-level resources of a PodSpec.

Mirrors the v1.34 API defaulting and validation the scheduler depends on
(``pkg/apis/core/v1/defaults.go``: requests from limits, hostNetwork host ports;
``validation.go`` ValidateResourceRequirements) and component-helpers
``resource.PodRequests`` for pod-level requests (PodLevelResources, beta and on).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..validation import field as vf
from . import types as t
from .decode import Decoder
from .defaults import DEFAULT_PROTOCOL, requests_with_limit_defaults

PROTOCOLS = ("SCTP", "TCP", "UDP")


def read_container(d: Decoder, v: Any, path: str) -> t.Container:
    """A container (or init container): requests defaulted from limits, ports."""
    m = d.obj(v, path)
    res = d.obj(m.get("resources"), f"{path}.resources")
    requests = d.resource_list(res.get("requests"), f"{path}.resources.requests")
    limits = d.resource_list(res.get("limits"), f"{path}.resources.limits")
    _check_requests_within_limits(d, f"{path}.resources", res, requests, limits)
    return t.Container(
        name=d.str(m.get("name"), f"{path}.name"),
        image=d.str(m.get("image"), f"{path}.image"),
        requests=requests_with_limit_defaults(requests, limits),
        limits=limits,
        ports=d.items(m.get("ports"), f"{path}.ports", lambda x, p: _port(d, x, p)),
        restart_policy=d.str(m.get("restartPolicy"), f"{path}.restartPolicy") or None)


def _check_requests_within_limits(d: Decoder, path: str, raw: Any, requests: dict,
                                  limits: dict) -> None:
    """validation.go ValidateResourceRequirements: a request above its limit."""
    for name, amount in requests.items():
        if name in limits and amount > limits[name]:
            req_raw = d.obj(raw.get("requests"), f"{path}.requests")[name]
            lim_raw = d.obj(raw.get("limits"), f"{path}.limits")[name]
            raise d.fail_field(vf.invalid(f"{path}.requests[{name}]", str(req_raw),
                                          f"must be less than or equal to {name} limit of "
                                          f"{lim_raw}"))


def _port(d: Decoder, v: Any, path: str) -> t.ContainerPort:
    m = d.obj(v, path)
    host_port = d.int(m.get("hostPort"), f"{path}.hostPort", 0)
    if not 0 <= host_port <= 65535:
        raise d.fail_field(vf.invalid(f"{path}.hostPort", host_port,
                                      "must be between 1 and 65535, inclusive"))
    return t.ContainerPort(
        container_port=d.int(m.get("containerPort"), f"{path}.containerPort", 0),
        host_port=host_port,
        protocol=d.enum(m.get("protocol"), f"{path}.protocol", PROTOCOLS, DEFAULT_PROTOCOL),
        host_ip=d.str(m.get("hostIP"), f"{path}.hostIP"))


def host_network_ports(cs: tuple[t.Container, ...]) -> tuple[t.Container, ...]:
    """defaults.go defaultHostNetworkPorts: with hostNetwork, hostPort = containerPort."""
    return tuple(replace(c, ports=tuple(
        replace(p, host_port=p.container_port) if p.host_port == 0 else p for p in c.ports))
        for c in cs)


# component-helpers resource.supportedPodLevelResources (v1.34)
POD_LEVEL_RESOURCES = (t.CPU, t.MEMORY)


def with_pod_level(d: Decoder, v: Any, path: str, requests: dict[str, int],
                    overhead: dict[str, int]) -> dict[str, int]:
    """PodRequests with PodLevelResources (beta, on in v1.34): pod-level cpu/memory
    requests (defaulted from pod-level limits) replace the containers' sum; overhead is
    added on top."""
    if v is None:
        return requests
    res = d.obj(v, path)
    limits = d.resource_list(res.get("limits"), f"{path}.limits")
    pod_level = requests_with_limit_defaults(
        d.resource_list(res.get("requests"), f"{path}.requests"), limits)
    out = dict(requests)
    for name in POD_LEVEL_RESOURCES:
        if name in pod_level:
            out[name] = pod_level[name] + overhead.get(name, 0)
    return out


