"""A random-order fuzzer for every example game (issue 26), as Rally the Troops' fuzzer.

From a position of an example (its playbook replayed to step K into a game folder of its
own) the fuzzer plays on: it asks the game what it waits for (``Ruleset.awaiting``), picks
one of the sides awaited, and sends it, through ``Game.submit`` as a player's mail would,
either that side's deadline default (as the host builds it, with the side's own sealed notes:
``host_default``; sent ``by="deadline"`` as the host sends it) or orders made up from the position: the syntax lines of
HELP (``Turn.help``, from the game's order forms) filled with the side's unit ids and hexes near
them, the examples HELP gives, the set-up choices (``Turn.setup``), the options ``awaiting`` lists, one-word
answers (end, pass, no-advance) and now and then garbage; often the first of a few such
lines that ``Game.check`` accepts (not a one-word answer if it can), so play goes deep.
Refusals are fine.  It fails on:

  crash            ``submit``, ``check``, a hook (awaiting, default_orders, HELP, the
                   set-up choices, awaiting_view, phase_side) or, at the end, a side's or the
                   referee's text report raised instead of answering
  dead end         no result, yet nothing awaited from any side, or no default for any
                   side awaited (a host would wait for ever)
  default refused  an awaited side's deadline default refused by ``submit`` (applied in part,
                   then refused because the game now waits for another side, is fine)
  no end           (with ``finish``) the deadline defaults alone did not end the game
  replay           the state the orders built live differs from a replay of the log, or
                   ``Game.verify()`` finds a problem (every order re-run)

Everything random comes from ``random.Random("SEED:EXAMPLE:START")``, so a run is
reproduced by its seed, example and start step; a failure prints them with the order
lines tried.  The suite runs it briefly (tests/test_fuzz_games.py); developers run longer:

    .venv/bin/python tests/fuzz_games.py --seeds 1-20 --orders 400 --starts all
    .venv/bin/python tests/fuzz_games.py --example kharkov --start 7 --seed 3 --orders 400 -v
"""
from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
import time
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from pbem.core.turn import Turn

HERE = Path(__file__).resolve().parent
EXAMPLES_DIR = HERE.parent / "examples"
EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.iterdir() if (p / "playbook.toml").is_file())
CLOCK = "2026-01-01T00:00:00Z"
CORE_VERBS = {"move", "break", "attack", "retreat", "advance", "no-advance", "end", "secret", "unveil", "press"}
SPINES = ["N", "NNE", "NE", "E", "SE", "SSE", "S", "SSW", "SW", "W", "NW", "NNW"]
HEX = re.compile(r"\b[0-9]{4}\b")


# --- start positions ---------------------------------------------------------------------

def playbook(example: str) -> tuple[Path, dict]:
    folder = EXAMPLES_DIR / example
    return folder, tomllib.loads((folder / "playbook.toml").read_text())


def step_side(step: str, sides: list[str]) -> str:
    return next(s for s in sides if Path(step).stem.endswith("-" + s))


def positions(example: str, starts: list[int], into: Path) -> dict[int, Path]:
    """Game folders of ``example`` after its first K order files, for each K in ``starts``
    (played once, copied at each K): ``{K: folder}``.  Orders are applied as `pbem play`
    does, the clock pinned; the seed is not revealed."""
    from pbem.engine import Game
    folder, book = playbook(example)
    into.mkdir(parents=True, exist_ok=True)
    work = into / "play" / "game"                 # the game id comes from the playbook, else "game"
    game = Game.create(work, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                       game_id=book.get("id") or "game", at=CLOCK)
    sides = game.scenario.side_ids()
    out: dict[int, Path] = {}
    want = sorted(set(starts))
    for k in range(0, max(want) + 1):
        if k:
            step = book["steps"][k - 1]
            sub = game.submit(step_side(step, sides), (folder / step).read_text(), at=CLOCK)
            if sub.refused is not None:
                raise RuntimeError(f"{example} {step}: {sub.refused}")
        if k in want:
            dest = into / f"start-{k}" / "game"
            shutil.copytree(work, dest.parent / "game", symlinks=True)
            out[k] = dest
    return out


