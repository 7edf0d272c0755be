"""The engine: create a game, submit orders, replay and verify the log.

A game is a directory:

    log.jsonl      the hash-chained event log (the only source of truth)
    log.head       the head's seq and hash, anchoring the last line
    log.lock       the writers' lock
    scenario.toml  the scenario the game was created from (sha256 in GameCreated)
    seed           the dice seed, host only (seeded games)
    .state-cache   the state at the log's head and the sealed secrets' records up
                   to it; derived, safe to delete
    .scenario-cache  scenario.toml parsed and checked (keyed by its sha256); derived
    reported.json  the seq each side's last mailed report covered (+ reported.lock)
    staged.json    orders staged for a side's current step, not yet applied (pbem.staging)
                   and, under "held", each side's orders held after THEN for its next steps (pbem.ahead)

The host's folder holds secrets (the seed; sealed payloads, salts and hidden
draws in the log and the cached state), so pbem creates the folder 0700 and
every file in it 0600. A seed or log that group/other can access is refused
where the host's secrets are used: reading the seed (every roll, reveal,
verify) and writing the log (every order, reveal). Reading needs no secret,
so state, log and verify also work on a copy of the log without the seed.

Rules run inside ``submit``: an order becomes an ``OrderGiven`` event and the
events its resolution produced, appended in one atomic write.  Dice for the
order at seq n are roll k=0,1,.. of event n (see dice.py).

Replay streams: each line is decoded, checked against the chain and applied
before the next is read, so memory does not grow with the log.  The caches
are for speed, never for an audit: each names its source (the head hash,
scenario.toml's sha256) and layout and carries the sha256 of its contents; any
mismatch rebuilds it.  That digest is no signature (whoever can write the
folder can forge a consistent cache, as they can the log and log.head), so
``verify`` reads neither: it re-parses the TOML, replays the whole log, and
rewrites a cache that disagrees, with a note.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Callable, Iterable, Iterator

import msgspec

from pbem.core import events as E
from pbem.core import orders as O
from pbem.core import reduce as R
from pbem.log import LogError, StaleHead, GENESIS, raw_envelope, walk_blocks, walk_chain, write_private
from pbem.store.files import FileGame
from pbem.games import Ctx, Ruleset, ruleset_for
from pbem.core.ruleset import dispatch
from pbem import checking
from pbem.checking import Applied, Checked, Submission  # noqa: F401 - what a check or a submission answers
from pbem.core.scenario import SCENARIO_LIMIT, Printed, Scenario, ScenarioError, load, loads
from pbem.core.state import GameState, copy_state, decode_state, encode_state, layout
from pbem.verify import Verification, VerifyReport  # noqa: F401 - VerifyReport is part of the engine's API

# pbem.core.dice (hmac, secrets) is imported where dice are rolled: reading a game needs none.


class EngineError(Exception):
    """A failure with a message meant for the user (no traceback)."""


def now_utc() -> str:
    """Timestamp for log envelopes; PBEM_CLOCK pins it (tests, reproducible examples)."""
    fixed = os.environ.get("PBEM_CLOCK")
    if fixed:
        return fixed
    import datetime as _dt
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Line(msgspec.Struct):
    """A decoded line as E.line_decoder() gives it: the envelope with its typed event."""
    seq: int
    prev: str
    body: E.Event
    at: str


_sealed_dec: msgspec.msgpack.Decoder | None = None


def _first_lines(blocks: Iterable[list[bytes]], k: int) -> Iterator[list[bytes]]:
    """The first ``k`` lines of ``blocks``, in blocks; no block after them is read."""
    for lines in blocks:
        if k <= 0:
            return
        if len(lines) >= k:
            yield lines[:k]
            return
        k -= len(lines)
        yield lines


def _decode_sealed(sealed: dict[str, E.SecretRecorded] | bytes) -> dict[str, E.SecretRecorded]:
    """The sealed records as a new dict: a copy of one, or decoded from the state cache's bytes."""
    if not isinstance(sealed, bytes):
        return dict(sealed)
    global _sealed_dec
    if _sealed_dec is None:
        _sealed_dec = msgspec.msgpack.Decoder(dict[str, E.SecretRecorded])
    return _sealed_dec.decode(sealed) if sealed else {}


# Plain records as msgspec Structs (not dataclasses: cheaper to define at import and to build).

