"""Issue 24 item 1: CHECK and DRAFT (and `pbem order --check`/`--stage`) are no oracle.

A check commits nothing, so it may tell a player only what the player could know
without committing.  Non-interference proves it: for every secret kind of every
game, two games that differ in one secret and look the same to the other side
give that side byte-identical answers.

A pair is an example played for some steps, twice: once as it is and once with one
secret of the other side changed, either in an order file (a sealed note, a drop
plan, a standing order, an attack's hidden participants) or in the host's state and
records (a hidden draw, the units beneath a stack, a paused move's plan).  Each pair
is first checked to be a fair one (the two games look the same to the checker: its
copy of the log, its state, report notes and map marks; and the host's truth
differs), then a battery of the checker's orders goes through CHECK (the answer
`mailcmd.check_lines` words for the mail and the CLI alike) and DRAFT (`staging.stage`),
and the answers must be equal byte for byte once the head hash is set aside (it
is in every report the checker has).  The battery holds the orders the example
played next, the checker's deadline defaults and orders aimed at the secret (the
issue's own: a path through a hidden minefield, ``cross P2 ... 0909`` into a hidden
gun).  Last, the states the checks run on (core/known.py) are equal byte for byte,
which makes every other order's answer equal too.
"""
from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from pbem import staging
from pbem.core.events import SecretRecorded
from pbem.core.state import state_bytes
from pbem.engine import Game
from pbem.host.mailcmd import check_lines
from pbem.views import log_view, state_view, unit_rows

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CLOCK = "2026-01-01T00:00:00Z"
HEAD = re.compile(r"\b[0-9a-f]{64}\b")


@dataclass
class Pair:
    example: str
    steps: int                          # played before the checks
    checker: str
    secret: str                         # what differs, in words (the test id)
    edit: tuple = ()                    # (step, text, replacement), ...: the order files changed ("" text: a last line)
    mutate: Callable | None = None      # or a change of the host's state and sealed records: f(state, records, sc)
    base: tuple = ()                    # edits both games share (the secret ``edit`` then changes)
    orders: tuple[str, ...] = ()        # aimed at the secret, beside the generic battery
    expect: tuple[tuple[str, str], ...] = ()   # (order, words its answer must hold): where the check stops


# --- changes of the host's truth that no order file can make ---------------------------------------

def swap_draw(st, records, sc) -> None:
    """Dunkerque 10.0(2): the units of the face-down slot due now and of the last slot change places."""
    slots = st.draws["R"]
    a, b = 0, len(slots) - 1
    ua, ub = slots[a].unit, slots[b].unit
    slots[a].unit, slots[b].unit = ub, ua
    names = [n for n in st.sealed]
    for name, unit in ((names[a], ub), (names[b], ua)):
        st.sealed[name].payload = unit
        records[f"referee:{name}"] = SecretRecorded(side="referee", name=name, commitment="", salt=st.sealed[name].salt,
                                                    payload=unit)


def paused_plan(st, records, sc) -> None:
    """Mirages 6.5.1: the rest of the paused Allied move goes elsewhere (its mover's secret)."""
    p = st.fm.paused
    p.rest = p.rest[:1]
    p.mp_left = "1"


def beneath_strength(st, records, sc) -> None:
    """Mirages 5.3.4: a unit beneath the top of an Allied stack has lost a step."""
    u = st.units["2RTR"]
    u.strength -= 1


def ffe_allotment(st, records, sc) -> None:
    """Advanced Tobruk 18.12: the British secret roll gave the 25-pounders one FFE fewer (its note reads so)."""
    key, text = "british:roll-1", "ffe RHA 4 roll 9"
    records[key] = SecretRecorded(side="british", name="roll-1", commitment="", salt=records[key].salt, payload=text)
    n = st.notes["british"]
    n.ffe = {**n.ffe, "RHA": 4}
    n.names = {**n.names, "roll-1": text}