def walk(example: str, into: Path):
    """The example played one order line at a time, as separate submissions: yields the game
    before each line and once at the end (every state a player could find it in)."""
    from pbem.core import orders as O
    from pbem.engine import Game
    folder, book = playbook(example)
    game = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                       game_id=book.get("id") or "game", at=CLOCK)
    sides = game.scenario.side_ids()
    for step in book["steps"]:
        side = step_side(step, sides)
        for ln in O.parse((folder / step).read_text(), game.rules.verbs):
            yield game
            sub = game.submit(side, ln.text, at=CLOCK)
            if sub.refused is not None:
                raise RuntimeError(f"{example} {step}: {sub.refused}")
    yield game


def step_count(example: str) -> int:
    return len(playbook(example)[1]["steps"])


# --- orders made up from the position ----------------------------------------------------

def _tokens(text: str) -> list[str]:
    text = re.sub(r"UNIT\[\+UNIT(\.\.\.)?\]", "UNIT+", text)
    return re.findall(r"\[|\]|[^\s\[\]]+", text)


def _parse(toks: list[str], i: int = 0) -> tuple[list[list], int]:
    """Alternatives (split at a top-level "|") of items: a word, or ("opt", alternatives)."""
    alts: list[list] = [[]]
    while i < len(toks):
        t = toks[i]
        if t == "]":
            return alts, i + 1
        if t == "[":
            inner, i = _parse(toks, i + 1)
            alts[-1].append(("opt", inner))
            continue
        if t == "|":
            alts.append([])
        else:
            alts[-1].append(t)
        i += 1
    return alts, i


def _syntax(line: str) -> str:
    """The syntax part of a HELP line ("SYNTAX    what it does")."""
    return re.split(r"\s{3,}", line.strip(), maxsplit=1)[0]


def _strip_parens(text: str) -> str:
    while True:
        new = re.sub(r"\([^()]*\)", "", text)
        if new == text:
            return text
        text = new