class Entry(msgspec.Struct):
    """One log line decoded: envelope fields plus the typed event."""
    seq: int
    hash: str
    at: str
    event: E.Event

    @property
    def kind(self) -> str:
        return E.kind_of(self.event)


REVEALED = ("the dice seed of this game has been revealed, so every future roll is known in advance; "
            "no order may be applied any more (the host reveals the seed when the game is over)")


def _safe_id(name: str) -> str:
    gid = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    return gid or "game"


class Game(Verification):
    def __init__(self, path):
        # ``path``: a game folder (the file store) or a game store (pbem.store: the database)
        self.store = path if hasattr(path, "log") else FileGame(Path(path))
        self.dir = self.store.cache_dir             # the folder (files) or this machine's cache (database)
        self.log = self.store.log
        if not self.log.exists():
            raise EngineError(f"{self.store.where} is not a pbem game (no log.jsonl); create one with 'pbem new'")
        first = self.log.first_line()
        if first is None:
            raise EngineError(f"{self.log.path} is empty")
        try:
            env = raw_envelope.decode(first)
            created = E.decode_body(env.kind, env.body)
        except (msgspec.DecodeError, ValueError) as e:
            raise EngineError(f"{self.log.path} line 1: not a valid GameCreated event ({e})") from None
        if not isinstance(created, E.GameCreated):
            raise EngineError(f"{self.log.path} line 1: the first event must be GameCreated, not {env.kind}")
        self.created = created
        self.game_id = created.game_id
        sc_path = self.store.path_of("scenario.toml")
        try:
            raw = self.store.read("scenario.toml", limit=SCENARIO_LIMIT)   # a FIFO or a device in its place: refused
        except OSError as e:
            raise EngineError(f"cannot read {sc_path}: {e.strerror or e}") from None
        if raw is None:
            raise EngineError(f"cannot read {sc_path}: No such file or directory")
        self.scenario: Scenario = loads(raw, str(sc_path), cache=self._scenario_cache_path)
        if self.scenario.sha256 != created.scenario_sha256:
            raise EngineError(f"{sc_path} has changed since the game was created (sha256 {self.scenario.sha256[:12]}... "
                              f"!= {created.scenario_sha256[:12]}... in the log); replaying against it would diverge")
        self.rules: Ruleset = ruleset_for(self.scenario.game)
        self.store.know(self.rules, self.scenario.side_ids())   # the database keeps sealed lines apart
        if self.rules.ruleset_version != created.ruleset_version:
            raise EngineError(f"the log was written under {created.game} ruleset version {created.ruleset_version}, "
                              f"this pbem has version {self.rules.ruleset_version}; install the matching pbem to replay it")
        self.variant: list[str] = []        # filled by create: the scenario's differences from the printed game

    # --- creation --------------------------------------------------------

    @classmethod
    def create(cls, path, scenario_ref: str, players: dict[str, str] | None = None,
               seed_hex: str | None = None, dice: list[int] | None = None,
               game_id: str | None = None, at: str | None = None, lint: bool = True, dice_scheme: int = 1,
               keys: dict[str, str] | None = None, require_signatures: bool = False,
               contributions: bool = False) -> "Game":
        """A new game in the folder ``path``, or in the game store ``path`` (the database).  The scenario must pass ``pbem scenario lint`` (``lint=False``
        only for tests that set up a position its set-up rules forbid); ``variant`` of the game
        returned lists the scenario's differences from the printed game.  Seeded dice follow
        ``dice_scheme`` (2: per-turn chains, pbem/core/chain.py; 1: one seed revealed at the
        end); ``contributions`` opens the players' exchange of contributions to the dice
        (scheme 2); ``keys``: side -> SSH public key its orders are signed with;
        ``require_signatures``: every order must be signed."""
        from pbem.core import dice as D
        store = path if hasattr(path, "log") else FileGame(Path(path))
        taken = EngineError(f"{store.where} already holds a game; choose a new directory")
        if store.exists():
            raise taken
        try:
            sc = load(scenario_ref)
        except ScenarioError as e:
            raise EngineError(str(e)) from None
        rules = ruleset_for(sc.game)
        # The checks of `pbem scenario lint`: a game never starts from data its rules would
        # misread.  A difference from the printed game only (S.Printed) makes a variant, noted.
        problems = rules.scenario_problems(sc) if lint else []
        refused = [p for p in problems if not isinstance(p, Printed)]
        if refused:
            raise EngineError(f"{sc.path}: {len(refused)} problem(s) found by `pbem scenario lint`; "
                              "the game is not created:\n" + "\n".join(f"{sc.path}: {p}" for p in refused))
        players = dict(players or {})
        for side in players:
            if side not in sc.side_ids():
                raise EngineError(f"--player {side}=...: {sc.id} has no side {side!r}; sides: {', '.join(sc.side_ids())}")
        from email.utils import parseaddr

        from pbem.report.mailparts import safe_address
        for side, addr in players.items():
            # an address goes into mail headers: a line break in it would add a header of its own
            if addr and (any(ord(c) < 32 or ord(c) == 127 for c in addr) or not safe_address(parseaddr(addr)[1])):
                raise EngineError(f"--player {side}={addr!r}: not a plain e-mail address")
        for side in sc.side_ids():
            players.setdefault(side, "")
        from pbem.trust.signed import creation_fields
        trust = creation_fields(sc, dict(keys or {}), require_signatures, EngineError)
        if seed_hex is not None and dice is not None:
            raise EngineError("give either --seed or --dice, not both")
        if dice_scheme not in (1, 2):
            raise EngineError(f"dice scheme {dice_scheme} does not exist (1 or 2)")
        if contributions and (dice is not None or dice_scheme != 2):
            raise EngineError("contributions to the dice need seeded dice of scheme 2")
        seed = None
        if dice is not None:
            for v in dice:
                if not 1 <= v <= sc.die:
                    raise EngineError(f"--dice: {v} is not a face of a d{sc.die}")
            mode, commit = "scripted", ""
        else:
            if seed_hex is not None:
                try:
                    seed = bytes.fromhex(seed_hex)
                except ValueError:
                    raise EngineError("--seed must be hexadecimal (64 hex digits)") from None
                if len(seed) != D.SEED_BYTES:
                    raise EngineError(f"--seed must be {D.SEED_BYTES} bytes ({2 * D.SEED_BYTES} hex digits)")
            else:
                seed = D.new_seed()
            mode, commit = "seeded", D.commitment(seed)
        store.prepare()                             # host only (0700): it will hold the seed and the secrets
        gid = _safe_id(game_id or store.default_id())
        if seed is not None and dice_scheme == 2:
            from pbem.core import chain
            trust.update(chain.genesis(seed, gid, sc.side_ids(), sc.turns + chain.SPARE_TURNS))
            if contributions:
                trust["entropy"] = "exchange"
        created = E.GameCreated(game_id=gid, scenario_id=sc.id, scenario_sha256=sc.sha256, game=sc.game,
                                engine_version=E.ENGINE_VERSION, ruleset_version=rules.ruleset_version,
                                players=players, dice_mode=mode, seed_commitment=commit,
                                scripted_dice=list(dice or []), **trust)
        evs = [created] + rules.initial_events(sc)
        store.know(rules, sc.side_ids())
        log = store.log
        # Two `pbem new` into one folder at once: the lock serialises them, the
        # second finds the log and leaves; expect_head=GENESIS backs this up.
        with log.lock():
            if log.exists():
                raise taken
            store.write("scenario.toml", Path(sc.path).read_bytes())
            if seed is not None:
                store.write_seed(seed)
            log.append_many([(E.kind_of(e), E.body_of(e)) for e in evs], at=at or now_utc(),
                            expect_head=GENESIS, locked=True)
        game = cls(store)
        game.variant = [p for p in problems if isinstance(p, Printed)]
        return game

    # --- reading ---------------------------------------------------------

    def entries(self, verify: bool = True) -> list[Entry]:
        """Every event in the log, decoded; with verify, the chain is checked too."""
        return list(self.iter_entries(verify))

    def decode_line(self, n: int, line: bytes) -> _Line:
        """Line ``n`` (from 0) decoded: ``seq``, ``prev``, ``body`` (the event), ``at``; else the
        slow path, which decodes a kind the one-pass decoder lacks or says what is wrong."""
        try:
            return E.line_decoder().decode(line)
        except msgspec.DecodeError:
            pass
        try:
            env = raw_envelope.decode(line)
            ev = E.decode_body(env.kind, env.body)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as e:
            raise LogError(f"not a valid event ({e})", n + 1, self.log.path) from None
        return _Line(env.seq, env.prev, ev, env.at)

    def _second_created(self, n: int) -> LogError:
        return LogError("a second GameCreated: two games were created in this folder at once "
                        "(or two logs were joined); the log is not one game", n + 1, self.log.path)

    def _check_link(self, n: int, x: _Line, prev: str) -> None:
        if x.seq != n:
            raise LogError(f"sequence number {x.seq}, expected {n}", n + 1, self.log.path)
        if x.prev != prev:
            raise LogError(f"hash chain broken (prev does not match line {n})", n + 1, self.log.path)

    def _decoder(self) -> Callable[[int, bytes], _Line]:
        """Line n decoded for ``walk_chain``: the one-pass decoder, else ``decode_line``;
        a GameCreated past seq 0 is refused before its link is checked."""
        fast = E.line_decoder().decode
        created = E.GameCreated

        def decode(n: int, line: bytes) -> _Line:
            try:
                x = fast(line)
            except msgspec.DecodeError:
                x = self.decode_line(n, line)
            if n and x.body.__class__ is created:
                raise self._second_created(n)
            return x
        return decode

    def iter_entries(self, verify: bool = True) -> Iterator[Entry]:
        """The log's events one at a time, as ``entries`` gives them, holding one line at a time."""
        for _, _, x, h in walk_chain(self.log.iter_lines(), self._decoder(), self._check_link if verify else None):
            yield Entry(x.seq, h, x.at, x.body)

    def head(self) -> tuple[int, str]:
        return self.log.head()

    def new_state(self) -> GameState:
        st = self.rules.new_state(self.scenario, self.game_id)
        c = self.created
        st.players = dict(c.players)
        st.dice_mode = c.dice_mode
        st.seed_commitment = c.seed_commitment
        if c.keys:
            st.keys = dict(c.keys)
        if c.dice_scheme == 2:
            from pbem.core.chain import new_chain
            st.chain = new_chain(c)
        return st

    def replay(self, entries: Iterable[Entry], upto: int | None = None) -> GameState:
        """Apply events (reducer only) up to and including seq ``upto``.

        ``entries`` may be any iterable (``iter_entries()`` streams); to rebuild the
        state from the log itself, ``state()`` streams faster."""
        st = self.new_state()
        apply, sc = self.rules.apply, self.scenario
        for en in entries:
            if upto is not None and en.seq > upto:
                break
            if en.seq > 0:
                try:
                    apply(st, en.event, sc)
                except Exception as e:
                    raise self._unappliable(en.seq, en.event, e) from e
            st.seq = en.seq
        return st

    def _unappliable(self, seq: int, ev: E.Event, e: Exception) -> LogError:
        # A log the rules never wrote (edited, joined, re-chained) must
        # give a located error, not a traceback from deep in a reducer.
        return LogError(f"{E.kind_of(ev)} cannot be applied to the state before it "
                        f"({type(e).__name__}: {e})", seq + 1, self.log.path)

    def _replay_log(self, upto: int | None = None) -> tuple[GameState, str, dict[str, E.SecretRecorded]]:
        """The log streamed into a state: each line decoded, checked against the
        chain (as ``entries()`` checks it) and applied in order, a block of lines
        at a time (``log.walk_blocks``: a block is decoded and its links checked
        before its lines are applied; a block with anything wrong is walked line
        by line, each line checked, then applied, as ``walk_chain`` does).
        Returns the state after seq ``upto`` (default: the last line), the hash of
        that line and the sealed secrets' records up to it (by "side:name")."""
        st = self.new_state()
        sc = self.scenario
        rules = self.rules
        sealed: dict[str, E.SecretRecorded] = {}
        secret, created = E.SecretRecorded, E.GameCreated   # the kinds replay looks at
        blocks = self.log.iter_blocks()
        if upto is not None:
            blocks = _first_lines(blocks, upto + 1)         # no line after ``upto`` is read
        prev = GENESIS
        n = -1
        # Ruleset.apply, inlined (the core's step of each type, reduce.STEPS), unless the
        # game has an apply of its own.
        plain = type(rules).apply is Ruleset.apply
        apply = rules.apply
        before = rules.reduce_before if rules._reads_before else None
        steps, stay, reduce = R.STEPS, rules.eliminated_stay, rules.reduce
        ev = None
        for xs, prev in walk_blocks(blocks, E.line_decoder().decode, self._decoder(), self._check_link):
            if n < 0:
                xs = xs[1:]                                 # GameCreated: the state's start
                n = 0
            try:
                for x in xs:
                    ev = x.body
                    cls = ev.__class__
                    if cls is secret:
                        sealed[f"{ev.side}:{ev.name}"] = ev
                    elif cls is created:
                        break
                    if plain:
                        if before is not None:
                            before(st, ev, sc)
                        step = steps[cls]
                        if step is not None:
                            step(st, ev, stay)
                        reduce(st, ev, sc)
                    else:
                        apply(st, ev, sc)
                    n += 1
                else:
                    continue
            except Exception as e:
                raise self._unappliable(n + 1, ev, e) from e
            raise self._second_created(n + 1)
        st.seq = n
        return st, prev, sealed

    @property
    def _cache_path(self) -> Path:
        return self.dir / ".state-cache"

    @property
    def _scenario_cache_path(self) -> Path:
        return self.dir / ".scenario-cache"

    def _read_cache(self, head: str, stamp: str | None = None) -> tuple[GameState, bytes] | None:
        """The cached state at ``head`` and the sealed records' bytes beside it; None
        (rebuild) unless the cache names this head and layout and its digest holds
        (``stamp``: the log's, when the caller read it with the head)."""
        try:
            raw = self._cache_path.read_bytes()
        except OSError:
            return None
        key, _, body = raw.partition(b"\n")
        parts = key.decode("ascii", "replace").split(" ")
        if len(parts) != 6 or " ".join(parts[:3]) != self._cache_key(head):
            return None
        if parts[5] != (self.log.stamp() if stamp is None else stamp):   # another file (a copy, an edit): replayed
            return None
        digest, size = parts[3], parts[4]
        if hashlib.sha256(body).hexdigest() != digest or not size.isdigit() or int(size) > len(body):
            return None                             # altered, torn or not ours: rebuilt from the log
        n = int(size)
        try:
            return decode_state(body[:n], self.rules.state_type), body[n:]
        except msgspec.DecodeError:
            return None

    def _cache_key(self, head: str) -> str:
        """The head and the state's layout: a cache of another layout is never read."""
        return f"{head} {layout(self.rules.state_type)} {self.rules.ruleset_version}"

    def _write_cache(self, head: str, st: GameState, sealed: dict[str, E.SecretRecorded] | bytes) -> None:
        """The state at ``head`` and the sealed records up to it, the sha256 of both, and the stamp
        of the log file whose chain up to ``head`` was checked (replayed, or appended to here)."""
        sb = encode_state(st)
        body = sb + (sealed if isinstance(sealed, bytes) else msgspec.msgpack.encode(sealed) if sealed else b"")
        key = f"{self._cache_key(head)} {hashlib.sha256(body).hexdigest()} {len(sb)} {self.log.stamp()}"
        try:                                        # 0600: the state holds hidden information
            write_private(self._cache_path, key.encode("ascii") + b"\n" + body, sync=False)
        except OSError:
            pass                                    # the cache is an optimisation only

    def _at_head(self) -> tuple[int, str, GameState, dict[str, E.SecretRecorded] | bytes]:
        """(seq, head, state at the head, sealed records up to it) from the cache,
        else from a streamed replay (which refills the cache)."""
        both = getattr(self.log, "head_anchored", None)    # the database: the last line and its anchor at once
        if both is not None:
            seq, head, anchor = both()
            known, stamp = (anchor,), self.log.stamp(anchor)
        else:
            seq, head = self.log.head()
            known = stamp = None
        cached = self._read_cache(head, stamp)
        if cached is not None:
            self.log.check_anchor(seq, head, known)
            return seq, head, cached[0], cached[1]
        st, h, sealed = self._replay_log()
        self.log.check_anchor(st.seq, h)
        self._write_cache(h, st, sealed)
        return st.seq, h, st, sealed

    def state(self, at: int | None = None) -> GameState:
        """The state at the head (cached by head hash) or after event ``at``."""
        return self.state_and_hash(at)[0]

    def state_and_hash(self, at: int | None = None) -> tuple[GameState, str]:
        """``state(at)`` and the hash of line ``at`` (the head's by default), in one pass."""
        if at is None:                              # the head, read once (by ``_at_head``)
            _, h, st, _ = self._at_head()
            return st, h
        seq, head = self.log.head()
        if at > seq:
            raise EngineError(f"--at {at}: the log ends at seq {seq}")
        if at == seq:
            _, h, st, _ = self._at_head()
            return st, h
        if at < 0:
            raise EngineError(f"--at {at}: sequence numbers start at 0")
        st, h, _ = self._replay_log(upto=at)
        return st, h

    def seed(self) -> bytes:
        """The dice seed: from the log once revealed, else from the host's seed file;
        either way it must be the one GameCreated committed to (DiceError if not)."""
        return self._seed_of(self._revealed_seed())

    def _seed_of(self, revealed: bytes | None) -> bytes:
        from pbem.core import dice as D
        if revealed is None:
            return self.store.read_seed(self.created.seed_commitment)
        if not D.check_reveal(revealed, self.created.seed_commitment):
            raise D.DiceError("the revealed seed does not match the commitment in GameCreated")
        return revealed

    def _revealed_seed(self) -> bytes | None:
        cached = self._read_cache(self.log.head()[1])
        if cached is not None and cached[0].seed:
            return bytes.fromhex(cached[0].seed)
        return None

    def _dice(self, st: GameState, event_seq: int, seed_of=None):
        from pbem.core import dice as D
        if self.created.dice_mode == "scripted":
            return D.ScriptedWithSalt(self.created.scripted_dice, st.scripted_pos, self.game_id, event_seq)
        if self.created.dice_scheme == 2:
            from pbem.core.chain import ChainDice
            return ChainDice(self.chain_keys(seed_of or self.seed), self.game_id, event_seq)
        return D.LazySeeded(seed_of or self.seed, self.game_id, event_seq)

    def chain_keys(self, master_of=None, known=None):
        """Scheme 2's chain seeds: from the host's seed (``master_of``), else ``known`` ones."""
        from pbem.core.chain import Keys
        return Keys(self.game_id, self.created.dice_turns, master_of, known)

    def secret_records(self, entries: list[Entry] | None = None) -> dict[str, E.SecretRecorded]:
        """Sealed secrets with their payloads, by "side:name" (the host's copy of the log).

        Without ``entries``: those up to the head, kept beside the state cache."""
        if entries is None:
            sealed = self._at_head()[3]
            return _decode_sealed(sealed)
        out = {}
        for en in entries:
            if isinstance(en.event, E.SecretRecorded):
                out[f"{en.event.side}:{en.event.name}"] = en.event
        return out

    # --- report bookkeeping (outside the log: it records no game fact) -----

    @property
    def _reports_path(self) -> Path:
        return self.dir / "reported.json"

    def last_report(self, side: str) -> int:
        """Seq of the last event ``side``'s previous report covered (0 if none)."""
        return self.last_reports().get(side, 0)

    def last_reports(self) -> dict[str, int]:
        """``last_report`` of every side that has one, read at once (a side whose record
        is not a number has none)."""
        try:
            data = msgspec.json.decode(self.store.read("reported.json") or b"{}")
        except (OSError, msgspec.DecodeError):
            return {}
        out = {}
        for side, seq in (data.items() if isinstance(data, dict) else ()):
            try:
                out[side] = int(seq)
            except (ValueError, TypeError):
                continue
        return out

    def mark_reported(self, side: str | dict[str, int], seq: int = 0, sync: bool = True) -> None:
        """Record ``seq`` as ``side``'s last reported event (or each of ``{side: seq}``) under
        reported.lock, keeping other sides'.  Unsynced, a crash can make a report tell more."""
        with self.store.doc_lock("reported.json"):
            try:
                data = msgspec.json.decode(self.store.read("reported.json") or b"{}")
            except (OSError, msgspec.DecodeError):
                data = {}
            if not isinstance(data, dict):
                data = {}
            data.update(side if isinstance(side, dict) else {side: seq})
            self.store.write("reported.json", msgspec.json.encode(data), sync=sync)

    # --- writing ---------------------------------------------------------

    def check(self, side: str, text: str) -> Submission:
        """What ``side`` may learn of ``text`` without committing it: each line tried in turn, as
        ``submit`` would, on the game as ``side`` may know it (core/known.py), writing nothing
        (pbem/checking.py).  From the first line that would roll a die (``needs_dice``) on, the
        lines are tried with every outcome of the rolls (``past_dice``).  A check stops where the
        real order could make the game reveal something (``needs_reveal``, ``why``: another side's
        sealed note read, or ``Ruleset.check_stop``); the lines after it are ``unchecked``.  Nothing
        of it depends on what ``side`` may not know: the same game with one secret changed answers
        the same."""
        from pbem.core import known as K
        self._side_of(side)
        sub, lines = self._parse(text)
        if lines is None:
            return sub
        with self.log.lock():                       # a state and a head that belong together
            seq, head, st, sealed = self._at_head()
        sub.seq, sub.head = seq, head
        if st.seed and lines:
            return self._revealed(sub, lines)
        rules, sc = self.rules, self.scenario
        return checking.check(rules, sc, side, K.known_state(rules, st, sc, side),
                              K.known_records(_decode_sealed(sealed), st, side), lines, sub)

    def _side_of(self, side: str) -> None:
        if side not in self.scenario.side_ids():
            raise EngineError(f"unknown side {side!r}; sides of {self.scenario.id}: {', '.join(self.scenario.side_ids())}")

    def _parse(self, text: str) -> tuple[Submission, list | None]:
        """The orders of ``text``, or (a Submission refusing them all, None)."""
        sub = Submission()
        try:
            return sub, O.parse(text, self.rules.verbs)
        except O.OrderError as e:
            sub.refused = e
            sub.not_applied = [ln.strip() for ln in O.split_lines(text) if ln.split("#", 1)[0].strip()]
            sub.seq, sub.head = self.log.head()
            return sub, None

    @staticmethod
    def _revealed(sub: Submission, lines: list) -> Submission:
        sub.refused = O.OrderError(REVEALED, line=lines[0].number, text=lines[0].text)
        sub.not_applied = [x.text for x in lines]
        return sub

    def submit(self, side: str, text: str, expect_head: str | None = None, at: str | None = None,
               by: str = "", signed: str = "", signature: str = "") -> Submission:
        """Apply a batch of orders from ``side``, order by order, up to the first refusal.

        ``by="deadline"`` marks orders the host applied as the documented default.  A
        ``signature`` (SSH, armored) over ``signed`` (the exact text, whose order lines are
        ``text``'s) must be by the side's registered key; the log keeps both with the
        batch's first order (pbem/trust/signed.py)."""
        self._side_of(side)
        sub, lines = self._parse(text)
        if lines is None:
            return sub
        from pbem.core import dice as D
        with self.log.lock():
            seq, head, work, known = self._at_head()        # the head, read once under the lock
            if expect_head is not None and expect_head != head:
                raise StaleHead(f"the orders were written against head {expect_head[:12]}..., "
                                f"but the game is now at {head[:12]}... (seq {seq}); read the new report and resend")
            if work.seed and lines:
                sub.seq, sub.head = seq, head
                return self._revealed(sub, lines)
            if signature and lines:
                from pbem.trust.signed import refusal
                why = refusal(self, work, side, signed, signature, lines)
                if why:
                    sub.refused = O.OrderError(why, line=lines[0].number, text=lines[0].text)
                    sub.not_applied = [x.text for x in lines]
                    sub.seq, sub.head = seq, head
                    return sub
            # The host's sealed payloads, kept beside the state cache (O(1) in the log's length);
            # decoded only if an order needs them, then kept up to date with this batch's own.
            sealed: dict[str, E.SecretRecorded] | None = None
            seed: list[bytes] = []
            revealed = bytes.fromhex(work.seed) if work.seed else None

            def seed_of() -> bytes:                 # read (and checked) once per batch
                if not seed:
                    seed.append(self._seed_of(revealed))
                return seed[0]
            pending: list[E.Event] = []
            next_seq = seq + 1
            for i, ln in enumerate(lines):
                given: dict[str, E.SecretRecorded] = {}
                if isinstance(ln.order, O.Unveil) or self.rules.needs_secrets:
                    # Games whose rules act on sealed secrets (hidden units, mines) get
                    # the host's payloads for every order, as verify does.
                    if sealed is None:
                        sealed = _decode_sealed(known)
                    given = dict(sealed)
                mark = ({"signed": signed, "signature": signature} if i == 0 else {"signed_in": seq + 1}) \
                    if signature else {}
                try:
                    trial, events = self._adjudicate(work, E.OrderGiven(side=side, text=ln.text, by=by, **mark),
                                                     ln.order, self._dice(work, next_seq, seed_of), given)
                    events += self._kernel_after(work.turn, trial, seed_of)
                except O.OrderError as e:
                    e.line, e.text = ln.number, ln.text
                    sub.refused = e
                except D.DiceError as e:
                    sub.refused = O.OrderError(str(e), line=ln.number, text=ln.text)
                if sub.refused is not None:
                    sub.not_applied = [x.text for x in lines[i:]]
                    break
                next_seq += len(events)
                trial.seq = next_seq - 1
                work = trial
                pending.extend(events)
                new = [ev for ev in events if isinstance(ev, E.SecretRecorded)]
                if new:
                    if sealed is None:
                        sealed = _decode_sealed(known)
                    sealed.update((f"{ev.side}:{ev.name}", ev) for ev in new)
                sub.applied.append(Applied(ln.number, ln.text, events[1:]))
            if pending:
                recs = self.log.append_many([(E.kind_of(e), E.body_of(e)) for e in pending],
                                            at=at or now_utc(), expect_head=head, locked=True)
                self._write_cache(recs[-1].hash, work, sealed if sealed is not None else known)
                sub.seq, sub.head = recs[-1].seq, recs[-1].hash
            else:
                sub.seq, sub.head = seq, head
        return sub

    def _kernel_after(self, before_turn: int, st: GameState, seed_of) -> list[E.Event]:
        """What the kernel appends after an order, applied to ``st``: scheme 2's reveal
        of every turn the order ended (pbem/core/chain.py)."""
        if st.chain is None:
            return []
        from pbem.core import chain
        plan = chain.reveal_plan(before_turn, st)
        if not plan:
            return []
        evs = chain.reveals(plan, self.chain_keys(seed_of))
        for ev in evs:
            self.rules.apply(st, ev, self.scenario)
        return evs

    def _adjudicate(self, st: GameState, given: E.OrderGiven, order: O.Order, dice,
                    sealed: dict[str, E.SecretRecorded], copy: bool = True) -> tuple[GameState, list[E.Event]]:
        """One order on a copy of ``st`` (on ``st`` itself with ``copy=False``: verify, which
        stops at a refusal), for submit and verify alike: the state after it and its events
        (the OrderGiven first).  Raises OrderError/DiceError."""
        trial = copy_state(st) if copy else st
        ctx = Ctx(self.rules, trial, self.scenario, given.side, dice)
        if hasattr(dice, "bind"):                   # scheme 2: a roll reads the turn it is made in
            dice.bind(trial)
        ctx.secret_records = sealed
        ctx.emit(given)
        dispatch(self.rules, ctx, order)
        return trial, ctx.events

    def register_key(self, side: str, key: str, at: str | None = None, force: bool = False) -> str:
        """Append KeyRegistered: ``side``'s orders are signed with ``key`` from now on.
        Before the first order only, unless ``force`` (a lost key: audits flag the change)."""
        from pbem.trust.sshsig import SigError, parse_public_key
        self._side_of(side)
        try:
            pub = parse_public_key(key)
        except SigError as e:
            raise EngineError(f"the key for {side}: {e}") from None
        with self.log.lock():
            if not force and any(isinstance(en.event, E.OrderGiven) for en in self.iter_entries(verify=False)):
                raise EngineError("the game has begun: a key is registered before the first order "
                                  "(the host may replace a lost key with --force; audits show the change)")
            _, _, st, sealed = self._at_head()
            ev = E.KeyRegistered(side=side, key=pub.line)
            rec = self._append_standalone(ev, at, st, sealed)
        return pub.fingerprint

    def reveal(self, at: str | None = None) -> str:
        """Append SeedRevealed: from now on anyone can re-derive every roll."""
        if self.created.dice_mode != "seeded":
            raise EngineError("this game uses scripted dice; there is no seed to reveal")
        from pbem.core import dice as D
        with self.log.lock():
            _, _, st, sealed = self._at_head()
            if st.seed:
                raise EngineError("the seed is already revealed")
            seed = self.store.read_seed(self.created.seed_commitment)
            ev = E.SeedRevealed(seed=seed.hex())
            rec = self._append_standalone(ev, at, st, sealed)
        return seed.hex()

    def host_event(self, ev: E.DeadlinesChanged, at: str | None = None) -> str:
        """Append DeadlinesChanged (public, caused by no order); the new head."""
        with self.log.lock():
            _, _, st, sealed = self._at_head()
            return self._append_standalone(ev, at, st, sealed).hash

    def _append_standalone(self, ev: E.Event, at: str | None, st: GameState, sealed) -> Record:
        """Append ``ev`` (one of E.STANDALONE), the lock held, and the state cache after it."""
        rec = self.log.append(E.kind_of(ev), E.body_of(ev), at=at or now_utc(), locked=True)
        self.rules.apply(st, ev, self.scenario)
        st.seq = rec.seq
        self._write_cache(rec.hash, st, sealed)
        return rec

    # --- auditing --------------------------------------------------------