PAIRS = [
    # --- Advanced Tobruk: side notes, hidden units, dummies, minefields, standing orders (5.01, 31, 32, 6.6)
    Pair("tobruk-salient", 5, "german", "hidden-minefield", edit=((1, "note mine 0607 3 hidden", "note mine 0606 3 hidden"),),
         orders=("assault P2 0308 0407 0507 0607", "crawl G1 0405 0506 0606", "run G2+GL 0407 0507 0606",
                 "search G1 0405"),
         expect=(("assault P2 0308 0407 0507 0607", "hidden units or minefields"),)),
    Pair("tobruk-salient", 5, "german", "hidden-gun", edit=((1, "note hide H2+Cr2 0909 W", "note hide H2+Cr2 1004 W"),),
         orders=("cross P2 0309 0408 0509 0608 0709 0808 0909", "cross P2 0309 0408 0509 0608 0709 0808"),
         expect=(("cross P2 0309 0408 0509 0608 0709 0808 0909", "hidden units or minefields"),)),
    Pair("tobruk-salient", 5, "german", "dummy", edit=(
        (1, "note dummy H3", "note dummy H2"), (1, "note hide H2+Cr2 0909 W", "note hide H3+Cr2 0909 W"),
        (1, "note hide H3 1004 W", "note hide H2 1004 W"), (1, "note crew H2 Cr2", "note crew H3 Cr2"))),
    Pair("tobruk-salient", 5, "german", "crews", edit=(
        (1, "note hide H1+Cr1 0906 W", "note hide H1+Cr2 0906 W"), (1, "note hide H2+Cr2 0909 W", "note hide H2+Cr1 0909 W"),
        (1, "note crew H1 Cr1", "note crew H1 Cr2"), (1, "note crew H2 Cr2", "note crew H2 Cr1"))),
    # 31.191: which of two minefield counters on the German map is the dummy
    Pair("tobruk-salient", 5, "german", "dummy-minefield",
         edit=((1, "note mine 0605 3", "note mine 0605 dummy"), (1, "note mine 0704 dummy", "note mine 0704 3")),
         orders=("cross P1 0305 0405 0505 0605", "cross P1 0305 0404 0504 0604 0704")),
    Pair("tobruk-salient", 5, "german", "registration", edit=((1, "note register H1 0707", "note register H1 0708"),)),
    Pair("tobruk-salient", 5, "german", "secret-roll", mutate=ffe_allotment),
    Pair("tobruk-salient", 5, "german", "standing-orders", edit=((1, "standing hold", "standing any"),),
         orders=("cross P1 0305 0405 0506", "pass")),
    Pair("tobruk-salient", 6, "british", "german-notes", edit=(
        (2, "note elite P1", "note elite P2"), (2, "note apcr P1 1", "note apcr P1 2"), (2, "note apcr P2 1", "note apcr P2 2")),
         orders=("fire H1 at P2", "fire Cr3 at G1")),
    # 24.01: which panzer is the German command tank
    Pair("tobruk-salient", 6, "british", "command-tank", edit=((2, "note command P3", "note command P4"),),
         orders=("fire H1 at P3", "fire H1 at P4")),
    Pair("tobruk-r33", 8, "british", "standing-orders", edit=((2, "standing P1 any range 3", "standing P1 hold"),),
         orders=("run A1 0706 0707", "run A2 0906 0907 0908", "cross Tk1 0503 0504 0505 0506 0607")),
    # 15.22: whether the German squad in the ditch drops into FULL cover when fired on (a standing order)
    Pair("tobruk-perimeter", 6, "british", "drop-order", edit=((2, "standing G2 drop", "standing G2 nodrop"),),
         orders=("fire A3 at 0807", "fire A2+B1 at 0807", "pass")),
    # --- Mirages (Formation Series 5.3.4, 6.5, 7.4): standing orders, stacks, plans, an attack's participants
    Pair("mirages-brevity", 3, "allied", "standing-orders",
         edit=((3, "doctrine reaction always", "doctrine reaction never"),)),
    Pair("mirages-brevity", 4, "axis", "escalation", edit=((4, "attack 1609 with 2RTR 2RB regular",
                                                            "attack 1609 with 2RTR 2RB"),),
         orders=("rbc no",), expect=(("rbc no", "the attacker's own answers"),)),
    Pair("mirages-brevity", 4, "axis", "attackers", edit=((4, "attack 1609 with 2RTR 2RB regular",
                                                           "attack 1609 with 2RB regular"),),
         orders=("rbc no", "rbc 1608")),
    Pair("mirages-brevity", 4, "axis", "beneath-strength", mutate=beneath_strength, orders=("rbc no",)),
    Pair("mirages-brevity", 21, "axis", "stack", mutate=beneath_strength,
         orders=("attack 1609 with IPz8 prepared", "attack 1609 with IPz8"),
         expect=(("attack 1609 with IPz8", "shows you the whole defending stack"),)),
    Pair("mirages-compass", 3, "axis", "paused-plan", mutate=paused_plan, orders=("pass",),
         expect=(("pass", "the mover's own plan"),)),
    Pair("mirages-battleaxe", 1, "axis", "standing-orders", edit=((1, "doctrine reaction always", "doctrine reaction ask"),)),
    # --- Dunkerque 10.0(2): the hidden draw
    Pair("dunkerque", 6, "allied", "hidden-draw", mutate=swap_draw,
         orders=("enter 2201", "enter 2202\nend", "delay"), expect=(("enter 2201", "face-down unit"),)),
    Pair("dunkerque", 4, "german", "hidden-draw", mutate=swap_draw),
    # --- Paratroop: dummies and minefields (Eben Emael 9.5, 11.0), drop plans (Crete 1.0, Red Devils 9.7)
    Pair("eben-emael-12-1", 1, "german", "dummy", edit=((1, "secret dummy-1 1113", "secret dummy-1 0611"),)),
    Pair("eben-emael-12-1", 4, "german", "dummy-demolished", edit=((1, "secret dummy-1 1113", "secret dummy-1 0611"),)),
    Pair("eben-emael-12-2", 3, "german", "minefield", edit=((1, "secret mine-02 1007", "secret mine-02 1008"),),
         orders=("move Neuhaus 1010", "move Neuhaus 1009 1008"),
         expect=(("move Neuhaus 1010", "sealed note mine-"),)),
    Pair("crete", 1, "commonwealth", "drop-plan", edit=((1, "west=5 centre=2 east=2", "west=4 centre=3 east=2"),)),
    Pair("red-devils", 3, "german", "drop-plan", edit=((1, "secret polish-dz 1716 2617", "secret polish-dz 1716 2618"),)),
    # --- a free sealed note, in every game (core `secret`)
    *(Pair(ex, n, side, "sealed-note", base=((k, "", "secret plan attack at dawn"),),
           edit=((k, "secret plan attack at dawn", "secret plan attack at dusk"),))
      for ex, n, k, side in (("el-alamein", 4, 4, "british"), ("kharkov", 3, 3, "german"),
                             ("operation-compass", 5, 5, "british"), ("dunkerque", 6, 6, "allied"),
                             ("mirages-brevity", 3, 3, "allied"), ("red-devils", 3, 2, "british"),
                             ("crete", 2, 2, "german"), ("eben-emael-12-1", 4, 4, "german"),
                             ("tobruk-r33", 8, 8, "british"))),
]


