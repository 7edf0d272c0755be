"""pbem's own schema in PostgreSQL (no framework: the log has its own chain,
seeds and secrets).  Created on first use, under an advisory lock so that
workers starting together do not race on it.

Readable by the role ``pbem_reader`` (when the host's role may create it):
the games, their heads, the events' public lines, the deadlines and the
workers.  Only the host's own role (the one in ``[store] url``, which owns
every table) reads the rest: ``pbem_secrets`` (seeds, players' secrets,
staged orders and every sealed event line), ``pbem_jobs`` (the mail journal:
its records name order lines a mail ignored), ``pbem_outgoing`` (the mails,
welcomes with secrets among them), ``pbem_docs`` and ``pbem_costs`` (what each
game's mails cost the workers, by which they share out the games).
"""
from __future__ import annotations

VERSION = 4
SCHEMA_LOCK = 0x7062656D5F736368          # "pbem_sch": the advisory lock taken while the schema is made

# A mail's bytes are stored as they are, not offered to the server's compression: they
# are mostly base64 of PNGs, which pglz (the default) cannot shrink by the quarter it
# asks, so it stored every one of 60 order mails (10.3 MB) uncompressed anyway, after
# trying, at about 2.4 ms of the server's CPU a mail (the server's CPU for 200 order
# mails through `pbem serve`: 4.06 s, 2.74 s with this)
OUTGOING_STORED = "ALTER TABLE pbem_outgoing ALTER COLUMN data SET STORAGE EXTERNAL"

# What each game's mails cost the workers lately (CPU ms of their jobs, halved every
# hour), which ``Affinity.rebalanced`` evens out among the workers
COSTS = """CREATE TABLE IF NOT EXISTS pbem_costs (
    game  text PRIMARY KEY,
    cpu   double precision NOT NULL,
    mails bigint NOT NULL,
    at    timestamptz NOT NULL DEFAULT now()
)"""
COST_HALF_LIFE = 3600                     # s

TABLES = f"""
CREATE TABLE IF NOT EXISTS pbem_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
-- one row per game; its head is the compare-and-set every append goes through
CREATE TABLE IF NOT EXISTS pbem_heads (
    game    text PRIMARY KEY,
    seq     bigint NOT NULL,
    hash    text NOT NULL,
    created timestamptz NOT NULL DEFAULT now()
);
-- the log: line n of log.jsonl is the row (game, n); ``line`` holds its exact bytes,
-- or is NULL when the line is sealed (its bytes are then in pbem_secrets as 'line:N')
CREATE TABLE IF NOT EXISTS pbem_events (
    game text   NOT NULL,
    seq  bigint NOT NULL,
    prev text   NOT NULL,
    hash text   NOT NULL,
    kind text   NOT NULL,
    at   text   NOT NULL,
    line bytea,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS pbem_docs (
    game text NOT NULL,
    name text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (game, name)
);
CREATE TABLE IF NOT EXISTS pbem_secrets (
    game text NOT NULL,
    name text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (game, name)
);
-- a game's deadline record (deadline.json) as one row; next_due lets a worker find the due ones
CREATE TABLE IF NOT EXISTS pbem_deadlines (
    game     text PRIMARY KEY,
    doc      bytea NOT NULL,
    next_due timestamptz
);
-- the mail journal: one row per job, keyed by Message-ID (or the message's digest) or a host job's name
CREATE TABLE IF NOT EXISTS pbem_jobs (
    key     text PRIMARY KEY,
    rec     jsonb,
    source  text NOT NULL DEFAULT '',
    game    text NOT NULL DEFAULT '',
    status  text NOT NULL DEFAULT '',
    updated timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS pbem_jobs_game ON pbem_jobs (game);
CREATE SEQUENCE IF NOT EXISTS pbem_job_numbers;
-- the outgoing spool: a mail per row, in the order the jobs committed them
CREATE TABLE IF NOT EXISTS pbem_outgoing (
    id     bigserial PRIMARY KEY,
    job    text NOT NULL,
    n      int  NOT NULL,
    game   text NOT NULL DEFAULT '',
    name   text NOT NULL,
    data   bytea NOT NULL,
    failed text,
    tries       int  NOT NULL DEFAULT 0,   -- failed tries of the transport (the host's clock, as text)
    first_error text NOT NULL DEFAULT '',
    last_try    text NOT NULL DEFAULT '',
    error       text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS pbem_outgoing_job ON pbem_outgoing (job);
{OUTGOING_STORED};
{COSTS};
CREATE TABLE IF NOT EXISTS pbem_workers (
    worker  text PRIMARY KEY,
    machine text NOT NULL,
    pid     int  NOT NULL,
    started timestamptz NOT NULL DEFAULT now(),
    beat    timestamptz NOT NULL DEFAULT now(),
    doing   text NOT NULL DEFAULT ''
);
"""

# from each older schema to the next (run in order by PgStore.ensure_schema)
MIGRATE = {
    2: """ALTER TABLE pbem_outgoing ADD COLUMN IF NOT EXISTS tries int NOT NULL DEFAULT 0,
          ADD COLUMN IF NOT EXISTS first_error text NOT NULL DEFAULT '',
          ADD COLUMN IF NOT EXISTS last_try text NOT NULL DEFAULT '',
          ADD COLUMN IF NOT EXISTS error text NOT NULL DEFAULT ''""",
    3: OUTGOING_STORED,                  # (the mails already waiting stay as they were stored)
    4: COSTS + ";\nREVOKE ALL ON pbem_costs FROM PUBLIC",
}

READABLE = ("pbem_heads", "pbem_events", "pbem_deadlines", "pbem_workers", "pbem_meta")
PRIVATE = ("pbem_secrets", "pbem_jobs", "pbem_outgoing", "pbem_docs", "pbem_costs")


def next_due(doc: bytes):
    """pbem_deadlines.next_due of a deadline document: its earliest due time (the index
    workers look for due deadlines by), None when it has none or cannot be read."""
    import json

    from pbem.host.common import parse_time
    try:
        waits = json.loads(doc).get("waits", {})
        return min((parse_time(w["due"]) for w in waits.values()), default=None)
    except Exception:                       # noqa: BLE001 - a record written by hand: no index, still kept
        return None
