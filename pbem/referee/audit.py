"""`pbem audit`: check every game under some folders (a tournament, a host's
games, several copies) and say, per game, what an auditor must know.

Each game is checked on its own, in a worker process (``audit_game``): the
hash chain and its ``log.head`` anchor (read as stored, see
``pbem.referee.read_chain``), the scenario file against the sha256 the log
recorded and against the shipped scenario of the same id, the ruleset
version, the dice (mode, seed reveal against the genesis commitment), a full
re-run of the rules (``Game.verify``), the sealed secrets, the deadlines a
hosted game keeps in ``deadline.json``, and the result.  Then the whole set
is checked for game ids that occur twice with different logs, and the
finished, clean games make the standings.

Every finding has a severity: ``error`` (something is wrong: the game's
record cannot be trusted as it stands), ``warning`` (the record holds, but an
auditor should look: a game on another scenario file than the shipped one, a
ruleset this pbem cannot re-run, scripted dice, a late order, a stale copy)
or ``note`` (worth knowing: a seed not revealed yet, secrets never opened).
Nothing here writes to a game folder (only ``Game.verify`` itself, which
rebuilds a derived cache it finds altered, and says so: a warning here).
"""
from __future__ import annotations

import os
import re
import tempfile
from collections import defaultdict
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pbem.log import file_kind, read_regular
from pbem.referee import LOG_NAME, MAX_FILE_BYTES, MAX_LOG_BYTES, Chain, parting, read_chain, sha256_file

ERROR, WARNING, NOTE = "error", "warning", "note"
SEVERITIES = (ERROR, WARNING, NOTE)
# Folders of a mail host that hold no game (mail, journal, spool): not searched.
_HOST_PRIVATE = {"state", "mail", "inbox", "outbox"}
_MAX_TEXT = 240                  # an event quoted in a finding is cut to this many characters
# What the audit and the rules' re-run may open in a game folder, with the most of each they
# read.  Any of them that is not a regular file (a FIFO hangs a reader, /dev/zero never
# ends), or is larger, is a finding and is not read.
_FILES = {LOG_NAME: MAX_LOG_BYTES, "log.head": 4096, "seed": 4096, "scenario.toml": MAX_FILE_BYTES,
          "deadline.json": MAX_FILE_BYTES, ".state-cache": MAX_LOG_BYTES, ".scenario-cache": MAX_FILE_BYTES}


@dataclass
class Finding:
    severity: str                # error | warning | note
    code: str                    # chain, anchor, rules, scenario, ruleset, seed, secret, dice, deadline,
    text: str                    # result, duplicate, log, engine, signature
    seq: int | None = None


@dataclass
class GameAudit:
    """One game folder's audit: what it is, where it stands, and every finding."""
    path: str
    game_id: str = ""
    scenario: str = ""
    title: str = ""
    players: dict[str, str] = field(default_factory=dict)
    turn: int | None = None
    turns: int | None = None
    result: dict | None = None   # {winner, reason, rule} from the log's GameEnded
    head: str = ""
    seq: int = -1
    dice: str = ""               # seeded | scripted (from GameCreated)
    dice_checked: str = ""       # "revealed seed" | "host's seed file" | "recorded rolls only" | "scripted" | ""
    rules_checked: bool = False  # the whole log was re-run through the rules and agreed
    waiting: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def add(self, severity: str, code: str, text: str, seq: int | None = None) -> None:
        self.findings.append(Finding(severity, code, " ".join(text.split()), seq))

    def count(self, severity: str) -> int:
        return sum(f.severity == severity for f in self.findings)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def clean(self) -> bool:
        return not any(f.severity in (ERROR, WARNING) for f in self.findings)

    def as_json(self) -> dict:
        d = {"type": "game", **asdict(self)}
        d["finished"] = self.finished
        d["clean"] = self.clean
        d["errors"], d["warnings"], d["notes"] = (self.count(s) for s in SEVERITIES)
        return d


# --- finding the games ---------------------------------------------------------------

