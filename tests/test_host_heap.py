"""A host handles mail with the garbage collector's youngest generation passed over less
often (pbem.host.heap, issue 29), and gives the collector back as it found it."""
import gc

import pytest

from pbem.host import Host, init_host
from pbem.host.heap import YOUNG, mail_heap


def test_a_poll_runs_with_the_collector_tuned_and_restores_it(tmp_path, monkeypatch):
    init_host(tmp_path / "h", "host@club.example", name="Club", period="off")
    host = Host.open(tmp_path / "h")
    seen = []
    monkeypatch.setattr(Host, "tick", lambda self: seen.append(gc.get_threshold()) or [])
    before = gc.get_threshold()
    host.poll()
    assert seen and seen[0][0] == max(before[0], YOUNG) and seen[0][1:] == before[1:]
    assert gc.get_threshold() == before


def test_the_collector_is_restored_when_the_block_fails_and_never_made_busier():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with mail_heap():
            assert gc.get_threshold()[0] == max(before[0], YOUNG)
            raise RuntimeError("a mail failed")
    assert gc.get_threshold() == before
    gc.set_threshold(10 * YOUNG, *before[1:])
    try:
        with mail_heap():
            assert gc.get_threshold()[0] == 10 * YOUNG       # a host that asked for fewer passes keeps them
    finally:
        gc.set_threshold(*before)
