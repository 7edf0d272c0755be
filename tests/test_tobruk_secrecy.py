"""Issue 14: nothing an Advanced Tobruk side receives gives away, before the rules reveal it,
a side note of the other side (18.5, 18.12, 18.82, 17.25, 9.12, 24.01, 24.07, 32.22, 32.24, 31.1),
a hidden unit (its id, so its hex, 32.2), a dummy's nature (32.24), a hidden minefield's hex
(31.15, 31.20) or the identity of a unit still showing its fog-of-war side (32.1).

``check_secrecy(folder, tmp)`` plays a playbook folder twice: by mail through a host (every
mail a side gets) and by ``pbem order --as SIDE`` (the echo of each order, then for both sides
``pbem state --as SIDE --json``, ``pbem report --as SIDE`` (text and SVG map) and
``pbem log --as SIDE``).  Each
text is searched for every secret of the other side still unrevealed at the head it was
written against; the JSON state is also checked field by field (a hidden unit's row, a FOW
unit's type or name, a dummy flag).  One call covers a whole game."""
from __future__ import annotations

from pbem.games.advanced_tobruk.notes import notes_words

import json
import re
import tomllib
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.core import events as CE
from pbem.engine import Game
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.board import spotting
from pbem.games.advanced_tobruk.fog_events import DummyRemoved, Flipped, Revealed
from pbem.host.mailplay import demo
from test_secrecy_all import NEVER

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@dataclass
class Secret:
    owner: str                  # the side whose secret it is
    what: str                   # for the failure message
    pattern: str                # a regex; line-bound ones use [^\n]
    until: int                  # seq of the event that makes it public (NEVER if none)
    anywhere: bool = True       # False: only in line-shaped texts (not the one-line JSON state)
    needle: str = ""            # a literal every match contains (a fast first test), "" = none


def _word(s: str) -> str:
    return rf"(?<![\w-]){re.escape(s)}(?![\w-])"


def _same_line(a: str, b: str) -> str:
    return rf"{a}[^\n]*{b}|{b}[^\n]*{a}"


def _density(hex: str, density: str) -> str:
    """A minefield's hex and its density on one line (31.14: the counter lies face down)."""
    d = r"density\W*" + re.escape(density) + r"(?!\d)"
    return f"(?i:{_same_line(_word(hex), d)})"


def secrets(game: Game) -> list[Secret]:
    """Every Tobruk secret of a played game, with the seq from which it is public."""
    sc = game.scenario
    entries = game.entries()
    opened: dict[tuple[str, str], int] = {}
    placed: dict[str, int] = {}            # hidden unit -> seq it came on the map
    flipped: dict[str, int] = {}           # FOW unit -> seq its identity became public
    gone: dict[str, int] = {}              # dummy -> seq it was removed (its nature told)
    mine_seen: dict[str, int] = {}         # hex -> seq a mine event named it (on the map now)
    for en in entries:
        ev = en.event
        if isinstance(ev, CE.SecretRevealed):
            opened.setdefault((ev.side, ev.name), en.seq)
        elif isinstance(ev, Revealed):
            for u in ev.units:
                placed.setdefault(u, en.seq)
                if ev.face_up:
                    flipped.setdefault(u, en.seq)
        elif isinstance(ev, Flipped):
            for u in ev.units:
                flipped.setdefault(u, en.seq)
        elif isinstance(ev, DummyRemoved):
            for d in (placed, flipped, gone):
                d.setdefault(ev.unit, en.seq)
        elif type(ev).__module__.endswith("mine_events") and isinstance(getattr(ev, "hex", None), str):
            mine_seen.setdefault(ev.hex, en.seq)
    out: list[Secret] = []
    fow_units: set[str] = set()
    st0 = game.state(at=1)
    for uid in sc.unit_defs:
        if spotting.fow_up(st0, sc, uid):
            fow_units.add(uid)
    for en in entries:
        ev = en.event
        if not isinstance(ev, CE.SecretRecorded):
            continue
        side, name, payload = ev.side, ev.name, ev.payload
        until = opened.get((side, name), NEVER)
        out.append(Secret(side, f"the salt of {name}", re.escape(ev.salt), until, needle=ev.salt))
        if not (name.startswith(notes.RESERVED) or name == "command"):
            continue
        out.append(Secret(side, f"note {name}: {payload}", re.escape(payload), until, needle=payload))
        meaning = notes_words.meaning(payload, sc)
        out.append(Secret(side, f"note {name} in words", re.escape(meaning), until, needle=meaning))
        w = payload.split()
        if w[0] == "hide":
            for u in w[1].split("+"):
                out.append(Secret(side, f"hidden unit {u} ({w[2]})", _word(u), min(placed.get(u, NEVER), until),
                                  anywhere=False, needle=u))
        elif w[0] == "dummy":
            out.append(Secret(side, f"{w[1]} is a dummy", f"(?i:{_same_line(_word(w[1]), 'dummy')})",
                              min(gone.get(w[1], NEVER), until), anywhere=False, needle=w[1]))
        elif w[0] == "mine":
            known = min(mine_seen.get(w[1], NEVER), until)
            if w[-1] == "hidden":                       # 31.15 not on the enemy's map at all
                out.append(Secret(side, f"hidden minefield in {w[1]}", f"(?i:{_same_line('mine', _word(w[1]))})",
                                  known, anywhere=False, needle=w[1]))
            elif w[2] == "dummy":                       # 31.191 on the map, face down: not its nature
                out.append(Secret(side, f"dummy minefield in {w[1]}", f"(?i:{_same_line(_word(w[1]), 'dummy')})",
                                  known, anywhere=False, needle=w[1]))
            else:                                       # 31.14 on the map, face down: not its density
                out.append(Secret(side, f"the density of the minefield in {w[1]}", _density(w[1], w[2]), known,
                                  anywhere=False, needle=w[1]))
    for uid in sorted(fow_units):
        d = sc.unit_defs[uid]
        ident = "|".join(re.escape(x) for x in (d.type, d.name) if x)
        out.append(Secret(d.side, f"the identity of FOW unit {uid} ({d.type})", _same_line(_word(uid), f"(?:{ident})"),
                          min(flipped.get(uid, NEVER), gone.get(uid, NEVER)), anywhere=False, needle=uid))
    return out


