"""{% view_url %} writes a pod's or a node's address as {% url %} does (reverse), on a page and on a shared
page, for any name a scenario may give them: it reverses once per page and fills in each pod's parts."""

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils.html import escape

NAMES = ["web-1", "a.b-c", "Upper_case", "with space", "ünïcode", "x@y:z", "~tilde", "100%", "a+b=c&d",
         "semi;colon", "q?uery", "hash#tag", "dollar$", "'quoted'", "(paren)", "*star", ",comma"]
TEMPLATE = Template("{% load sharing %}{% view_url 'run-pod' 7 ns name %}|{% view_url 'run-node' 7 name %}")


def expected(ns, name, token=None):
    """(as the page writes them: HTML-escaped)"""
    if token is None:
        pod, node = reverse("run-pod", args=[7, ns, name]), reverse("run-node", args=[7, name])
    else:
        pod, node = reverse("shared-run-pod", args=[token, 7, ns, name]), reverse("shared-run-node", args=[token, 7, name])
    return f"{escape(pod)}|{escape(node)}"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("token", [None, "tok-en_123"])
def test_pod_and_node_links_are_what_reverse_writes(name, token):
    context = {"ns": "team-a", "name": name}
    if token:
        context.update(shared=True, token=token)
    assert TEMPLATE.render(Context(context)) == expected("team-a", name, token)


def test_many_links_on_one_page_each_get_their_own_parts():
    template = Template("{% load sharing %}{% for p in pods %}{% view_url 'run-pod' 7 p.0 p.1 %} {% endfor %}")
    pods = [("ns-1", "a"), ("ns-2", "b b"), ("ns-1", "c%")]
    assert template.render(Context({"pods": pods})).split() == [escape(reverse("run-pod", args=[7, *p])) for p in pods]