def find_games(paths: list[Path]) -> list[Path]:
    """Every game folder (one holding log.jsonl) at or under ``paths``, each once.
    A game folder's own subfolders (reports/) are not searched, nor a mail host's
    private folders, nor hidden ones."""
    seen: dict[str, Path] = {}
    for top in paths:
        top = Path(top)
        if top.name == LOG_NAME and top.is_file():     # a log named directly: its folder
            top = top.parent
        if (top / LOG_NAME).is_file():
            seen.setdefault(os.path.realpath(top), top)
            continue
        for root, dirs, files in os.walk(top):
            if LOG_NAME in files:
                seen.setdefault(os.path.realpath(root), Path(root))
                dirs[:] = []
                continue
            host = "pbem-host.toml" in files
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (host and d in _HOST_PRIVATE))
    return sorted(seen.values(), key=lambda p: str(p))


# --- one game ------------------------------------------------------------------------

def audit_game(path: str | Path) -> GameAudit:
    """Audit one game folder.  Never raises: whatever goes wrong is a finding."""
    row = GameAudit(str(path))
    try:
        _audit(Path(path), row)
    except Exception as e:                  # noqa: BLE001 - one broken folder must not stop the audit
        row.add(ERROR, "log", f"the audit of this folder failed: {type(e).__name__}: {e}")
    row.findings.sort(key=lambda f: SEVERITIES.index(f.severity))
    return row


def _unreadable(path: Path) -> dict[str, str]:
    """The files of ``_FILES`` that are there but must not be read, and why (looked at with
    stat, which opens nothing; each is then read with ``read_regular``, which checks again)."""
    import stat
    out = {}
    for name, limit in _FILES.items():
        try:
            st = os.stat(path / name)
        except FileNotFoundError:
            continue
        except OSError as e:
            out[name] = f"cannot be examined ({e.strerror})"
            continue
        if not stat.S_ISREG(st.st_mode):
            out[name] = f"is {file_kind(st.st_mode)}, not a regular file"
        elif st.st_size > limit:
            out[name] = f"holds {st.st_size:,} bytes, more than the {limit:,} the audit reads of it"
    return out


def _audit(path: Path, row: GameAudit) -> None:
    from pbem.core import events as E
    bad = _unreadable(path)
    for name, why in bad.items():
        if name not in (LOG_NAME, "log.head", "scenario.toml", "deadline.json"):   # those say it themselves
            row.add(ERROR, "file", f"{name} {why}: it was not read (a game folder holds regular files); the "
                                   "rules were re-run on a private copy without it")
    ch = read_chain(path)
    if ch.missing:
        row.add(ERROR, "log", ch.missing)
        return
    row.head, row.seq = ch.head, ch.last_seq
    created = ch.lines[0].event
    if not isinstance(created, E.GameCreated):
        row.add(ERROR, "log", f"the first line is not a GameCreated event ({ch.lines[0].error or ch.lines[0].kind}): "
                              "not a pbem game log")
        return
    row.game_id, row.scenario, row.players = created.game_id, created.scenario_id, dict(created.players)
    row.dice = created.dice_mode
    events = [ln.event for ln in ch.lines]
    _facts(row, events)
    if ch.problem:
        row.add(ERROR, "chain", f"broken hash chain: {ch.problem}", ch.broken_at)
    if ch.anchor_problem:
        row.add(ERROR, "anchor", f"head anchor: {ch.anchor_problem}")
    scenario_raw = _check_scenario(path, created, row)
    rules_ok = _check_ruleset(created, row)
    _check_dice(created, row)
    _check_reveal(ch, created, row)
    _check_secrets(ch, row)
    if ch.intact:
        _check_signatures(ch, created, row)
    _check_deadlines(path, ch, row)
    if not ch.intact:
        row.add(NOTE, "rules", "the rules were not re-run: the log is not one unbroken chain")
    elif rules_ok and scenario_raw is not None:
        _rerun(path, ch, scenario_raw, row, private=bool(bad))
    elif rules_ok:
        row.add(NOTE, "rules", "the rules were not re-run: no scenario file matching the log's record")


def _facts(row: GameAudit, events: list) -> None:
    from pbem.core import events as E
    for ev in events:
        if isinstance(ev, E.PhaseStarted):
            row.turn = ev.turn
        elif isinstance(ev, E.GameEnded):
            row.result = {"winner": ev.winner, "reason": ev.reason, "rule": ev.rule}


def _shipped_scenario(scenario_id: str) -> bytes | None:
    from pbem.core.scenario import shipped
    for p in shipped():
        if p.stem == scenario_id:
            try:
                return p.read_bytes()
            except OSError:
                return None
    return None