class Maker:
    """Order lines for ``side`` at ``st``, made from what the game offers there."""

    def __init__(self, rng: random.Random, game, st, side: str, waits: list[dict]):
        self.rng, self.game, self.st, self.side = rng, game, st, side
        rules, sc = game.rules, game.scenario
        self.sc, self.grid = sc, sc.board.grid
        self.verbs = CORE_VERBS | set(rules.verbs)
        turn = Turn(rules, sc, st)
        self.help = list(turn.help(side))
        self.setup = list(turn.setup(side))
        self.default = host_default(game, st, side)
        self.waits = [w for w in waits if w.get("side") == side]
        units = [u for u in st.units.values() if not u.eliminated]
        self.own_on = sorted((u for u in units if u.side == side and u.hex), key=lambda u: u.id)
        self.own_off = sorted((u for u in units if u.side == side and not u.hex), key=lambda u: u.id)
        self.foes = sorted((u for u in units if u.side != side and u.hex), key=lambda u: u.id)
        self.all_ids = sorted(st.units)
        # pools from what the game says it waits for
        self.wait_units: list[str] = []
        self.hexes: list[str] = []
        self.words: list[str] = []
        self._harvest(self.waits)
        for ln in self.setup:
            self.hexes += HEX.findall(ln)
            self.words += re.findall(r"^activate (\S+)", ln)
        self.names = sorted({k.split(":", 1)[1] for k in st.secrets if k.startswith(side + ":")})
        self.templates, self.examples = self._offers()

    def _harvest(self, v) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k not in ("side", "kind", "rule", "order"):
                    self._harvest(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                self._harvest(x)
        elif isinstance(v, str):
            for tok in re.split(r"[\s,:]+", v):
                if tok in self.st.units:
                    self.wait_units.append(tok)
                elif HEX.fullmatch(tok):
                    self.hexes.append(tok)
                elif re.fullmatch(r"[a-z][a-z0-9_-]{1,20}", tok):
                    self.words.append(tok)

    def _offers(self) -> tuple[list[tuple[str, list[str]]], list[str]]:
        """(templates with the hexes their line names, ready-made lines)."""
        templates: list[tuple[str, list[str]]] = []
        examples: list[str] = []

        def add(text: str, hexes: list[str]) -> None:
            for alt in re.split(r"\s\|\s|;\s|,\s+then\s|\s/\s", _strip_parens(text)):
                alt = alt.strip().rstrip(",.;")
                if alt.startswith("then "):
                    alt = alt[5:]
                if alt and alt.split()[0].lower() in self.verbs:
                    templates.append((alt, hexes))
        for ln in self.help:
            examples += [e.strip() for e in re.findall(r"\(e\.g\. ([^)]*)\)", ln)]
            add(_syntax(ln), [])
        for ln in self.setup:
            local = HEX.findall(ln)
            for part in re.split(r":\s", ln):
                first = _syntax(part)
                if first.split() and first.split()[0] in self.verbs and not re.search(r"[A-Z]{3,}", first):
                    examples.append(first)
                add(first, local)
        for w in self.waits:
            order = w.get("order", "")
            add(order, [])
            verb = order.split()[0] if order.split() else ""
            for opt in w.get("options", []) or []:
                if not isinstance(opt, str):
                    continue
                if opt.split() and opt.split()[0] in self.verbs:
                    examples.append(opt)
                elif verb in self.verbs:
                    head, _, choices = opt.partition(": ")
                    pick = self.rng.choice(choices.split()) if choices.split() else ""
                    examples.append(f"{verb} {head} {pick}".strip() if choices else f"{verb} {opt}")
        examples = [e for e in examples if "UNIT" not in e and "HEX" not in e]
        return templates, examples

    # fillers ------------------------------------------------------------------------

    def unit(self) -> str:
        r, pools = self.rng.random(), []
        if r < 0.35 and self.wait_units:
            pools = self.wait_units
        elif r < 0.75 and self.own_on:
            pools = [u.id for u in self.own_on]
        elif r < 0.9 and self.own_off:
            pools = [u.id for u in self.own_off]
        return self.rng.choice(pools or self.all_ids or ["X"])

    def near(self, at: str | None, local: list[str]) -> str:
        rng = self.rng
        r = rng.random()
        if local and (r < 0.6 or not at):
            return rng.choice(local)
        if at and self.grid.contains(at):
            if r < 0.75:
                return rng.choice(self.grid.neighbours(at) or [at])
            if r < 0.85:
                foes = [u.hex for u in self.foes if self.grid.distance(at, u.hex) <= 2]
                if foes:
                    return rng.choice(foes)
            if r < 0.95:
                return rng.choice(self.grid.within(at, 3) or [at])
        if self.hexes and r < 0.97:
            return rng.choice(self.hexes)
        return rng.choice(self.grid.all_hexes())

    def word(self, tok: str, ctx: dict) -> str:
        """One template word filled in."""
        rng = self.rng
        if "|" in tok and tok != "|":
            return self.word(rng.choice([t for t in tok.split("|") if t] or [tok]), ctx)
        base = tok.rstrip(",.")
        if base in ("UNIT", "VEHICLE", "UNIT+"):
            u = self.unit()
            if ctx.get("unit") is None:
                ctx["unit"] = u
                ctx["at"] = getattr(self.st.units.get(u), "hex", None)
            if base == "UNIT+" and rng.random() < 0.4:
                u += "+" + self.unit()
            return u
        if base in ("HEX", "STEP"):
            if base == "STEP" and rng.random() < 0.3:
                return rng.choice(["face " + rng.choice(SPINES), "back " + self.near(ctx.get("at"), []),
                                   "turret " + rng.choice(SPINES), "off", "continue",
                                   "overrun " + (rng.choice(self.foes).id if self.foes else "X")])
            h = self.near(ctx.get("last") or ctx.get("at"), ctx.get("local", []))
            ctx["last"] = h
            return h
        if base in ("TARGET", "AIR"):
            if self.foes and rng.random() < 0.7:
                return rng.choice(self.foes).id
            return self.near(ctx.get("at"), [])
        if base == "FORT":
            return rng.choice(self.words + [u.id for u in self.foes] or ["F1"])
        if base in ("SPINE",):
            return rng.choice(SPINES)
        if base == "FORMATION":
            return rng.choice(self.words or ["x"])
        if base == "NAME":
            return rng.choice(self.names + ["a", "note", "dummy-1", "drop-plan", "polish-dz"])
        if base == "TEXT":
            return rng.choice(["hello", "0101", "x y z", "\u00e9t\u00e9", "42"])
        if base in ("N", "NN"):
            return str(rng.choice([0, 1, 2, 3, 5, 9, 13, 99]))
        if base in ("W,...", "WEAPON,...", "WEAPON"):
            return rng.choice(["MG", "gun", "main", "HE"])
        if re.fullmatch(r"[a-z-]+-N+", base):                      # dummy-N, mine-NN
            return base.rstrip("N") + str(rng.randint(1, 12)).zfill(base.count("N"))
        if re.fullmatch(r"[a-z]+=N", base):                       # west=N
            return base[:-1] + str(rng.randint(0, 9))
        if re.fullmatch(r"[A-Z][A-Z_]+", base):                    # KIND, TABLE, CREW, HASH ...
            return rng.choice(self.words + [u.id for u in self.own_off + self.own_on][:20] + ["1", "x"])
        return tok

    def fill(self, alts: list[list], ctx: dict) -> list[str]:
        out: list[str] = []
        items = self.rng.choice(alts) if alts else []
        prev = None
        for it in items:
            if isinstance(it, tuple):
                if self.rng.random() < 0.5:
                    out += self.fill(it[1], ctx)
                continue
            if it in ("...", "…"):
                for _ in range(self.rng.randint(0, 3)):
                    if prev is not None:
                        out.append(self.word(prev, ctx))
                continue
            out.append(self.word(it, ctx))
            prev = it
        return out

    def from_template(self) -> str:
        text, local = self.rng.choice(self.templates)
        alts, _ = _parse(_tokens(text))
        return " ".join(self.fill(alts, {"local": local, "unit": None, "at": None})).strip()

    def garbage(self) -> str:
        rng = self.rng
        verb = rng.choice(sorted(self.verbs))
        junk = rng.choice([
            "", "#", "x" * 300, "\u202eevil", "0000", "9999", "-1", "99999999999999999999", "+", "with",
            "at", "0101 0101 0101", "UNIT", "HEX", "::", "a|b", "\x00", "\t", "[", "]",
        ])
        return rng.choice([
            f"{verb} {junk}", f"{verb}", junk or "?", f"{verb} {self.unit()} {junk}",
            f"{verb} {' '.join(self.near(None, []) for _ in range(rng.randint(1, 12)))}",
            f"{verb} {self.unit()} {self.unit()} {self.unit()}", f"{verb.upper()} {self.unit().lower()}",
        ])

    def line(self) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.5 and self.templates:
            return self.from_template()
        if r < 0.7 and self.examples:
            return rng.choice(self.examples)
        if r < 0.78 and self.default:
            return rng.choice(self.default)
        if r < 0.9:
            return rng.choice(["end", "pass", "no-advance", "transfer", "delay", "react pass", "bonus pass",
                               "rbc no", "spare", "demolish", "disrupt"])
        return self.garbage()

    def batch(self) -> str:
        n = self.rng.choice([1, 1, 1, 1, 2, 3])
        return "\n".join(self.line() for _ in range(n))


# --- one run ---------------------------------------------------------------------------

@dataclass
class Failure:
    kind: str
    message: str
    example: str
    start: int
    seed: int
    trace: list[str]
    orders: int = 0                                 # submissions to replay it
    p_default: float = 0.3

    def __str__(self) -> str:
        tail = self.trace[-30:]
        more = f"  ... {len(self.trace) - 30} earlier submissions\n" if len(self.trace) > 30 else ""
        return (f"{self.kind}: {self.example} from step {self.start}, seed {self.seed}: {self.message}\n"
                f"  replay: .venv/bin/python tests/fuzz_games.py --example {self.example} --start {self.start} "
                f"--seed {self.seed} --orders {self.orders} --p-default {self.p_default} -v\n" + more + "".join(f"  {t}\n" for t in tail))


@dataclass
class Outcome:
    example: str
    start: int
    seed: int
    submitted: int = 0
    applied: int = 0
    defaults: int = 0
    over: bool = False
    failures: list[Failure] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)