_MATCHERS: dict[tuple, tuple[re.Pattern, list[Secret]]] = {}


def _matcher(active: list[Secret], lines: bool) -> tuple[re.Pattern, list[Secret]] | None:
    use = [s for s in active if lines or s.anywhere]
    if not use:
        return None
    key = tuple(s.pattern for s in use)             # the same secrets are active for many texts
    if key not in _MATCHERS:
        _MATCHERS[key] = re.compile("|".join(f"(?P<s{i}>{s.pattern})" for i, s in enumerate(use))), use
    return _MATCHERS[key]


def leaks(all_secrets: list[Secret], side: str, seq: int, text: str, lines: bool = True) -> list[str]:
    """What ``text`` (received by ``side`` with the game at ``seq``) gives away."""
    active = [s for s in all_secrets if s.owner != side and seq < s.until and (not s.needle or s.needle in text)]
    m = _matcher(active, lines)
    if m is None:
        return []
    rx, use = m
    found = []
    for hit in rx.finditer(text):
        s = use[int(hit.lastgroup[1:])]
        found.append(f"{s.what}: ...{hit.group(0)[:160]}...")
        if len(found) >= 5:
            break
    return found


def state_leaks(game: Game, all_secrets: list[Secret], side: str, seq: int, view: dict) -> list[str]:
    """The JSON state a side gets: no hidden unit of the other side, no FOW unit's type or name,
    no dummy flag, and none of the line-free secrets anywhere."""
    sc = game.scenario
    host = game.state(at=seq)
    found = leaks(all_secrets, side, seq, json.dumps(view), lines=False)
    for row in view.get("units", []):
        uid = row.get("id")
        if uid not in sc.unit_defs or sc.unit_defs[uid].side == side:
            continue
        p, u = host.pieces[uid], host.units[uid]
        if p.hidden_at and u.hex is None and not u.eliminated:
            found.append(f"hidden unit {uid} (noted in {p.hidden_at}) has a row: {row}")
        if spotting.fow_up(host, sc, uid) and not p.dummy or p.dummy and not u.gone:
            d = sc.unit_defs[uid]
            if row.get("type") == d.type or d.name and d.name in json.dumps(row):
                found.append(f"FOW unit {uid}'s identity ({d.type}) in its row: {row}")
        if "dummy" in json.dumps(row).lower() and not u.gone:
            found.append(f"{uid}'s row says dummy: {row}")
    return found


# --- playing a playbook both ways ---------------------------------------------------------------

