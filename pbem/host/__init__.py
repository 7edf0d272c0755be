"""The mail host: configuration, the ingest pipeline, idempotency records,
the outgoing spool, deadlines and the serve loop.

A host is a directory holding ``pbem-host.toml``::

    pbem-host.toml     configuration (pbem host init)
    credentials.toml   IMAP/SMTP passwords, mode 0600 (or PBEM_IMAP_PASSWORD / PBEM_SMTP_PASSWORD)
    inbox/             incoming Maildir (the embedded default; fetchmail/getmail deliver here)
    outbox/            outgoing .eml files (the embedded default)
    games/             the games (any game dir can be registered with `pbem host add`)
    mail/processed/    Maildir of messages dealt with
    mail/quarantine/   Maildir of messages that could not be read or authenticated;
                       reasons.jsonl says why
    state/             journal/ (one record per message or job), spool/, games.json, lock
    host.log           what the host did, one line per action

Exactly once.  Every unit of work (an incoming message, a deadline default,
a reminder, a welcome) is a *job* with a key (the Message-ID for mail) and a
journal record, written with fsync before anything else happens:

    started   -> the job has a number and a timestamp (reused if it is redone)
    applying  -> authenticated orders, with the log head they go on
    done      -> the answers are in the spool; the message may leave the inbox

Orders are appended to the game's log in one atomic write.  If the process
dies between that write and ``done``, the next run sees ``applying`` with a
head that moved, re-runs the same orders on a scratch copy of the log cut at
the recorded head (same seed, same timestamp, so byte-identical events),
confirms the real log holds exactly those lines, and rebuilds the answers
from that result instead of applying anything twice.  Outgoing mail is
written to ``state/spool/building/JOB`` and renamed to ``state/spool/ready``
in one step; a delivery removes each file only after the transport took it.
The inbox message is filed away last.

The package, one concern a module (each module's docstring says what it
owns; the Host is made of the mixins):

    common.py      HostError, file names, clock, times and durations, Answer
    crash.py       checkpoint(): the named crash points of the tests
    config.py      pbem-host.toml: schema, text, reading; passwords; find_host
    journal.py     job records (exactly once), job numbers, in-flight markers
    spool.py       commit a job's mails in one step; flush them out
    players.py     addresses and secrets of the sides; rotate-secret
    letters.py     reports, templates, state mails to every side; welcome
    ingest.py      one message: parse, authenticate, refuse or apply once
    clock.py       the deadline policy (pure): period, minimum, clock, days, grace, zone
    deadlines.py   the running deadlines: remind, lateness notices, default
    schedule.py    pbem deadline (extend, pause, the game's policy), ABSENT, TIMEZONE, EXTEND
    notify.py      "your turn" webhooks: queue, payloads, back-off
    service.py     the Host (folders, log, lock, games, inbox) and serve loop
    mail.py        mail itself: parse, build, Maildir, outbox, SMTP, IMAP
    mailplay.py    scripted players who play a whole game by mail

The modules import one another only downward (mail, common and crash at
the bottom, then clock, config, journal, spool, players, letters, ingest,
deadlines, schedule, notify and service on top) and never the names this package
re-exports, so there is no import cycle.  Every crash point is called as
``crash.checkpoint(NAME)``, looked up at call time: replacing
``pbem.host.crash.checkpoint`` reaches all of them.

The public names below are loaded when first asked for, so that
``pbem.host.mail`` (which the engine and the reports use) stays as light
as it was on its own.
"""
from __future__ import annotations

from importlib import import_module

# every public name of the host, by the module that owns it
_API = {
    "common": ("HostError", "Answer", "utcnow", "iso", "parse_time", "parse_duration", "fmt_duration",
               "CONFIG_NAME", "CREDENTIALS_NAME", "SECRETS_NAME", "CHANGES_NAME", "DEADLINE_NAME", "REFEREE"),
    "crash": ("SimulatedCrash",),
    "config": ("Config", "load_config", "config_text", "write_config", "password", "find_host",
               "_config"),        # checks a parsed pbem-host.toml (the tests call it)
    "journal": ("job_key",),
    "ingest": ("Outcome",),
    "service": ("Host", "init_host", "after_new", "add_game"),
}
_OWNER = {name: module for module, names in _API.items() for name in names}

__all__ = [name for name in _OWNER if not name.startswith("_")]


def __getattr__(name: str):
    module = _OWNER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_OWNER))