def host_default(game, st, side: str) -> list[str]:
    """``side``'s deadline default as the host builds it (pbem/host/deadlines.py): the Turn of
    ``st`` with the host's sealed records, so a step's default reads the side's own notes."""
    from pbem.core.turn import Turn
    return Turn(game.rules, game.scenario, st, sealed=game.secret_records()).default_lines(side)


def _hooks(game, st, sides: list[str]) -> list[dict]:
    """Every hook a host or a report calls on a state, for every side (a crash is a failure)."""
    rules, sc = game.rules, game.scenario
    waits = rules.awaiting(st, sc)
    rules.phase_side(st, sc)
    for s in sides:
        rules.default_orders(st, sc, s)
        turn = Turn(rules, sc, st)
        turn.help(s)                 # HELP and the set-up choices, from the order forms (core/forms.py)
        turn.setup(s)
        rules.awaiting_view(st, sc, list(waits), s)
    return waits


def fuzz(game_dir: Path, example: str, start: int, seed: int, orders: int = 100,
         p_default: float = 0.3, finish: int = 0, verbose: bool = False, p_legal: float = 0.4) -> Outcome:
    """Play ``orders`` submissions on the game in ``game_dir`` (then, with ``finish``, up to
    that many deadline defaults to the end of the game) and check it as the module says."""
    from pbem.core.state import state_bytes
    from pbem.engine import Game
    rng = random.Random(f"{seed}:{example}:{start}")
    out = Outcome(example, start, seed)
    game = Game(game_dir)
    sides = game.scenario.side_ids()

    def fail(kind: str, message: str) -> None:
        out.failures.append(Failure(kind, message, example, start, seed, list(out.trace), n, p_default))

    def crash(where: str) -> None:
        fail("crash", f"{where} raised:\n" + traceback.format_exc())

    n = 0
    while n < orders + finish:
        defaults_only = n >= orders
        n += 1
        try:
            st = game.state()
            waits = _hooks(game, st, sides)
        except Exception:
            crash("a hook")
            break
        if st.result is not None:
            out.over = True
            break
        awaited = sorted({w["side"] for w in waits})
        if not awaited:
            fail("dead end", f"seq {st.seq}: no result, and the game waits for no side")
            break
        defaults = {s: host_default(game, st, s) for s in awaited}
        if not any(defaults.values()):
            fail("dead end", f"seq {st.seq}: no awaited side has a default ({', '.join(awaited)})")
            break
        side = rng.choice(awaited)
        by = ""
        if defaults_only or rng.random() < p_default:
            if not defaults[side]:
                side = rng.choice([s for s in awaited if defaults[s]])
            text, by = "\n".join(defaults[side]), "deadline"
        else:
            if rng.random() < 0.05:
                side = rng.choice(sides)             # a side the game does not wait for may write too
            try:
                maker = Maker(rng, game, st, side, waits)
                text = maker.batch()
            except Exception:
                crash("making orders from the hooks")
                break
            try:
                if rng.random() < p_legal:
                    # as Rally the Troops' fuzzer picks among legal actions: the first of a few
                    # made-up lines that a check does not refuse (it may stop at a die)
                    short = ""
                    for _ in range(8):
                        line = maker.line()
                        if game.check(side, line).refused is None:
                            if len(line.split()) > 1:
                                text = line
                                break
                            short = short or line
                    else:
                        text = short or text
                elif rng.random() < 0.1:
                    game.check(side, text)
            except Exception:
                out.trace.append(f"{side} check: {text!r}")
                crash("Game.check")
                break
        try:
            sub = game.submit(side, text, at=CLOCK, by=by)
        except Exception:
            out.trace.append(f"{side}{' (default)' if by else ''}: {text!r} -> CRASH")
            crash("Game.submit")
            break
        out.submitted += 1
        out.applied += len(sub.applied)
        out.defaults += bool(by)
        verdict = f"refused: {sub.refused}" if sub.refused else f"applied, seq {sub.seq}"
        out.trace.append(f"{side}{' (default)' if by else ''}: {text!r} -> {verdict}")
        if verbose:
            print(out.trace[-1])
        if by and sub.refused is not None:
            # Applied in part, then refused because the game now waits for another side (a
            # decision an order raised): the host applies what it can, as it should.
            try:
                still = side in {w["side"] for w in game.rules.awaiting(game.state(), game.scenario)}
            except Exception:
                crash("a hook")
                break
            if not sub.applied or still:
                fail("default refused", f"seq {st.seq}: {side}'s deadline default {defaults[side]} was refused: "
                                        f"{sub.refused}")
                break
    if finish and not out.over and not out.failures:
        fail("no end", f"{finish} deadline defaults in a row did not end the game (seq {game.state().seq})")
    # replay equals live, and verify re-runs every order
    fresh = None
    try:
        live = game.state()
        fresh = Game(game_dir)
        replayed = fresh.replay(fresh.iter_entries())
        if state_bytes(replayed) != state_bytes(live):
            fail("replay", "the state built by the orders differs from the replay of the log")
        rep = fresh.verify()
        if not rep.ok or any("did not match" in x for x in rep.notes):
            fail("replay", "verify: " + "; ".join(rep.problems + rep.notes))
    except Exception:
        crash("replay/verify")
    try:                                            # what every side and the referee would be mailed
        from pbem.report import render
        if fresh is None:
            return out
        entries = fresh.entries()
        for viewer in sides + ["referee"]:
            render.report_text(fresh, viewer, live, entries, 0, entries[-1].hash)
    except Exception:
        crash("the text report")
    return out


