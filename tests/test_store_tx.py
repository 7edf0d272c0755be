"""What a PostgreSQL transaction keeps (pbem/store/pg_tx.py): under a game's lock its
documents and head are asked of the server once, its lock once; a savepoint rolled
back forgets what it wrote and the locks it took; a job asks nothing twice."""
from __future__ import annotations

import collections
import contextlib

import psycopg
import pytest

from pbem.engine import Game
from pbem.host import Host
from pbem.store.pg import lock_key

CLOCK = "2026-01-01T00:00:00Z"
SEED = "dbcf34790826a38f229e9c0a6981efd72f99fe5578c7492e81c8f82cfc4edf89"


@pytest.fixture
def store(pg_url, tmp_path):
    from pbem.store.pg import PgStore
    s = PgStore(pg_url, cache_root=tmp_path / "cache")
    yield s
    s.close()


@pytest.fixture
def sent(monkeypatch):
    """Every statement this process sends, as (its transaction, SQL, parameters)."""
    from pbem.store import pg
    got: list[tuple] = []
    real = psycopg.Cursor.execute

    def execute(self, query, params=None, **kw):
        tx = pg._current.get()
        got.append((id(tx) if tx is not None else None, str(query), tuple(params or ())))
        return real(self, query, params, **kw)
    monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    return got


def selects(sent, word: str) -> list:
    return [s for s in sent if s[1].lstrip().startswith("SELECT") and word in s[1]]


def new_game(store, gid="g1") -> Game:
    return Game.create(store.game(gid), "el-alamein", {"axis": "a@x.org"}, seed_hex=SEED, game_id=gid, at=CLOCK)


@pytest.fixture
def g1(store, sent):
    """Game g1's store, made; the statements counted from here."""
    new_game(store)
    sent.clear()
    return store.game("g1")


def test_under_the_games_lock_a_document_is_read_once_and_what_is_written_is_read_back(store, sent):
    new_game(store)
    g = store.game("g1")
    g.write("staged.json", b'{"a": 1}')
    sent.clear()
    with store.transaction():
        store.game_lock("g1")
        store.game_lock("g1")                                        # held: not asked again
        assert g.read("staged.json") == b'{"a": 1}' and g.read("staged.json") == b'{"a": 1}'
        assert g.read("notify.json") is None and g.read("notify.json") is None     # a missing one too
        g.write("staged.json", b'{"a": 2}')
        assert g.read("staged.json") == b'{"a": 2}'
    assert len(selects(sent, "pg_advisory_xact_lock")) == 1
    assert len(selects(sent, "FROM pbem_secrets")) == 2              # staged.json and notify.json, once each
    assert g.read("staged.json") == b'{"a": 2}'                      # committed


def test_without_the_lock_every_read_asks_the_server(store, sent, g1):
    g = g1
    with store.transaction():
        g.read("staged.json")
        g.read("staged.json")
        g.log.recorded_head()
        g.log.recorded_head()
    assert len(selects(sent, "FROM pbem_secrets")) == 2
    assert len(selects(sent, "FROM pbem_heads")) == 2


def test_what_another_commits_is_seen_by_a_transaction_without_the_games_lock(store, pg_url):
    new_game(store)
    g = store.game("g1")
    with store.transaction():
        assert g.read("scenario.toml") is not None
        with psycopg.connect(pg_url, autocommit=True) as other:
            other.execute("UPDATE pbem_docs SET data = 'x' WHERE game = 'g1' AND name = 'scenario.toml'")
        assert g.read("scenario.toml") == b"x"