def _sha(raw: bytes | None) -> str | None:
    import hashlib
    return hashlib.sha256(raw).hexdigest() if raw is not None else None


def _check_scenario(path: Path, created, row: GameAudit) -> bytes | None:
    """The scenario file against the log's record and the shipped file of the same id.
    Returns the scenario bytes the rules can be re-run with (None: none fits the record)."""
    unread = ""
    try:
        own = read_regular(path / "scenario.toml", MAX_FILE_BYTES)
    except FileNotFoundError:
        own = None
    except OSError as e:
        own, unread = None, f"it cannot be read ({e.strerror or e})"
    shipped = _shipped_scenario(created.scenario_id)
    own_sha, shipped_sha, recorded = _sha(own), _sha(shipped), created.scenario_sha256
    use = None
    if own is not None and own_sha == recorded:
        use = own
        if shipped is None:
            row.add(NOTE, "scenario", f"scenario {created.scenario_id!r} is not shipped with this pbem; the game was "
                                      f"checked against its own scenario.toml (sha256 {own_sha})")
        elif shipped_sha != own_sha:
            row.add(WARNING, "scenario", f"scenario.toml differs from the shipped scenario {created.scenario_id!r}: "
                                         f"game sha256 {own_sha}, shipped sha256 {shipped_sha}; the game was played "
                                         "and is checked on its own file (a custom or older version)")
    else:
        now = f"its sha256 is now {own_sha}" if own is not None else (unread or "it is missing")
        text = (f"scenario.toml is not the file the game was created from: {now}, GameCreated recorded {recorded}; "
                f"shipped {created.scenario_id!r} sha256 {shipped_sha or '(not shipped)'}")
        if shipped is not None and shipped_sha == recorded:
            use = shipped
            text += "; the rules were re-run with the shipped file, which is the recorded one"
        row.add(ERROR, "scenario", text)
    if use is not None:
        try:
            from pbem.core.scenario import loads
            sc = loads(use, str(path / "scenario.toml"))
            row.title, row.turns = sc.title, sc.turns
        except Exception as e:              # noqa: BLE001 - ScenarioError and anything a bad file raises
            row.add(ERROR, "scenario", f"the scenario file cannot be loaded: {e}")
            return None
    return use


def _check_ruleset(created, row: GameAudit) -> bool:
    from pbem.core import events as E
    from pbem.games import UnknownGame, ruleset_for
    if created.engine_version != E.ENGINE_VERSION:
        row.add(NOTE, "engine", f"written by pbem engine {created.engine_version}, this is {E.ENGINE_VERSION}")
    try:
        rules = ruleset_for(created.game)
    except UnknownGame as e:
        row.add(ERROR, "ruleset", f"{e}: the rules cannot be re-run")
        return False
    if rules.ruleset_version != created.ruleset_version:
        row.add(WARNING, "ruleset", f"the log was written under {created.game} ruleset version "
                                    f"{created.ruleset_version}, this pbem has {rules.ruleset_version}: the rules "
                                    "were not re-run (install the matching pbem to check them)")
        return False
    return True


def _check_dice(created, row: GameAudit) -> None:
    mode = created.dice_mode
    if mode == "scripted":
        row.dice_checked = "scripted"
        row.add(WARNING, "dice", f"scripted dice: every roll was fixed in advance ({len(created.scripted_dice)} "
                                 "values in GameCreated); a game for tests or teaching, not a seeded game")
    elif mode == "seeded":
        if created.scripted_dice:
            row.add(ERROR, "dice", f"the game claims to be seeded but GameCreated carries {len(created.scripted_dice)} "
                                   "scripted dice values")
        if not re.fullmatch(r"[0-9a-f]{64}", created.seed_commitment):
            row.add(ERROR, "dice", f"the game claims to be seeded but its seed commitment "
                                   f"{created.seed_commitment!r} is not a sha256; no roll can be checked")
    else:
        row.add(ERROR, "dice", f"unknown dice mode {mode!r} in GameCreated")