class Problems:
    """Leaks collected over a whole game: the first text of each kind of leak, so one failure
    shows every kind at once."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}

    def add(self, where: str, found: list[str]) -> None:
        for f in found:
            self.first.setdefault(f.split(":")[0], f"{where} gives away {f}")

    def check(self) -> None:
        assert not self.first, f"{len(self.first)} kind(s) of leak:\n" + "\n".join(self.first.values())


def _mail_text(raw: bytes) -> tuple[str, str, str]:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    parts = [f"Subject: {msg['Subject']}"]
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            parts.append(part.get_content())
    return str(msg["X-pbem-Side"] or ""), str(msg["X-pbem-Head"] or ""), "\n".join(parts)


def _seq_of(head: str, game: Game) -> int:
    return next((en.seq for en in game.entries() if en.hash == head), -1)


def check_by_mail(folder: Path, tmp: Path) -> int:
    """Every mail a side gets from the host, searched at the head it carries."""
    demo(folder, tmp / "host", echo=lambda *_: None, maps=False)
    [gdir] = [d for d in (tmp / "host" / "games").iterdir() if (d / "log.jsonl").is_file()]
    game = Game(gdir)
    all_secrets = secrets(game)
    checked, bad = 0, Problems()
    for f in sorted((tmp / "host" / "outbox").glob("*.eml")):
        side, head, text = _mail_text(f.read_bytes())
        if side in ("", "referee"):
            continue
        seq = _seq_of(head, game) if head else -1
        bad.add(f"mail {f.name} to {side} at seq {seq}", leaks(all_secrets, side, seq, text))
        checked += 1
    bad.check()
    return checked


def check_by_cli(folder: Path, tmp: Path, only: str = "") -> int:
    """Every CLI text a side may ask for, after every step: the order echo, the state (text and
    JSON) and the report (text and map); and the redacted log export once at the end, each line
    searched at its own seq (a side's copy of an entry does not change later: its redaction
    depends on the viewer only, never on what happened after it)."""
    book = tomllib.loads((folder / "playbook.toml").read_text())
    gdir = tmp / "g"
    run = CliRunner().invoke
    args = ["new", str(gdir), "--scenario", book["scenario"], "--id", book.get("id", folder.name)]
    for side, addr in book.get("players", {}).items():
        args += ["--player", f"{side}={addr}"]
    args += ["--seed", book["seed"]] if book.get("seed") else ["--dice", ",".join(map(str, book["dice"]))]
    args += ["--dice-scheme", str(book.get("dice_scheme", 1))]     # the examples' dice (playbook.py)
    r = run(main, args)
    assert r.exit_code == 0, r.output
    players = Game(gdir).scenario.side_ids()
    sides = [only] if only else players                # the sides whose views are searched
    texts: list[tuple[str, int, str, str]] = []        # side, seq, what, text
    views: list[tuple[str, int, dict]] = []

    def look(seq: int) -> None:
        for s in sides:
            v = run(main, ["state", str(gdir), "--as", s, "--json"])
            assert v.exit_code == 0, v.output
            views.append((s, seq, json.loads(v.output)))
            for what, cmd in (("state", ["state", str(gdir), "--as", s]),
                              ("report", ["report", str(gdir), "--as", s]),
                              ("map", ["report", str(gdir), "--as", s, "--format", "svg"])):
                out = run(main, cmd)
                assert out.exit_code == 0, out.output
                texts.append((s, seq, what, out.output))

    look(Game(gdir).head()[0])
    for step in book["steps"]:
        side = next(s for s in players if Path(step).stem.endswith("-" + s))
        r = run(main, ["order", str(gdir), str(folder / step), "--as", side])
        assert r.exit_code == 0, r.output
        seq = Game(gdir).head()[0]
        texts.append((side, seq, f"order {step}", r.output))
        look(seq)
    game = Game(gdir)
    all_secrets = secrets(game)
    bad = Problems()
    for s in sides:
        out = run(main, ["log", str(gdir), "--as", s])
        assert out.exit_code == 0, out.output
        # each line is searched at the last seq of its order's batch: the events of one order are
        # appended together, so a side never holds an order line without the events it caused
        batch: list[str] = []
        seq = -1
        for line in out.output.splitlines():
            w = line.split()
            if len(w) > 3 and w[0].isdigit():
                if w[3] in ("OrderGiven", "SeedRevealed") and batch:
                    texts += [(s, seq, "log", x) for x in batch]
                    batch = []
                seq = int(w[0])
            batch.append(line)
        texts += [(s, seq, "log", x) for x in batch]
    for side, seq, what, text in texts:
        bad.add(f"{what} for {side} at seq {seq}", leaks(all_secrets, side, seq, text))
    for side, seq, view in views:
        bad.add(f"state --as {side} --json at seq {seq}", state_leaks(game, all_secrets, side, seq, view))
    bad.check()
    return len(texts) + len(views)


def check_secrecy(folder: Path, tmp: Path) -> tuple[int, list[Secret]]:
    """The whole game both ways; returns how many texts were searched and the secrets found in
    the log (so a caller can check that the game had the secrets it meant to test)."""
    n = check_by_mail(folder, tmp / "mail") + check_by_cli(folder, tmp / "cli")
    return n, secrets(Game(tmp / "cli" / "g"))


# --- the example game ----------------------------------------------------------------------------

def test_no_mail_of_the_salient_example_gives_anything_away_before_its_reveal(tmp_path):
    assert check_by_mail(EXAMPLES / "tobruk-salient", tmp_path) > 100


@pytest.mark.parametrize("side", ["british", "german"])
def test_the_salient_example_gives_nothing_away_before_its_reveal(tmp_path, side):
    # what each side asks the CLI for, one test a side (the mails: the test above), so they run side by side
    folder = EXAMPLES / "tobruk-salient"
    n = check_by_cli(folder, tmp_path / "cli", side)
    found = secrets(Game(tmp_path / "cli" / "g"))
    kinds = {s.what.split()[0] for s in found}
    assert n > 100
    assert {"note", "hidden", "the"} <= kinds
    # every kind of side note the issue lists is in the game, sealed before play
    payloads = " ".join(s.what for s in found if s.what.startswith("note ") and " in words" not in s.what)
    for kind in ("register", "ffe", "fo", "apcr", "crew", "command", "elite", "hide", "dummy", "mine"):
        assert f": {kind} " in payloads, kind


def test_the_checker_finds_a_planted_leak():
    # the checker itself: a note's words, a hidden unit's id, a FOW identity are found before their
    # reveal and not after it
    s = [Secret("british", "hidden unit H1", _word("H1"), 10, anywhere=False),
         Secret("german", "FOW P2", _same_line(_word("P2"), "(?:pz3g)"), 20, anywhere=False),
         Secret("british", "note", re.escape("H1, Cr1 set up hidden in 0906"), 10)]
    assert leaks(s, "german", 5, "fire at H1 from 0805")
    assert not leaks(s, "german", 10, "fire at H1 from 0805")
    assert not leaks(s, "german", 5, "fire at H12 from 0805")
    assert leaks(s, "british", 19, "P2 0208 pz3g")
    assert not leaks(s, "british", 19, "P2 0208 AFV\nP1 pz3g")
    d = [Secret("british", "density", _density("0605", "3"), 30, anywhere=False)]
    assert leaks(d, "german", 29, "minefield 0605: density 3")
    assert not leaks(d, "german", 29, "minefield 0605: density unknown\nminefield 0609: density 3")
    assert not leaks(d, "german", 29, "minefield 0605: density 31")
    assert leaks(s, "german", 9, '{"x": "H1, Cr1 set up hidden in 0906"}', lines=False)
    assert not leaks(s, "german", 9, '{"x": "H1 P2 pz3g"}', lines=False)


def _first_steps(tmp: Path, n: int) -> Path:
    """A playbook of the example's first ``n`` mails (the set-up and the registrations)."""
    book = tomllib.loads((EXAMPLES / "tobruk-salient" / "playbook.toml").read_text())
    folder = tmp / "book"
    folder.mkdir(parents=True)
    for s in book["steps"][:n]:
        (folder / s).write_text((EXAMPLES / "tobruk-salient" / s).read_text())
    (folder / "playbook.toml").write_text(
        f'scenario = "{book["scenario"]}"\nid = "{book["id"]}"\nseed = "{book["seed"]}"\n'
        f'players = {{ british = "{book["players"]["british"]}", german = "{book["players"]["german"]}" }}\n'
        "steps = [" + ", ".join(f'"{s}"' for s in book["steps"][:n]) + "]\n")
    return folder


def test_the_checker_catches_a_view_that_lets_the_notes_through(tmp_path, monkeypatch):
    # the same set-up, with the game's redaction switched off: the British note orders reach the
    # Germans and the check fails, naming the note and the hidden gun
    from pbem.games.advanced_tobruk.rules import AdvancedTobruk
    folder = _first_steps(tmp_path, 4)
    assert check_by_cli(folder, tmp_path / "ok") > 10
    monkeypatch.setattr(AdvancedTobruk, "redact", lambda self, ev, viewer: ev)
    with pytest.raises(AssertionError) as e:
        check_by_cli(folder, tmp_path / "leaky")
    assert "note hide-1: hide H1+Cr1 0906 W" in str(e.value) and "to german" not in str(e.value)
    assert "for german at seq" in str(e.value)