def test_an_append_under_the_lock_keeps_the_new_head_and_a_stale_one_is_refused(store, sent, pg_url, g1):
    g = g1
    with store.transaction():
        store.game_lock("g1")
        before = g.log.recorded_head()
        rec = g.log.append("PressSent", {"side": "axis", "text": "one"}, at=CLOCK)
        assert g.log.recorded_head() == (rec.seq, rec.hash) == (before[0] + 1, rec.hash)
    assert len(selects(sent, "FROM pbem_heads")) == 1                # read once; the append set it
    assert g.log.read(verify=True)[-1].hash == rec.hash == Game(g).head()[1]    # the chain holds
    # a head kept here that another moved (outside the protocol) is caught by the compare-and-set
    from pbem.log import StaleHead
    with pytest.raises(StaleHead):
        with store.transaction():
            store.game_lock("g1")
            g.log.recorded_head()
            with psycopg.connect(pg_url, autocommit=True) as other:
                other.execute("UPDATE pbem_heads SET hash = 'moved' WHERE game = 'g1'")
            g.log.append("PressSent", {"side": "axis", "text": "two"}, at=CLOCK)


def test_a_savepoint_rolled_back_forgets_what_it_wrote_and_the_locks_it_took(store, sent, pg_url):
    new_game(store)
    g = store.game("g1")
    g.write("staged.json", b"old")
    sent.clear()
    with store.transaction() as tx:
        with contextlib.suppress(RuntimeError):
            with store.atomic():
                store.game_lock("g1")
                g.write("staged.json", b"new")
                assert g.read("staged.json") == b"new"
                raise RuntimeError
        assert not tx.holds("g1")
        with psycopg.connect(pg_url, autocommit=True) as other:     # the server released it too
            assert other.execute("SELECT pg_try_advisory_lock(%s)", (lock_key("g1"),)).fetchone()[0]
            other.execute("SELECT pg_advisory_unlock(%s)", (lock_key("g1"),))
        store.game_lock("g1")
        assert g.read("staged.json") == b"old"                       # asked again: the write was undone
    assert len(selects(sent, "pg_advisory_xact_lock")) == 2


def test_a_job_asks_the_server_nothing_twice(tmp_path, pg_url, sent):
    """One order mail on the database: no document, lock, head or spool check is asked
    twice in one transaction (a job asked for its staged orders six times, its lock four)."""
    from mail_helpers import deliver, make_host, message
    from pg_helpers import use_database
    root = tmp_path / "host"
    make_host(root, period="72h")
    use_database(root, pg_url)
    host = Host.open(root)
    g = Game.create(host.store.game("g1"), "el-alamein", {"axis": "a@x.org", "british": "b@x.org"}, seed_hex=SEED,
                    game_id="g1", at=CLOCK)
    host.welcome(g)
    import json
    tok = json.loads(g.store.read("player-secrets.json"))["axis"]
    deliver(host, message("a@x.org", f"Token: {tok}\nmove 8Pz 0612 0712 0812\nend\n", mid="m1@x.org"))
    sent.clear()
    [oc] = host.poll()
    assert oc.status == "accepted"
    asked = collections.Counter(s for s in sent if s[0] is not None and s[1].lstrip().startswith("SELECT")
                                and "pbem_events" not in s[1])
    assert [s for s, n in asked.items() if n > 1] == []
    assert len(selects(sent, "pg_advisory_xact_lock")) <= 1


def test_under_the_lock_the_last_line_is_read_once_and_an_append_moves_it(store, sent, g1):
    g = g1
    with store.transaction():
        store.game_lock("g1")
        first = g.log.head()
        assert g.log.head() == first and g.log.head_anchored() == (*first, first)
        rec = g.log.append("PressSent", {"side": "axis", "text": "one"}, at=CLOCK)
        assert g.log.head() == (rec.seq, rec.hash) and g.log.head_anchored() == (rec.seq, rec.hash, (rec.seq, rec.hash))
    assert len(selects(sent, "FROM pbem_events")) == 2             # head(), then head_anchored()'s anchor with it
    assert Game(g).head() == (rec.seq, rec.hash)          # as read afresh


def test_the_log_read_backwards_in_growing_pages_gives_every_line(store):
    g = store.game("g1")
    new_game(store)
    g.log.append_many([("PressSent", {"side": "axis", "text": str(i)}) for i in range(400)], at=CLOCK)
    forwards = list(g.log.iter_lines())
    assert len(forwards) > 400 and list(g.log.iter_lines_reversed()) == forwards[::-1]