def _check_reveal(ch: Chain, created, row: GameAudit) -> None:
    from pbem.core import dice as D
    from pbem.core import events as E
    if created.dice_mode != "seeded":
        return
    reveals = [ln for ln in ch.lines if isinstance(ln.event, E.SeedRevealed)]
    for ln in reveals:
        try:
            seed = bytes.fromhex(ln.event.seed)
        except ValueError:
            seed = None
        if seed is None or not D.check_reveal(seed, created.seed_commitment):
            got = D.commitment(seed) if seed is not None else "(not hexadecimal)"
            row.add(ERROR, "seed", f"the revealed seed does not match the genesis commitment: sha256 of the "
                                   f"revealed seed is {got}, GameCreated committed to {created.seed_commitment}",
                    ln.index)
    if not reveals and not (Path(ch.dir) / "seed").exists():
        if row.finished:
            row.add(WARNING, "seed", "the game is over but the seed is not revealed: the dice were not checked "
                                     "(the host should run `pbem reveal`)")
        else:
            row.add(NOTE, "seed", "the seed is not revealed yet (the game is running): the dice were not checked")
    elif not reveals:
        row.add(WARNING if row.finished else NOTE, "seed",
                ("the game is over but " if row.finished else "") + "the seed is not revealed yet: the dice were "
                "checked with the host's seed file only, which players cannot do")


def _check_secrets(ch: Chain, row: GameAudit) -> None:
    from pbem.core import events as E
    from pbem.core.reduce import secret_commitment
    sealed: dict[str, tuple[int, object]] = {}
    opened: set[str] = set()
    for ln in ch.lines:
        ev = ln.event
        if isinstance(ev, E.SecretRecorded):
            key = f"{ev.side}:{ev.name}"
            sealed[key] = (ln.index, ev)
            if (ev.salt or ev.payload) and secret_commitment(ev.salt, ev.payload) != ev.commitment:
                row.add(ERROR, "secret", f"the sealed secret {ev.name!r} of {ev.side}: the payload kept in the log "
                                         f"does not match its commitment {ev.commitment[:16]}... (changed after "
                                         "sealing)", ln.index)
        elif isinstance(ev, E.SecretRevealed):
            key = f"{ev.side}:{ev.name}"
            rec = sealed.get(key)
            if rec is None:
                row.add(ERROR, "secret", f"{ev.side} unveiled {ev.name!r}, which was never sealed", ln.index)
                continue
            opened.add(key)
            got = secret_commitment(ev.salt, ev.payload)
            if got != rec[1].commitment:
                row.add(ERROR, "secret", f"the unveiled secret {ev.name!r} of {ev.side} does not match its "
                                         f"commitment: sha256(salt + text) is {got}, sealed at seq {rec[0]} as "
                                         f"{rec[1].commitment}", ln.index)
    never: dict[str, list[str]] = defaultdict(list)
    for key, (_n, ev) in sealed.items():
        if key not in opened:
            never[ev.side].append(ev.name)
    for side, names in sorted(never.items()):
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        when = "by the end of the game" if row.finished else "so far"
        row.add(NOTE, "secret", f"{len(names)} sealed secret(s) of {side} never unveiled {when}: {shown}; "
                                "the other side cannot check them against their commitments")


def _check_signatures(ch: Chain, created, row: GameAudit) -> None:
    """Every order's SSH signature against the side's registered key (pbem/trust/findings.py):
    wrongly signed orders are errors; unsigned ones where signatures are required, a key
    replaced after the game began and a signed text bound to no head are warnings."""
    from pbem.engine import Entry
    from pbem.trust import findings as F
    rows = F.order_signatures(created, [Entry(ln.index, ln.hash, ln.at, ln.event) for ln in ch.lines])
    required = created.signatures == "required"
    for r in rows:
        if r.status in F.PROBLEMS:
            row.add(ERROR, "signature", f"order {_cut(r.text)!r} of {r.side}: {F.describe(r)}", r.seq)
        elif r.status in F.WARNINGS or (required and r.status == "unsigned"):
            row.add(WARNING, "signature", f"order {_cut(r.text)!r} of {r.side}: {F.describe(r)}"
                    + (" (signatures are required in this game)" if r.status == "unsigned" else ""), r.seq)
    n = F.counts(rows)
    if created.keys or required or n.get("signed"):
        row.add(NOTE, "signature", "orders: " + ", ".join(f"{v} {k}" for k, v in sorted(n.items())))


