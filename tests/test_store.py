"""The storage interface on both stores (one suite, parametrised): files, the
embedded default, and PostgreSQL on a throw-away cluster (tests/pg_helpers.py;
skipped without PostgreSQL, failing in CI).  What the engine needs of a store:
the append with an expected head, the lines read from seq 0 and from the end,
the head and the anchor, the documents and the seed; and that a game played on
either store writes the same log, byte for byte."""
from __future__ import annotations

import multiprocessing as mp

import pytest

from pbem.engine import Game
from pbem.log import StaleHead, line_hash

CLOCK = "2026-01-01T00:00:00Z"
SEED = "dbcf34790826a38f229e9c0a6981efd72f99fe5578c7492e81c8f82cfc4edf89"
TURN1 = "move 8Pz 0612 0712 0812\nend\nattack 0913 with 8Pz\nend\n"


@pytest.fixture(params=["files", "postgresql"])
def target(request, tmp_path):
    """Where a new game goes: a folder, or a game store in a fresh database."""
    if request.param == "files":
        yield lambda gid: tmp_path / gid
        return
    from pbem.store.pg import PgStore
    store = PgStore(request.getfixturevalue("pg_url"), cache_root=tmp_path / "cache")
    yield store.game
    store.close()


def lines_of(game) -> list[bytes]:
    return list(game.log.iter_lines())


def test_a_game_on_either_store_writes_the_same_log_byte_for_byte(target, tmp_path):
    on_files = Game.create(tmp_path / "ref", "el-alamein", {"axis": "a@x.org"}, seed_hex=SEED, game_id="g1", at=CLOCK)
    on_files.submit("axis", TURN1, at=CLOCK)
    g = Game.create(target("g1"), "el-alamein", {"axis": "a@x.org"}, seed_hex=SEED, game_id="g1", at=CLOCK)
    g.submit("axis", TURN1, at=CLOCK)
    g.submit("axis", "secret plan Tobruk at dawn", at=CLOCK)
    on_files.submit("axis", "secret plan Tobruk at dawn", at=CLOCK)
    assert lines_of(g) == lines_of(on_files)
    assert g.head() == on_files.head()
    assert g.log.recorded_head() == on_files.log.head()                 # the anchor names the head
    assert list(g.log.iter_lines_reversed()) == lines_of(on_files)[::-1]
    assert g.log.first_line() == lines_of(on_files)[0]
    reopened = Game(g.store)
    assert reopened.verify().ok and reopened.state() == on_files.state()


def test_append_with_a_stale_expected_head_is_refused_and_writes_nothing(target):
    g = Game.create(target("g1"), "el-alamein", {}, seed_hex=SEED, game_id="g1", at=CLOCK)
    seq, head = g.head()
    g.log.append("PressSent", {"side": "axis", "text": "one"}, at=CLOCK, expect_head=head)
    before = lines_of(g)
    with pytest.raises(StaleHead, match="log changed since it was read"):
        g.log.append("PressSent", {"side": "axis", "text": "two"}, at=CLOCK, expect_head=head)
    assert lines_of(g) == before and g.head()[0] == seq + 1
    rec = g.log.append("PressSent", {"side": "axis", "text": "three"}, at=CLOCK, expect_head=g.head()[1])
    assert rec.seq == seq + 2 and rec.hash == line_hash(rec.prev, rec.line) == g.head()[1]


def test_a_second_game_into_the_same_place_is_refused(target):
    Game.create(target("g1"), "el-alamein", {}, seed_hex=SEED, game_id="g1", at=CLOCK)
    with pytest.raises(Exception, match="already holds a game"):
        Game.create(target("g1"), "el-alamein", {}, seed_hex=SEED, game_id="g1", at=CLOCK)


def test_documents_and_the_seed(target):
    g = Game.create(target("g1"), "el-alamein", {}, seed_hex=SEED, game_id="g1", at=CLOCK)
    assert g.store.read_seed(g.created.seed_commitment).hex() == SEED
    assert g.store.read("staged.json") is None
    g.store.write("staged.json", b'{"axis": 1}')
    with g.store.doc_lock("staged.json"):
        g.store.write("staged.json", b'{"axis": 2}')
    assert g.store.read("staged.json") == b'{"axis": 2}' and g.store.mode("staged.json") == 0o600
    from pbem.core.dice import DiceError
    with pytest.raises(DiceError):
        g.store.read_seed("0" * 64)                                   # not the committed seed: refused


def _race(make, gid, head, n, barrier, out):
    from pbem.store.pg import PgStore
    g = Game(PgStore(make, cache_root=None).game(gid)) if isinstance(make, str) else Game(make)
    barrier.wait()
    try:
        g.log.append("PressSent", {"side": "axis", "text": f"writer {n}"}, at=CLOCK, expect_head=head)
        out.put(("won", n))
    except StaleHead as e:
        out.put(("stale", str(e)))


def test_two_writers_on_one_head_never_fork_the_game(target, request, tmp_path):
    """Four processes append on the same head at one instant: one wins, the others
    get the file store's "log changed since it was read" refusal; the chain holds."""
    where = target("g1")
    g = Game.create(where, "el-alamein", {}, seed_hex=SEED, game_id="g1", at=CLOCK)
    make = request.getfixturevalue("pg_url") if g.store.kind == "postgresql" else tmp_path / "g1"
    head = g.head()[1]
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_race, args=(make, "g1", head, n, barrier, out)) for n in range(4)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(60)
    assert sorted(r[0] for r in results) == ["stale", "stale", "stale", "won"]
    assert all("log changed since it was read" in r[1] for r in results if r[0] == "stale")
    entries = Game(g.store).entries(verify=True)                     # one chain, no fork: seq and prev checked
    won = [r[1] for r in results if r[0] == "won"][0]
    assert entries[-1].seq == len(entries) - 1 == g.head()[0]
    assert [en.event.text for en in entries if en.kind == "PressSent"] == [f"writer {won}"]


