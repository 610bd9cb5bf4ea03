"""IdentityMemo: a value is found again only for the very objects it was stored for."""

import pytest

from scheduler_core.k8s.shared_memo import MISS, IdentityMemo

A = {"app": "web"}
B = {"app": "web"}  # equal to A, another object
C = ("containers",)


@pytest.mark.parametrize("stored, stored_extra, asked, asked_extra, found", [
    pytest.param((A,), None, (A,), None, "v", id="same object"),
    pytest.param((A,), None, (B,), None, MISS, id="equal but distinct object misses"),
    pytest.param((A,), "ns1", (A,), "ns2", MISS, id="extra tells entries apart"),
    pytest.param((A,), "ns1", (A,), "ns1", "v", id="same object and extra"),
    pytest.param((A, C), None, (A, C), None, "v", id="pair of objects"),
    pytest.param((A, C), None, (C, A), None, MISS, id="order of objects counts"),
    pytest.param((A, C), None, (A,), None, MISS, id="fewer objects is another key"),
    pytest.param((A, B, C), None, (A, B, C), None, "v", id="three objects"),
    pytest.param((A, B, C), None, (A, A, C), None, MISS, id="one of three differs"),
])
def test_identity_memo_finds_only_what_was_stored_for_those_objects(
        stored, stored_extra, asked, asked_extra, found):
    memo = IdentityMemo()
    memo.put("v", *stored, extra=stored_extra)
    assert memo.get(*asked, extra=asked_extra) is found


class Labels(dict):
    pass


def test_identity_memo_never_answers_for_a_new_object_after_the_caller_dropped_the_old():
    # CPython hands a freed object's address, and so its id, to the next object of its
    # size; the memo must hold its keys' objects so that a new one cannot take their id
    memo = IdentityMemo()
    memo.put("old value", Labels(app="old"))
    for _ in range(100):
        assert memo.get(Labels(app="new")) is MISS


def test_identity_memo_starts_again_empty_past_its_bound():
    memo = IdentityMemo(bound=3)
    objs = [object() for _ in range(4)]
    for i, o in enumerate(objs):
        memo.put(i, o)
    assert len(memo) == 1
    assert memo.get(objs[3]) == 3
    assert memo.get(objs[0]) is MISS