def _check_deadlines(path: Path, ch: Chain, row: GameAudit) -> None:
    """deadline.json (hosted games) keeps the running deadlines only: for each decision
    still awaited when the host last looked, since when and until when (see
    pbem/host/deadlines.py); answered ones are forgotten, and extensions only move
    ``due``.  So a late order can be proven only against a running deadline."""
    import json

    from pbem.core import events as E
    from pbem.host.common import HostError, fmt_duration, parse_duration, parse_time
    try:
        dl = json.loads(read_regular(path / "deadline.json", MAX_FILE_BYTES))
    except FileNotFoundError:
        return
    except (OSError, ValueError, RecursionError) as e:
        row.add(WARNING, "deadline", f"deadline.json cannot be read ({e}): the deadlines were not checked")
        return
    orders = [(ln.index, ln.at, ln.event) for ln in ch.lines if isinstance(ln.event, E.OrderGiven)]

    def when(text):
        try:
            return parse_time(text)
        except (HostError, TypeError, AttributeError):
            return None
    waits = dl.get("waits", {}) if isinstance(dl, dict) else {}
    for key, w in sorted(waits.items() if isinstance(waits, dict) else []):
        due, since = when(w.get("due")), when(w.get("since"))
        if due is None:
            continue
        try:                              # the grace the host gave this deadline (pbem/host/deadlines.py)
            grace = parse_duration(w["grace"]) if w.get("grace") else None
        except (HostError, TypeError):
            grace = None
        for seq, at, ev in orders:
            t = when(at)
            if ev.side == w.get("side") and not ev.by and t is not None and t > due and (since is None or t >= since):
                if grace is not None and t <= due + grace:
                    row.add(NOTE, "deadline", f"order {ev.text!r} of {ev.side} was applied at {at}, after the "
                                              f"deadline of its {w.get('kind', 'decision')} ({w['due']}) but within "
                                              f"its {fmt_duration(grace)} of grace", seq)
                    continue
                row.add(WARNING, "deadline", f"order {ev.text!r} of {ev.side} was applied at {at}, after the "
                                             f"deadline of its {w.get('kind', 'decision')} ({w['due']}"
                                             f"{f' and its {fmt_duration(grace)} of grace' if grace else ''})", seq)
    by_deadline = sum(1 for _s, _a, ev in orders if ev.by == "deadline")
    try:
        period = parse_duration(dl.get("period")) if isinstance(dl, dict) and dl.get("period") else None
    except HostError:
        period = None
    text = ("deadline.json keeps only the running deadlines and the game's period, not the deadlines of "
            "decisions already answered (nor extensions): whether earlier orders came in time cannot be told")
    if period is not None:
        prev_at, suspects = None, []
        for ln in ch.lines:
            if isinstance(ln.event, E.OrderGiven) and not ln.event.by and prev_at is not None:
                t, p = when(ln.at), when(prev_at)
                if t is not None and p is not None and t - p > period:
                    suspects.append(str(ln.index))
            if not isinstance(ln.event, E.OrderGiven):
                prev_at = ln.at
        if suspects:
            text += (f"; {len(suspects)} order(s) came more than the period ({fmt_duration(period)}) after the "
                     f"log last changed (seq {', '.join(suspects[:8])}{', ...' if len(suspects) > 8 else ''}): "
                     "late unless a deadline was extended")
    if by_deadline:
        text += f"; {by_deadline} order(s) were applied by the host as deadline defaults"
    row.add(NOTE, "deadline", text)


# --- the rules, re-run ------------------------------------------------------------------