def test_a_database_of_the_first_schema_is_brought_up_to_date_when_opened(pg_url, tmp_path):
    """Schema 2 keeps each waiting mail's failed tries and last error (pbem host status):
    a database made by schema 1 gets the columns when a newer pbem opens it."""
    import psycopg
    from pbem.store import pg_schema as S
    from pbem.store.pg import PgStore
    PgStore(pg_url, cache_root=tmp_path).close()
    with psycopg.connect(pg_url, autocommit=True) as c:             # as schema 1 left it
        c.execute("ALTER TABLE pbem_outgoing DROP COLUMN tries, DROP COLUMN first_error, DROP COLUMN last_try, "
                  "DROP COLUMN error")
        c.execute("UPDATE pbem_meta SET value = '1' WHERE key = 'schema'")
    store = PgStore(pg_url, cache_root=tmp_path)
    store.spool_put("000001-x", [("00-axis-welcome.eml", b"To: a@x.org\r\nX-pbem-Kind: welcome\r\n\r\nhi\r\n")])
    store.spool_tried("SMTP 127.0.0.1: connection refused", CLOCK)
    [m] = store.stuck()
    assert (m["state"], m["tries"], m["first_error"], m["error"]) == ("waiting", 1, CLOCK,
                                                                     "SMTP 127.0.0.1: connection refused")
    assert store._one("SELECT value FROM pbem_meta WHERE key = 'schema'")[0] == str(S.VERSION) == "4"
    assert _mail_storage(store) == "e"                              # schema 3: a mail's bytes stored as they are
    store.close()


def _mail_storage(store) -> str:
    return store._one("SELECT attstorage FROM pg_attribute WHERE attrelid = 'pbem_outgoing'::regclass "
                      "AND attname = 'data'")[0]


def test_a_mails_bytes_are_stored_as_they_are_in_a_new_database_and_an_older_one(pg_url, tmp_path):
    """Schema 3: the server does not try to compress a mail (base64 of PNGs, which pglz
    cannot shrink by the quarter it asks, after spending its CPU trying)."""
    import psycopg
    from pbem.store.pg import PgStore
    store = PgStore(pg_url, cache_root=tmp_path)
    assert _mail_storage(store) == "e"
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as c:             # as schema 2 left it
        c.execute("ALTER TABLE pbem_outgoing ALTER COLUMN data SET STORAGE EXTENDED")
        c.execute("DROP TABLE pbem_costs")                         # (schema 4's)
        c.execute("UPDATE pbem_meta SET value = '2' WHERE key = 'schema'")
    store = PgStore(pg_url, cache_root=tmp_path)
    assert _mail_storage(store) == "e"
    Game.create(store.game("g1"), "el-alamein", {}, seed_hex=SEED, game_id="g1", at=CLOCK)
    store.note_cost("g1", 12.5)                                     # schema 4: the games' costs
    store.note_cost("nobody-hosts-this", 9.0)                       # (a refused mail's: not kept)
    assert store._all("SELECT game, cpu, mails FROM pbem_costs") == [("g1", 12.5, 1)]
    mail = b"To: a@x.org\r\nX-pbem-Kind: welcome\r\n\r\n" + b"QUFB" * 50_000 + b"\r\n"   # compressible
    store.spool_put("000001-x", [("00-axis-welcome.eml", mail)])
    size, length = store._one("SELECT pg_column_size(data), octet_length(data) FROM pbem_outgoing")
    assert size >= length == len(mail)                              # not compressed
    store.close()


def test_the_transport_sends_its_own_spooled_mails_from_memory_and_reads_the_others(pg_url, tmp_path):
    """A worker sends the mails it just committed without reading their bytes back from
    the database; another process's, or a rolled-back job's, are never taken from memory."""
    from pbem.store.pg import PgStore
    mine, other = PgStore(pg_url, cache_root=tmp_path / "a", worker="a:1"), PgStore(pg_url, cache_root=tmp_path / "b",
                                                                                    worker="b:2")
    try:
        one = [("00-axis-answer.eml", b"To: a@x.org\r\n\r\none\r\n"), ("01-british.eml", b"To: b@x.org\r\n\r\ntwo\r\n")]
        mine.spool_put("000001-aa", one, "g1")
        assert dict(mine._written) == {("000001-aa", 0): one[0][1], ("000001-aa", 1): one[1][1]}
        with pytest.raises(RuntimeError), mine.transaction():          # a job that fails: nothing kept
            mine.spool_put("000002-bb", [("00-x.eml", b"To: c@x.org\r\n\r\nlost\r\n")], "g1")
            raise RuntimeError("the job failed after spooling")
        assert ("000002-bb", 0) not in mine._written
        other.spool_put("000003-cc", [("00-y.eml", b"To: d@x.org\r\n\r\nthree\r\n")], "g2")
        sent = []
        for item in mine.spool_items():
            sent.append((item.label, item.data()))
            item.done()
        assert sent == [("000001-aa/00-axis-answer.eml", one[0][1]), ("000001-aa/01-british.eml", one[1][1]),
                        ("000003-cc/00-y.eml", b"To: d@x.org\r\n\r\nthree\r\n")]     # read from the database
        assert not mine._written and mine.spool_pending() == 0
    finally:
        mine.close()
        other.close()