def pair_id(p: Pair) -> str:
    return f"{p.example}-{p.checker}-{p.secret}"


# --- playing ---------------------------------------------------------------------------------------

def _book(example: str) -> dict:
    return tomllib.loads((EXAMPLES / example / "playbook.toml").read_text())


def _side(step: str, sides: list[str]) -> str:
    return next(s for s in sides if Path(step).stem.endswith("-" + s))


def play(example: str, steps: int, into: Path, edits: tuple = ()) -> Game:
    """examples/EXAMPLE's first ``steps`` order files applied, each ``(step, text, replacement)`` of
    ``edits`` made first (an empty ``text``: the replacement goes after the file's last line, where it
    shifts no roll of the step)."""
    book = _book(example)
    clock = os.environ.get("PBEM_CLOCK")
    os.environ["PBEM_CLOCK"] = CLOCK
    try:
        g = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                        dice=book.get("dice"), game_id=book.get("id"))
        sides = g.scenario.side_ids()
        for n, step in enumerate(book["steps"][:steps], start=1):
            text = (EXAMPLES / example / step).read_text()
            for k, was, new in edits:
                if k != n:
                    continue
                if was:
                    assert was in text, f"{example} step {n} has no {was!r}"
                    text = text.replace(was, new, 1)
                else:
                    text = text.rstrip("\n") + "\n" + new + "\n"
            sub = g.submit(_side(step, sides), text)
            assert sub.refused is None, f"{example} step {n}: {sub.refused}"
    finally:
        if clock is None:
            del os.environ["PBEM_CLOCK"]
        else:
            os.environ["PBEM_CLOCK"] = clock
    return g


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """games(pair) -> (as played, with the secret changed): each base game played once."""
    root = tmp_path_factory.mktemp("pairs")
    base: dict[tuple, Game] = {}
    made: dict[str, tuple[Game, Game]] = {}

    def get(p: Pair) -> tuple[Game, Game]:
        if pair_id(p) in made:
            return made[pair_id(p)]
        key = (p.example, p.steps, p.base)
        if key not in base:
            base[key] = play(p.example, p.steps, root / f"{pair_id(p)}-base", p.base)
        where = root / pair_id(p)
        shutil.rmtree(where, ignore_errors=True)
        if p.edit:
            other = play(p.example, p.steps, where, p.base + p.edit)
        else:
            shutil.copytree(base[key].dir, where)
            other = Game(where)
            seq, head, st, raw = other._at_head()
            records = other.secret_records()
            p.mutate(st, records, other.scenario)
            other._write_cache(head, st, records)
            other = Game(where)
        made[pair_id(p)] = base[key], other
        return made[pair_id(p)]
    return get