def _rerun(path: Path, ch: Chain, scenario_raw: bytes, row: GameAudit, private: bool = False) -> None:
    """Game.verify on the folder (or on a private copy: when its scenario.toml is not the recorded
    one but the shipped file is, with the shipped file; when some file of the folder must not be
    read, with its regular files only), its problems as findings."""
    from pbem.engine import Game
    own = not private and sha256_file(path / "scenario.toml", MAX_FILE_BYTES) == _sha(scenario_raw)
    with (tempfile.TemporaryDirectory(prefix="pbem-audit-") if not own else nullcontext(path)) as where:
        where = Path(where)
        if not own:
            for name in (LOG_NAME, "log.head", "seed"):
                try:
                    data = read_regular(path / name, _FILES[name])
                except OSError:                 # missing, or not to be read: left out of the copy
                    continue
                fd = os.open(where / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
            (where / "scenario.toml").write_bytes(scenario_raw)
        try:
            g = Game(where)
            rep = g.verify()
        except Exception as e:                  # noqa: BLE001 - a game that cannot be opened is a finding
            row.add(ERROR, "rules", f"the game cannot be opened for the re-run: {str(e).replace(str(where), str(path))}")
            return
        problems = [p.replace(str(where), str(path)) for p in rep.problems]
        _verify_findings(rep, problems, ch, row)
        if row.finished or not rep.ok:
            return
        try:                                    # what a running game waits for (reducer only)
            from pbem.engine import Entry
            entries = [Entry(ln.index, ln.hash, ln.at, ln.event) for ln in ch.lines]
            st = g.replay(entries)
            from pbem.core.turn import Turn
            row.waiting = [f"{w.side}: {w.kind}" for w in Turn(g.rules, g.scenario, st).waits]
        except Exception:                       # noqa: BLE001 - only a courtesy of the row
            pass


_SEQ = re.compile(r"^seq (\d+): ")
_LINE = re.compile(r" line (\d+): ")
_SAYS = re.compile(r"the log says (.*) but the rules give (.*)$", re.S)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 3] + "..."


def _verify_findings(rep, problems: list[str], ch: Chain, row: GameAudit) -> None:
    """Game.verify's problems and notes, sorted into findings.  Chain, anchor and seed-reveal
    problems are left out: this module checks those itself, from the stored lines."""
    for n in rep.notes:
        if n.startswith("order signatures:") or " is signed by " in n or "a key " in n and "registered after" in n:
            continue                        # _check_signatures words them
        if "revealed seed" in n:
            row.dice_checked = "revealed seed"
        elif "host's seed file" in n:
            row.dice_checked = "host's seed file"
        elif "dice not checked" in n:
            row.dice_checked = "recorded rolls only"
        elif n.startswith("dice scheme 2"):
            row.dice_checked = "seed" if "from the seed" in n else "revealed turn seeds"
            row.add(NOTE, "dice", n)
        elif "log.head" in n or "--head" in n or "scripted dice" in n:
            continue                        # checked here from the stored lines and GameCreated
        elif "did not match" in n:          # a derived cache that disagreed with the log: verify rebuilt it
            row.add(WARNING, "cache", f"{n}: someone or something changed a derived file of the game")
        else:
            row.add(NOTE, "verify", n)
    stopped = None
    for p in problems:
        m = _SEQ.match(p) or _LINE.search(p)
        seq = (int(m[1]) - (0 if m.re is _SEQ else 1)) if m else None
        if "log.head" in p or "--head" in p or "revealed seed does not match" in p:
            continue
        if " is WRONGLY SIGNED" in p or (" is not signed" in p and p.startswith("seq ")):
            continue                        # _check_signatures says so
        if p.startswith("seed file") or "seed file" in p and "commitment" in p:
            row.add(ERROR, "seed", p)
            continue
        stopped = seq if stopped is None else stopped
        says = _SAYS.search(p)
        if says:
            have, want = says[1], says[2]
            logged = ch.lines[seq].event if seq is not None and 0 <= seq < len(ch.lines) else None
            fields = _field_diff(logged, want)
            row.add(ERROR, "rules", f"the rule re-run disagrees with the log at seq {seq}: " +
                    (fields or f"the log says {_cut(have)}, the rules give {_cut(want)}"), seq)
            if "GameEnded(" in have or "GameEnded(" in want:
                row.add(ERROR, "result", f"the recorded result does not match the recomputed one: the log "
                                         f"records {_result(have)}, re-running the rules gives {_result(want)}", seq)
        else:
            text = _SEQ.sub("", p)
            row.add(ERROR, "rules", "the rule re-run fails" + (f" at seq {seq}" if seq is not None else "")
                    + f": {_cut(text)}", seq)
    row.rules_checked = rep.ok or not any(f.code == "rules" for f in row.findings)
    if row.finished and stopped is not None and not any(f.code == "result" for f in row.findings):
        row.add(NOTE, "result", f"the recorded result was not recomputed: the re-run stopped at seq {stopped}")