def run_example(example: str, starts: list[int], seeds: list[int], orders: int, root: Path,
                finish: int = 0, verbose: bool = False, p_default: float = 0.3) -> list[Outcome]:
    """Every (start, seed) of ``example``; each run on its own copy of the start position."""
    pos = positions(example, starts, root / example)
    outs = []
    for k in sorted(set(starts)):
        for seed in seeds:
            dest = root / example / f"run-{k}-{seed}" / "game"
            shutil.copytree(pos[k], dest, symlinks=True)
            outs.append(fuzz(dest, example, k, seed, orders, p_default, finish=finish, verbose=verbose))
            shutil.rmtree(dest.parent)
    return outs


def _ints(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Exit status 1 when any run failed; each failure says how to replay it.")
    ap.add_argument("--example", action="append", help=f"an example (repeatable; default all): {', '.join(EXAMPLES)}")
    ap.add_argument("--seeds", "--seed", default="1", help="seeds: 1 | 1-20 | 1,5,9 (default 1)")
    ap.add_argument("--starts", default="3", help="N random start steps per example (default 3), or all")
    ap.add_argument("--start", help="exact start steps instead: K | K1,K2 | K1-K2 (the order files played first)")
    ap.add_argument("--orders", type=int, default=200, help="submissions per run (default 200)")
    ap.add_argument("--finish", type=int, default=0,
                    help="then up to this many deadline defaults, to play the game to its end")
    ap.add_argument("--p-default", type=float, default=0.3,
                    help="the chance a submission is the side's deadline default (default 0.3; lower: "
                         "more made-up orders on each position, slower progress)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every submission")
    ns = ap.parse_args(argv)
    sys.path.insert(0, str(HERE.parent))
    examples = ns.example or EXAMPLES
    seeds = _ints(ns.seeds)
    total, bad, t0 = 0, [], time.process_time()
    with tempfile.TemporaryDirectory(prefix="pbem-fuzz-") as tmp:
        for ex in examples:
            n = step_count(ex)
            if ns.start:
                starts = [k for k in _ints(ns.start) if k < n]
            elif ns.starts == "all":
                starts = list(range(n))
            else:
                pick = random.Random(f"starts:{ex}:{ns.seeds}")
                starts = sorted(pick.sample(range(n), min(n, int(ns.starts))))
            outs = run_example(ex, starts, seeds, ns.orders, Path(tmp), finish=ns.finish, verbose=ns.verbose,
                               p_default=ns.p_default)
            for o in outs:
                total += 1
                bad += o.failures
            print(f"{ex:20} starts {starts} seeds {ns.seeds}: {sum(o.submitted for o in outs)} submitted, "
                  f"{sum(o.applied for o in outs)} orders applied, {sum(o.defaults for o in outs)} defaults, "
                  f"{sum(o.over for o in outs)}/{len(outs)} reached the end, "
                  f"{sum(len(o.failures) for o in outs)} failures", flush=True)
            for f in (f for o in outs for f in o.failures):
                print(f, flush=True)
    print(f"{total} runs, {len(bad)} failures, {time.process_time() - t0:.1f} s CPU")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