# --- what the checker sees, and what it is told -------------------------------------------------------

def seen(g: Game, side: str) -> tuple:
    """Everything ``side`` holds of the game: its copy of the log (hashes and commitments, which differ with
    any secret, set aside), its state, its report's notes, its map's marks."""
    log = []
    for row in log_view(g.entries(), side, g.rules):
        body = dict(row["body"])
        if row["kind"] == "SecretRecorded":
            body["commitment"] = ""
        log.append((row["seq"], row["kind"], sorted(body.items(), key=str)))
    st = g.state()
    view = {k: v for k, v in state_view(g, st, side).items() if k != "head"}
    return log, view, g.rules.report_notes(st, g.scenario, side), g.rules.map_marks(st, g.scenario, side)


def hidden_units(g: Game, side: str) -> set[str]:
    """The units ``side`` has no row for (a hidden gun, a unit beneath the top of a stack)."""
    return set(g.state().units) - {r["id"] for r in unit_rows(g, g.state(), side)}


def battery(p: Pair, g: Game) -> list[str]:
    """The orders tried: the pair's own, the checker's next order file in the example (whole and
    line by line), the checker's deadline defaults."""
    book = _book(p.example)
    sides = g.scenario.side_ids()
    out = list(p.orders)
    nxt = [s for s in book["steps"][p.steps:] if _side(s, sides) == p.checker][:1]
    for step in nxt:
        text = (EXAMPLES / p.example / step).read_text()
        out.append(text)
        out += [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    out.append("\n".join(g.rules.default_orders(g.state(), g.scenario, p.checker)))
    return list(dict.fromkeys(x for x in out if x.strip()))


def answer(g: Game, side: str, text: str) -> str:
    """The CHECK answer and the DRAFT answer to ``text``, the head hash set aside."""
    sub = g.check(side, text)
    assert not sub.internal, f"the check of {text!r} stopped on an error of the rules: {sub.internal}"
    out = check_lines(g, side, sub)
    try:
        out += check_lines(g, side, staging.stage(g, side, text))
        staging.discard(g, side)
    except staging.NotYourStep as e:
        out.append(str(e))
    return HEAD.sub("HEAD", "\n".join(out))


@pytest.mark.parametrize("p", PAIRS, ids=pair_id)
def test_a_check_answers_the_same_whatever_the_other_side_keeps_secret(p, games):
    a, b = games(p)
    side = p.checker
    assert seen(a, side) == seen(b, side), "not a fair pair: the checker can tell the games apart"
    truth = (state_bytes(a.state()), sorted((k, r.payload) for k, r in a.secret_records().items()))
    assert truth != (state_bytes(b.state()), sorted((k, r.payload) for k, r in b.secret_records().items()))
    unseen = hidden_units(a, side) | hidden_units(b, side)
    for text in battery(p, a):
        told = answer(a, side, text)
        assert told == answer(b, side, text), f"{side} learns the {p.secret} from:\n{text}"
        named = {u for u in unseen if re.search(rf"(?<![\w-]){re.escape(u)}(?![\w-])", told)
                 and not re.search(rf"(?<![\w-]){re.escape(u)}(?![\w-])", text)}
        assert not named, f"the answer to {text!r} names {sorted(named)}, which {side} cannot see:\n{told}"
    for text, words in p.expect:
        assert words in answer(a, side, text), answer(a, side, text)


@pytest.mark.parametrize("p", PAIRS, ids=pair_id)
def test_a_check_runs_on_the_same_known_state_and_records(p, games):
    """The structural part: a check of any order sees only these, so every answer is equal."""
    from pbem.core import known as K
    a, b = games(p)
    side = p.checker

    def known(g: Game):
        st = g.state()
        recs = K.known_records(g.secret_records(), st, side)
        return (state_bytes(K.known_state(g.rules, st, g.scenario, side)),
                sorted((k, "sealed" if isinstance(r, K.Sealed) else (r.salt, r.payload)) for k, r in recs.items()))
    assert known(a) == known(b)


# --- the same through the doors a player uses: `pbem order --check|--stage` and CHECK/DRAFT mail ---------

MINES = next(p for p in PAIRS if pair_id(p) == "tobruk-salient-german-hidden-minefield")
PROBE = "# the orders of the next step, then the issue's path into a hidden gun\n" + \
        (EXAMPLES / "tobruk-salient" / "06-german.txt").read_text() + "cross P2 0309 0408 0509 0608 0709 0808 0909\n"


def test_pbem_order_check_and_stage_answer_the_same(games, tmp_path):
    from click.testing import CliRunner
    from pbem.cli import main
    orders = tmp_path / "orders.txt"
    orders.write_text(PROBE)
    out = []
    for g in games(MINES):
        here = tmp_path / g.dir.name
        shutil.copytree(g.dir, here)
        runs = [CliRunner().invoke(main, ["order", str(here), str(orders), "--as", "german", mode])
                for mode in ("--check", "--stage")]
        out.append([(r.exit_code, HEAD.sub("HEAD", r.output)) for r in runs])
    assert out[0] == out[1]
    assert [code for code, _ in out[0]] == [0, 0]
    assert "needs reveal line 3: assault P2 0308 0407 0507 0607" in out[0][0][1]


def test_check_and_draft_mails_answer_the_same(games, tmp_path, monkeypatch):
    from mail_helpers import deliver, make_host, message, outbox, secret, text_of
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)
    bodies = []
    for g in games(MINES):
        host = make_host(tmp_path / g.dir.name)
        shutil.copytree(g.dir, host.cfg.games_dir / g.game_id)
        game = Game(host.cfg.games_dir / g.game_id)
        host.welcome(game)
        got = []
        for word in ("CHECK", "DRAFT"):
            mid = f"{word.lower()}@example.org"
            deliver(host, message("rommel@example.org", f"Token: {secret(game, 'german')}\n\n{word}\n{PROBE}",
                                  subject=f"[pbem {g.game_id}] orders", mid=mid))
            host.poll()
            [answer] = [m for _n, m in outbox(host) if str(m["In-Reply-To"] or "") == f"<{mid}>"]
            got.append(HEAD.sub("HEAD", text_of(answer)))
        bodies.append(got)
    assert bodies[0] == bodies[1]
    assert "needs reveal line" in bodies[0][0] and "STAGED" in bodies[0][1]