def _field_diff(logged, want: str) -> str:
    """"UnitMoved differs in path (the log says [...], the rules give [...])" when the rules'
    event (as Game.verify words it: the struct's repr, every field in order) is of the logged
    event's kind; "" when it is not, or cannot be read that way."""
    if logged is None:
        return ""
    kind, names = type(logged).__name__, type(logged).__struct_fields__
    if not want.startswith(kind + "(") or not want.endswith(")") or not names:
        return ""
    body, starts = want[len(kind) + 1:-1], []
    for i, name in enumerate(names):
        at = body.find(f"{name}=" if i == 0 else f", {name}=", starts[-1][1] if starts else 0)
        if at < 0 or (i == 0 and at != 0):
            return ""
        starts.append((at, at + len(name) + 1 + (2 if i else 0)))
    diffs = []
    for i, name in enumerate(names):
        value = body[starts[i][1]:starts[i + 1][0] if i + 1 < len(names) else len(body)]
        mine = repr(getattr(logged, name))
        if value != mine:
            diffs.append(f"{name} (the log says {_cut(mine)}, the rules give {_cut(value)})")
    return f"{kind} differs in " + "; ".join(diffs) if diffs else ""


def _result(text: str) -> str:
    m = re.search(r"GameEnded\(winner='([^']*)'", text)
    if m:
        return "a draw" if m[1] == "draw" else f"a win for {m[1]}"
    return "no result" if text.strip() in ("'(nothing)'", "(nothing)") else "no result at this point"


# --- many games --------------------------------------------------------------------------

@dataclass
class Audit:
    games: list[GameAudit]
    summary: dict

    @property
    def errors(self) -> int:
        return sum(g.count(ERROR) for g in self.games)

    @property
    def warnings(self) -> int:
        return sum(g.count(WARNING) for g in self.games)


def audit(paths: list[Path], jobs: int | None = None, progress=None) -> Audit:
    """Audit every game under ``paths`` with ``jobs`` processes (default: every core);
    ``progress(done, total)`` after each game."""
    return audit_dirs(find_games(paths), jobs, progress)


def audit_dirs(dirs: list[Path], jobs: int | None = None, progress=None) -> Audit:
    """Audit these game folders (see ``audit``)."""
    jobs = max(1, jobs or _cores())
    rows: list[GameAudit] = []
    if progress:
        progress(0, len(dirs))
    if jobs == 1 or len(dirs) < 2:
        for d in dirs:
            rows.append(audit_game(d))
            if progress:
                progress(len(rows), len(dirs))
    else:
        import multiprocessing as mp
        import pbem.engine  # noqa: F401 - loaded once here, inherited by forked workers
        from pbem.games import load_all_events
        load_all_events()
        chunk = max(1, min(16, len(dirs) // (jobs * 8)))
        with mp.get_context().Pool(min(jobs, len(dirs))) as pool:
            for row in pool.imap_unordered(audit_game, [str(d) for d in dirs], chunksize=chunk):
                rows.append(row)
                if progress:
                    progress(len(rows), len(dirs))
    rows.sort(key=lambda r: (r.game_id, r.path))
    _check_duplicates(rows)
    for r in rows:
        r.findings.sort(key=lambda f: SEVERITIES.index(f.severity))
    return Audit(rows, summarize(rows))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _check_duplicates(rows: list[GameAudit]) -> None:
    """Game ids held by more than one folder: identical copies (a note), an older copy of
    the same game (a warning), or logs that part.  Logs that part are an error (which one
    is the game?) unless the copies that verify (no error of their own) all hold one log or
    older copies of it: then a copy that does not verify cannot cast doubt on one that
    does (a warning there), and every copy says which copies verify."""
    by_id: dict[str, list[GameAudit]] = defaultdict(list)
    for r in rows:
        if r.game_id:
            by_id[r.game_id].append(r)
    for gid, group in by_id.items():
        if len(group) < 2:
            continue
        verified = {r.path for r in group if not r.count(ERROR)}       # before this check adds any
        by_head: dict[tuple[str, int], list[GameAudit]] = defaultdict(list)
        for r in group:
            by_head[r.head, r.seq].append(r)
        for copies in by_head.values():
            for r in copies:
                others = [o.path for o in copies if o is not r]
                if others:
                    more = f" and {len(others) - 3} more" if len(others) > 3 else ""
                    r.add(NOTE, "duplicate", f"the same game (identical log) is also at {', '.join(others[:3])}{more}")
        if len(by_head) < 2:
            continue
        reps = {k: read_chain(Path(v[0].path), decode=False) for k, v in by_head.items()}
        part = {(a, b): parting(reps[a], reps[b]) for a in by_head for b in by_head if a != b}

        def forked(a, b) -> bool:
            n = part[a, b]
            return n is not None and n <= min(reps[a].last_seq, reps[b].last_seq)
        good = [k for k, v in by_head.items() if any(r.path in verified for r in v)]
        one_line = not any(forked(a, b) for a in good for b in good if a != b)   # the verified copies agree
        for key, copies in by_head.items():
            mine = reps[key]
            for okey, ocopies in by_head.items():
                if okey == key:
                    continue
                theirs, where = reps[okey], ocopies[0].path + (f" (and {len(ocopies) - 1} more)" if len(ocopies) > 1 else "")
                n = part[key, okey]
                for r in copies:
                    if n == 0:
                        r.add(ERROR, "duplicate", f"another game with the same id {gid!r} is at {where}: a different "
                                                  "game (its GameCreated differs); game ids must be unique")
                    elif n is not None and n > mine.last_seq:
                        r.add(WARNING, "duplicate", f"an older copy of the game at {where}: this log ends at seq "
                                                    f"{mine.last_seq}, that one goes on to seq {theirs.last_seq}")
                    elif n is not None and n > theirs.last_seq:
                        r.add(NOTE, "duplicate", f"{where} holds an older copy of this game (it ends at seq "
                                                 f"{theirs.last_seq})")
                    elif n is not None and one_line and r.path in verified and okey not in good:
                        r.add(WARNING, "duplicate", f"another copy of game {gid!r} at {where} has a different log: "
                                                    f"they part at seq {n} (`pbem diff` shows how); that copy does not "
                                                    "verify, this one does", n)
                    elif n is not None:
                        r.add(ERROR, "duplicate", f"another copy of game {gid!r} at {where} has a different log: "
                                                  f"they part at seq {n} (`pbem diff` shows how)", n)
        if any(part[a, b] and forked(a, b) for (a, b) in part):       # copies of one game that part
            ok = sorted(verified)
            said = (f"only {ok[0]} verifies" if len(ok) == 1 else "none of them verifies" if not ok else
                    f"{', '.join(ok[:-1])} and {ok[-1]} verify")
            for r in group:
                r.add(NOTE, "duplicate", f"of {len(group)} copies of game {gid!r}, {said}")


def summarize(rows: list[GameAudit]) -> dict:
    """Standings (wins, draws, losses per player address, by scenario) from the finished games
    without errors, each game id counted once (the longest copy); the games still running."""
    counted: dict[str, GameAudit] = {}
    for r in rows:
        if r.finished and not r.count(ERROR) and r.game_id:
            if r.game_id not in counted or r.seq > counted[r.game_id].seq:
                counted[r.game_id] = r
    standings: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(lambda: {"w": 0, "d": 0, "l": 0}))
    for r in counted.values():
        winner = r.result["winner"]
        for side, addr in r.players.items():
            who = addr or f"({side} in {r.game_id})"
            key = "d" if winner == "draw" else ("w" if side == winner else "l")
            standings[r.scenario][who][key] += 1
    running, seen = [], set()
    for r in rows:
        if r.game_id and not r.finished and r.game_id not in seen and not r.count(ERROR):
            seen.add(r.game_id)
            running.append({"game_id": r.game_id, "scenario": r.scenario, "turn": r.turn, "turns": r.turns,
                            "waiting": r.waiting, "path": r.path})
    return {
        "type": "summary",
        "games": len(rows),
        "clean": sum(r.clean for r in rows),
        "with_errors": sum(bool(r.count(ERROR)) for r in rows),
        "with_warnings": sum(bool(r.count(WARNING)) for r in rows),
        "errors": sum(r.count(ERROR) for r in rows),
        "warnings": sum(r.count(WARNING) for r in rows),
        "notes": sum(r.count(NOTE) for r in rows),
        "finished_counted": len(counted),
        # a game counted from a copy that verifies is not left out for its bad copies
        "left_out": sorted({r.game_id or r.path for r in rows if r.finished and r.count(ERROR)} - set(counted)),
        "standings": {sc: {p: dict(v) for p, v in sorted(t.items())} for sc, t in sorted(standings.items())},
        "running": running,
    }