def test_a_check_still_checks_what_the_checker_may_know(games):
    """What stays: the lines before the stop are tried and shown, a plainly illegal order is refused with its
    reason and rule (6.03), and the stop names why without saying what is there."""
    g, _ = games(MINES)
    told = "\n".join(check_lines(g, "german", g.check("german", "standing P1 hold\ncross P2 0309 0408\npass\n")))
    assert "would apply  line 1: standing P1 hold" in told
    assert "needs reveal line 2: cross P2 0309 0408: would need the game to reveal something; not checked" in told
    assert "may be (31.15, 32.211)" in told and "not checked  pass (depends on what it would reveal)" in told
    told = "\n".join(check_lines(g, "german", g.check("german", "cross P2 0309 0508\n")))
    assert "would REFUSE line 1: 0508 is not adjacent to 0309: a move goes hex by hex (rule 6.03)" in told
    assert g.check("german", "cross P2 0309 0508\n").refused.rule == "6.03"


def test_fire_at_a_counter_that_may_be_the_dummy_is_not_checked(tmp_path):
    """Advanced Tobruk 32.241: fire at a dummy removes it unfired, so a check of that fire would tell a dummy
    from a panzer; with V8 or V9 the dummy (the card allows either), the British hear the same."""
    from test_tobruk_fog_kit import DIRECT, U, goto, make
    # V8 and V9 in scrub stay FOW side up (32.12); V7, in the open, turns Tk1 over in both games
    units = [U("Tk1", "british", "a13", "0603", facing="SSE"), U("V9", "german", "pz3g", "0607", facing="NNE"),
             U("V8", "german", "pz3g", "0409", facing="NNE"), U("V7", "german", "pz3g", "0605", facing="NNE")]
    ssr = 'limited_intelligence = true\nconditions = "dusk"\ndummies = { german = { counters = ["V8", "V9"], count = 1 } }'
    told, games = [], []
    for dummy in ("V9", "V8"):
        (tmp_path / dummy).mkdir()
        t = make(tmp_path / dummy, units, ssr=ssr, dice=(2, 1) * 4, german=(f"note dummy {dummy}", "pass"))
        goto(t, 1, DIRECT)
        t.ok("german", "pass")
        games.append(t.game)
        told.append(answer(t.game, "british", "fire Tk1 at V9"))
    assert seen(games[0], "british") == seen(games[1], "british")
    assert told[0] == told[1]
    assert "needs reveal line 1: fire Tk1 at V9" in told[0] and "V9 may be a dummy" in told[0]
