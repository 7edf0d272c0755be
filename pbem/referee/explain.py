"""`pbem explain`: why one event of the log happened, for a referee settling a
dispute, or for one side (``viewer``) looking at what it may see.

For an event at seq N it gathers:

- the order that caused it: the ``OrderGiven`` before it (seq n), who gave it,
  and every event that order produced (n .. m);
- the rule sections the events record (``rule`` fields, ``modifiers``);
- the table lookups they record (strengths, odds column or differential,
  result), and for a Combat Results Table lookup the scenario's own cell;
- every die roll with its derivation: roll k of order n is
  ``HMAC-SHA256(seed, "GAME_ID:n:k")`` read by rejection sampling
  (pbem/core/dice.py), shown step by step when the seed may be used: once
  revealed in the log (anyone), or from the host's seed file (referee only);
  otherwise "not checkable before the reveal";
- the difference in the state between before and after (units moved,
  strengths, markers, score, result, what the game waits for).

What a side may see is decided only by pbem/views.py: every event goes
through ``views.visible_event`` (and is worded by ``render.describe``), the
state through ``views.state_view``.  The order is re-run through the rules
once (as ``pbem verify`` does) only to learn how many faces each die had; for
a side, only the rolls its own view of the events shows are listed.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Any

import msgspec

from pbem.core import dice as D
from pbem.core import events as E
from pbem.core import orders as O
from pbem.core.reduce import secret_commitment
from pbem.core.ruleset import Ctx, dispatch
from pbem.core.state import GameState, copy_state
from pbem.core.turn import step_line
from pbem.engine import EngineError, Entry, Game
from pbem.report.render import describe
from pbem.views import REFEREE, check_viewer, result_text, state_view, visible_event

# Fields of events that record a table lookup or what went into one, in the order shown.
LOOKUP_FIELDS = ("attack_strength", "defence_strength", "fire_strength", "target_strength", "rating",
                 "differential", "odds", "column", "shifts", "row", "table", "total", "result", "effect",
                 "score", "destroyed", "active", "count", "level")
_RULE_NO = re.compile(r"(?<![\w.])\d{1,2}\.\d{1,2}(?:\(\d{1,2}\))*(?![\w.])")
_SPACE = 2 ** 32                    # dice.py reads 4-byte big-endian candidates


class ExplainError(EngineError):
    """A request explain cannot answer (no such event): one line for the user."""


# --- dice --------------------------------------------------------------------------------

def derive_roll(seed: bytes, game_id: str, n: int, k: int, sides: int) -> dict:
    """Roll k of order n, step by step, exactly as pbem/core/dice.py derives it:
    HMAC blocks for "GAME:n:k", "GAME:n:k:1", ...; each read as eight 4-byte
    big-endian values v; the first v < limit gives v % sides + 1.  The face
    is checked against dice.roll itself."""
    limit = (_SPACE // sides) * sides
    base = f"{game_id}:{n}:{k}"
    steps: list[dict] = []
    face = None
    i = 0
    while face is None:
        msg = base if i == 0 else f"{base}:{i}"
        block = hmac.new(seed, msg.encode("utf-8"), hashlib.sha256).digest()
        for off in range(0, len(block), 4):
            v = int.from_bytes(block[off:off + 4], "big")
            ok = v < limit
            steps.append({"message": msg, "block": block.hex(), "offset": off, "v": v, "accepted": ok})
            if ok:
                face = v % sides + 1
                break
        i += 1
    if face != D.roll(seed, game_id, n, k, sides):       # never: the same algorithm
        raise AssertionError("explain's derivation disagrees with pbem.core.dice.roll")
    return {"message": base, "limit": limit, "steps": steps, "face": face}


class _Tracing:
    """Replays the recorded rolls and notes how many faces the rules asked for, and
    (dice scheme 2) the turn each roll was made in and whose chain it came from."""

    def __init__(self, inner: D.RecordedDice):
        self.inner = inner
        self.sides: list[int] = []
        self.where: list[tuple[int, str]] = []      # (turn, owner: "" for the turn chain)
        self.state = None

    def bind(self, state) -> None:
        self.state = state

    def roll(self, sides: int, owner: str = "") -> int:
        self.sides.append(sides)
        self.where.append((self.state.turn if self.state is not None else 0, owner))
        return self.inner.roll(sides)

    def secret_roll(self, sides: int, owner: str) -> int:
        return self.roll(sides, owner)

    def salt(self) -> str:
        return self.inner.salt()


@dataclass
class SeedSource:
    """Which seed may be used for this viewer, and why (not)."""
    seed: bytes | None
    how: str                        # "revealed" | "seed-file" | "scripted" | "secret"
    note: str


# --- the explainer -------------------------------------------------------------------------

class Explainer:
    """Explains events of one game for one viewer.  States are replayed once,
    on demand, and kept by seq, so many explanations cost one pass."""

    def __init__(self, game: Game, viewer: str = REFEREE, entries: list[Entry] | None = None):
        viewer = check_viewer(game, viewer)
        self.game, self.viewer = game, viewer
        self.sc, self.rules = game.scenario, game.rules
        self.entries = entries if entries is not None else game.entries()
        self._states: dict[int, GameState] = {}
        self._views: dict[int, dict] = {}
        self._seed: SeedSource | None = None

    # states ----------------------------------------------------------------------------

    def states(self, seqs) -> dict[int, GameState]:
        """The state after each seq in ``seqs`` (-1: before anything), one replay pass."""
        want = sorted(set(s for s in seqs if s not in self._states))
        if want:
            st = self.game.new_state()
            todo = iter(want)
            nxt = next(todo)
            while nxt is not None and nxt < 0:
                self._states[nxt] = copy_state(st)
                nxt = next(todo, None)
            for en in self.entries:
                if nxt is None:
                    break
                if en.seq > 0:
                    self.rules.apply(st, en.event, self.sc)
                st.seq = en.seq
                while nxt is not None and nxt == en.seq:
                    self._states[nxt] = copy_state(st)
                    nxt = next(todo, None)
        return {s: self._states[s] for s in seqs}

    def view(self, seq: int) -> dict:
        """The state after ``seq`` as the viewer may see it (views.state_view)."""
        v = self._views.get(seq)
        if v is None:
            st = self.states([seq])[seq]
            head = self.entries[seq].hash if seq >= 0 else ""
            v = self._views[seq] = state_view(self.game, st, self.viewer, head)
        return v

    # the order an event belongs to ---------------------------------------------------------

    def span(self, seq: int) -> tuple[int, int] | None:
        """(n, m): the OrderGiven at or before ``seq`` and the last event it produced;
        None for the opening events and for E.STANDALONE events (no order caused them)."""
        ents = self.entries
        if isinstance(ents[seq].event, E.STANDALONE):
            return None
        n = seq
        while n >= 0 and not isinstance(ents[n].event, E.OrderGiven):
            if isinstance(ents[n].event, E.STANDALONE):
                return None
            n -= 1
        if n < 0:
            return None
        m = n + 1
        while m < len(ents) and not isinstance(ents[m].event, (E.OrderGiven, *E.STANDALONE)):
            m += 1
        return n, m - 1

    def steps(self) -> list[tuple[int, int]]:
        """The log cut into steps: the opening events, then one step per order
        (with its effects), and the seed's reveal on its own."""
        out: list[tuple[int, int]] = []
        start = 0
        for en in self.entries[1:]:
            if isinstance(en.event, (E.OrderGiven, *E.STANDALONE)):
                out.append((start, en.seq - 1))
                start = en.seq
        out.append((start, self.entries[-1].seq))
        return out

    # seed ---------------------------------------------------------------------------------

    def seed_source(self) -> SeedSource:
        if self._seed is None:
            self._seed = self._find_seed()
        return self._seed

    def _find_seed(self) -> SeedSource:
        created = self.game.created
        if created.dice_mode == "scripted":
            return SeedSource(None, "scripted", "scripted dice: every roll was fixed in advance in GameCreated "
                                                 "(tests, teaching); there is no seed")
        commit = created.seed_commitment
        for en in self.entries:
            if isinstance(en.event, E.SeedRevealed):
                try:
                    seed = bytes.fromhex(en.event.seed)
                except ValueError:
                    seed = b""
                if D.check_reveal(seed, commit):
                    return SeedSource(seed, "revealed", f"the seed revealed at seq {en.seq} matches the "
                                                        f"commitment sha256(seed) = {commit} in GameCreated")
                return SeedSource(None, "secret", f"the seed revealed at seq {en.seq} does NOT match the "
                                                   f"commitment {commit}: no roll can be checked")
        if self.viewer == REFEREE:
            try:
                seed = D.read_seed(self.game.dir / "seed", commit)
            except D.DiceError as e:
                return SeedSource(None, "secret", "not checkable before the reveal: the seed is secret (the log "
                                                  f"holds only its commitment {commit}) and no seed file is "
                                                  f"readable here ({e})")
            return SeedSource(seed, "seed-file", f"checked with the host's seed file (not yet revealed; it "
                                                 f"matches the commitment {commit})")
        return SeedSource(None, "secret", "not checkable before the reveal: the seed is secret until the host "
                                          f"reveals it (the log holds only its commitment {commit})")

    def _die_sides(self, n: int, m: int) -> tuple[list[int] | None, str]:
        """Faces of every die order n rolled, learnt by re-running it on the state
        before it with the recorded rolls (as verify does without the seed)."""
        given = self.entries[n].event
        logged = [en.event for en in self.entries[n:m + 1]]
        recorded = [r for ev in logged for r in getattr(ev, "rolls", None) or []]
        if not recorded:
            return [], ""
        salts = [ev.salt for ev in logged if isinstance(ev, E.SecretRecorded)]
        tracer = _Tracing(D.RecordedDice(list(recorded), salts))
        self._where = tracer.where
        try:
            ctx = Ctx(self.rules, copy_state(self.states([n - 1])[n - 1]), self.sc, given.side, tracer)
            tracer.bind(ctx.state)
            ctx.secret_records = self.game.secret_records(self.entries[:n])
            ctx.emit(given)
            dispatch(self.rules, ctx, O.parse_line(given.text, self.rules.verbs))
        except Exception as e:                          # noqa: BLE001 - any failure: say so, go on
            why = f" ({type(e).__name__}: {e})" if self.viewer == REFEREE else ""   # its words may name secrets
            return None, f"the order could not be re-run{why}; pbem verify tells why"
        if len(tracer.sides) != len(recorded):
            return None, "re-running the order rolled a different number of dice; run pbem verify"
        note = "" if ctx.events == logged else "re-running the order gives other events than the log; run pbem verify"
        return tracer.sides, note

    def dice(self, n: int, m: int, only: tuple[int, int] | None = None) -> dict:
        """The rolls of order n (events n..m) that this viewer may see; ``only``
        limits them to the rolls recorded by the events in that seq range."""
        src = self.seed_source()
        sides, note = self._die_sides(n, m)
        before = self.states([n - 1])[n - 1]
        rows = []
        k = 0
        for en in self.entries[n:m + 1]:
            mine = list(getattr(en.event, "rolls", None) or [])
            seen = getattr(visible_event(en.event, self.viewer, self.rules), "rolls", None) or []
            shown = list(seen) == mine
            for j, value in enumerate(mine):
                kk = k + j
                if shown and (only is None or only[0] <= en.seq <= only[1]):
                    rows.append(self._roll_row(n, kk, value, en, sides[kk] if sides else None, src, before))
            k += len(mine)
        scope = [en for en in self.entries[n:m + 1] if only is None or only[0] <= en.seq <= only[1]]
        hidden = any(list(getattr(visible_event(en.event, self.viewer, self.rules), "rolls", None) or [])
                     != list(getattr(en.event, "rolls", None) or []) for en in scope)
        return {"mode": self.game.created.dice_mode, "source": src.how, "note": src.note,
                "rerun": note, "rolls": rows, "hidden": hidden}

    def _roll_row(self, n: int, k: int, value: int, en: Entry, sides: int | None, src: SeedSource,
                  before: GameState) -> dict:
        row: dict[str, Any] = {"order": n, "k": k, "event": en.seq, "kind": en.kind, "value": value,
                               "sides": sides, "message": f"{self.game.game_id}:{n}:{k}"}
        if sides is None:
            row["sides"] = self.sc.die
            row["sides_assumed"] = True
        if src.how == "scripted":
            pos = before.scripted_pos + k
            script = self.game.created.scripted_dice
            row["script_position"] = pos
            row["checked"] = pos < len(script) and script[pos] == value
        elif self.game.created.dice_scheme == 2:
            self._chain_row(row, k, before)
        elif src.seed is not None:
            d = derive_roll(src.seed, self.game.game_id, n, k, row["sides"])
            row["derivation"] = d
            row["checked"] = d["face"] == value
        else:
            row["checked"] = None
        return row

    def _chain_row(self, row: dict, k: int, before: GameState) -> None:
        """Scheme 2: the roll's turn and chain, the chain seed (revealed in the log, or
        from the host's seed for the referee), the roll's key, then scheme 1's steps."""
        from pbem.core import chain as C
        where = getattr(self, "_where", [])
        turn, owner = where[k] if k < len(where) else (before.turn, "")
        src = self.seed_source()
        known = C.revealed_keys(self.entries)
        keys = self.game.chain_keys((lambda: src.seed) if src.seed is not None else None, known)
        seed = keys.seed(owner, turn)
        digest = before.chain.digest if before.chain else ""
        at = next((en.seq for en in self.entries if isinstance(en.event, E.TurnDiceRevealed)
                   and ((not owner and en.event.turn >= turn)
                        or any(x.owner == owner and x.turn >= turn for x in en.event.secret))), None)
        row["chain"] = {"turn": turn, "owner": owner or "turn", "digest": digest,
                        "seed": seed.hex() if seed is not None else "",
                        "from": (f"revealed at seq {at}" if at is not None else "the host's seed") if seed else ""}
        if seed is None:
            row["checked"] = None
            return
        key = C.roll_key(seed, digest)
        row["chain"]["key"] = key.hex()
        d = derive_roll(key, self.game.game_id, row["order"], k, row["sides"])
        row["derivation"] = d
        row["checked"] = d["face"] == row["value"]

    # rules, lookups, state -----------------------------------------------------------------

    def _citations(self, seqs) -> tuple[list[dict], list[dict]]:
        rules, lookups = [], []
        for s in seqs:
            en = self.entries[s]
            body = E.body_of(visible_event(en.event, self.viewer, self.rules))
            if isinstance(en.event, E.PhaseStarted) and 0 <= en.event.phase < len(self.sc.sequence):
                r = self.sc.sequence[en.event.phase].rule
                if r:
                    rules.append({"seq": s, "kind": en.kind, "rule": r, "what": f"{en.event.name} phase"})
            if body.get("rule"):
                rules.append({"seq": s, "kind": en.kind, "rule": body["rule"],
                              "what": body.get("reason") or body.get("decision") or body.get("note") or ""})
            for mod in body.get("modifiers") or []:
                rules.append({"seq": s, "kind": en.kind, "rule": "", "what": str(mod)})
            cited = {r["rule"] for r in rules if r["seq"] == s}
            words = describe(en.event, self.sc, self.viewer) or ""
            more = [r for r in dict.fromkeys(_RULE_NO.findall(words)) if r not in cited]
            if more:
                rules.append({"seq": s, "kind": en.kind, "rule": ", ".join(more), "what": "cited by the game's words"})
            found = {f: body[f] for f in LOOKUP_FIELDS if f in body}
            if found:
                look: dict[str, Any] = {"seq": s, "kind": en.kind, "fields": found}
                crt = self._crt_cell(body)
                if crt:
                    look["crt"] = crt
                lookups.append(look)
        return rules, lookups

    def _recorded(self, seqs) -> list[dict]:
        """The events as the log holds them, in the viewer's view."""
        return [{"seq": s, "kind": self.entries[s].kind,
                 "body": E.body_of(visible_event(self.entries[s].event, self.viewer, self.rules))} for s in seqs]

    def _crt_cell(self, body: dict) -> dict | None:
        """The scenario CRT's cell for a recorded odds column and single die."""
        crt = self.sc.crt
        odds, rolls = body.get("odds"), body.get("rolls") or []
        if not odds or len(rolls) != 1 or odds not in crt.columns:
            return None
        row = crt.rows.get(str(rolls[0]))
        if not row:
            return None
        cell = row[crt.columns.index(odds)]
        return {"column": odds, "row": rolls[0], "cell": cell, "matches": cell == body.get("result"),
                "reconstructed": crt.reconstructed, "rule": crt.rule}

    def _secret_check(self, ev: E.Event) -> dict | None:
        """An unveiled secret against the commitment sealed earlier."""
        if not isinstance(ev, E.SecretRevealed):
            return None
        got = secret_commitment(ev.salt, ev.payload)
        sealed = next((en for en in self.entries if isinstance(en.event, E.SecretRecorded)
                       and en.event.side == ev.side and en.event.name == ev.name), None)
        return {"name": ev.name, "commitment": got, "sealed_at": sealed.seq if sealed else None,
                "matches": bool(sealed) and sealed.event.commitment == got}

    def state_diff(self, a: int, b: int) -> dict:
        """What changed between the state after seq a and after seq b, as the viewer sees it."""
        va, vb = self.view(a), self.view(b)
        out: dict[str, Any] = {"from": a, "to": b, "changes": []}
        ch = out["changes"]

        def when(v):
            return step_line(self.sc, v)
        if when(va) != when(vb):
            ch.append(f"{when(va)} -> {when(vb)}")
        ua = {u["id"]: u for u in va["units"]}
        ub = {u["id"]: u for u in vb["units"]}
        for uid in sorted(set(ua) | set(ub)):
            x, y = ua.get(uid), ub.get(uid)
            if x == y:
                continue
            if x is None or y is None:
                ch.append(f"{uid}: {'appears' if x is None else 'no longer shown'}")
                continue
            parts = []
            if x["hex"] != y["hex"]:
                parts.append(f"{x['hex'] or 'off map'} -> {y['hex'] or 'off map'}")
            for f in ("strength", "ma"):
                if x[f] != y[f]:
                    parts.append(f"{f} {x[f]} -> {y[f]}")
            gone = [s for s in x["status"] if s not in y["status"]]
            new = [s for s in y["status"] if s not in x["status"]]
            if new:
                parts.append("now " + ", ".join(new))
            if gone:
                parts.append("no longer " + ", ".join(gone))
            ch.append(f"{uid}: {'; '.join(parts)}")
        for side in sorted(set(va["score"]) | set(vb["score"])):
            p, q = va["score"].get(side, 0), vb["score"].get(side, 0)
            if p != q:
                ch.append(f"score {self.sc.side_name(side)}: {p} -> {q}")
        if va["result"] != vb["result"] and vb["result"]:
            ch.append(f"result: {result_text(self.sc, vb['result'])}")
        wa = [_waits(self.sc, w) for w in va["awaiting"]]
        wb = [_waits(self.sc, w) for w in vb["awaiting"]]
        if wa != wb:
            ch.append("waiting for: " + ("; ".join(wb) or "nobody"))
        if self.viewer == REFEREE:
            out["referee"] = self._full_diff(a, b)
        return out

    def _full_diff(self, a: int, b: int) -> list[str]:
        """The referee's extra: every other field of the whole state that changed."""
        sts = self.states([a, b])
        x, y = msgspec.to_builtins(sts[a]), msgspec.to_builtins(sts[b])
        skip = {"units", "score", "result", "seq", "turn", "phase", "players", "dice_mode", "seed_commitment",
                "scripted_pos"}                  # the dice section tells the rolls
        out = []
        for key in sorted((set(x) | set(y)) - skip):
            p, q = x.get(key), y.get(key)
            if p == q:
                continue
            if isinstance(p, list) and isinstance(q, list) and len(p) == len(q):
                out += [f"{key}[{i}]: {_short(a)} -> {_short(b)}" for i, (a, b) in enumerate(zip(p, q)) if a != b]
            elif isinstance(p, dict) and isinstance(q, dict):
                out += [f"{key}[{k!r}]: {_short(p.get(k))} -> {_short(q.get(k))}"
                        for k in sorted(set(p) | set(q)) if p.get(k) != q.get(k)]
            else:
                out.append(f"{key}: {_short(p)} -> {_short(q)}")
        return out

    # the whole explanation ---------------------------------------------------------------

    def explain(self, seq: int) -> dict:
        """Everything about the event at ``seq`` this viewer may see, JSON-ready."""
        last = self.entries[-1].seq
        if not 0 <= seq <= last:
            raise ExplainError(f"no event {seq}: the log runs from seq 0 to {last}")
        en = self.entries[seq]
        sp = self.span(seq)
        whole = isinstance(en.event, E.OrderGiven)
        lo, hi = (sp[0] - 1, sp[1]) if sp else (seq - 1, seq)
        self.states(range(max(lo, -1), hi + 1))             # one replay pass for all of them
        out = self._header(seq)
        out["order"] = self._order(sp) if sp else None
        out["cause"] = self._cause(seq, sp)
        focus = range(sp[0], sp[1] + 1) if whole and sp else [seq]
        out["rules"], out["lookups"] = self._citations(focus)
        out["recorded"] = self._recorded(focus)
        out["dice"] = (self.dice(sp[0], sp[1], None if whole else (seq, seq)) if sp else
                       {"mode": self.game.created.dice_mode, "source": "", "note": "", "rerun": "",
                        "rolls": [], "hidden": False})
        out["secret"] = self._secret_check(visible_event(en.event, self.viewer, self.rules))
        a, b = (sp[0] - 1, sp[1]) if whole and sp else (seq - 1, seq)
        out["state"] = self.state_diff(max(a, 0) if seq else 0, b)
        out["state"]["scope"] = "the whole order" if whole and sp else "this event"
        return out

    def explain_step(self, start: int, end: int) -> dict:
        """A step of the replay page: the order at ``start`` (or the opening
        events, or the reveal) with all its effects."""
        if isinstance(self.entries[start].event, E.OrderGiven):
            return self.explain(start)
        out = self._header(start)
        out["order"] = None
        out["cause"] = self._cause(start, None)
        out["rules"], out["lookups"] = self._citations(range(start, end + 1))
        out["recorded"] = self._recorded(range(start, end + 1))
        out["dice"] = {"mode": self.game.created.dice_mode, "source": "", "note": "", "rerun": "",
                       "rolls": [], "hidden": False}
        out["secret"] = None
        out["state"] = self.state_diff(max(start - 1, 0), end)
        out["state"]["scope"] = "these events"
        return out

    def _header(self, seq: int) -> dict:
        en = self.entries[seq]
        ev = visible_event(en.event, self.viewer, self.rules)
        return {"game_id": self.game.game_id, "scenario": self.sc.id, "viewer": self.viewer, "seq": seq,
                "kind": en.kind, "at": en.at, "hash": en.hash, "prev": self.entries[seq - 1].hash if seq else "0" * 64,
                "text": describe(en.event, self.sc, self.viewer, self.origin(seq)), "event": E.body_of(ev)}

    def origin(self, seq: int) -> str | None:
        unit = getattr(self.entries[seq].event, "unit", None)
        if not unit or seq == 0:
            return None
        u = next((u for u in self.view(seq - 1)["units"] if u["id"] == unit), None)
        return u["hex"] if u else None

    def _order(self, sp: tuple[int, int]) -> dict:
        n, m = sp
        given = visible_event(self.entries[n].event, self.viewer, self.rules)
        from pbem.trust.findings import describe as sig_words, order_signatures
        if not hasattr(self, "_sigs"):
            self._sigs = {r.seq: r for r in order_signatures(self.game.created, self.entries)}
        sig = self._sigs.get(n)
        c = self.game.created
        if sig is not None and sig.status in ("unsigned", "deadline") and not c.keys and c.signatures != "required":
            sig = None                              # a game without keys: nothing to say
        return {"seq": n, "side": given.side, "side_name": self.sc.side_name(given.side), "text": given.text,
                "by": given.by, "last": m, "head_before": self.entries[n - 1].hash,
                "signature": sig_words(sig) if sig else "", "signer": sig.fingerprint if sig else "",
                "events": [{"seq": s, "kind": self.entries[s].kind,
                            "text": describe(self.entries[s].event, self.sc, self.viewer, self.origin(s))}
                           for s in range(n, m + 1)]}

    def _cause(self, seq: int, sp) -> str:
        if sp:
            return ""
        ev = self.entries[seq].event
        if isinstance(ev, E.SeedRevealed):
            return "the host revealed the dice seed (pbem reveal); no order"
        if isinstance(ev, E.KeyRegistered):
            return "the host registered the side's SSH key (pbem new --key, pbem key register, a KEY mail); no order"
        if isinstance(ev, E.DeadlinesChanged):
            return "the host changed the deadlines (pbem deadline, or EXTEND from every side); no order"
        return "the game's creation from its scenario (pbem new); no order"


def _waits(sc, w: dict) -> str:
    return f"{sc.side_name(w['side'])} {w['kind']} ({w['order']})"


def _short(v, n: int = 160) -> str:
    s = json.dumps(v, sort_keys=True) if not isinstance(v, str) else v
    return s if len(s) <= n else s[:n - 3] + "..."


# --- words ---------------------------------------------------------------------------------

def roll_lines(r: dict) -> list[str]:
    """A roll and its derivation, one line each."""
    sides = f"d{r['sides']}" + (" (faces assumed: the game's die)" if r.get("sides_assumed") else "")
    ok = {True: "matches the log", False: "DOES NOT MATCH the log", None: "not checkable before the reveal"}
    head = f"roll k={r['k']} of order {r['order']} (recorded by seq {r['event']} {r['kind']}): {sides} = {r['value']}"
    out = [head]
    if "script_position" in r:
        out.append(f"  scripted die #{r['script_position']} of the script in GameCreated: {ok[r['checked']]}")
        return out
    ch = r.get("chain")
    if ch:
        whose = "the turn chain" if ch["owner"] == "turn" else f"{ch['owner']}'s secret-roll chain"
        if not ch["seed"]:
            out.append(f"  dice scheme 2: {whose}, turn {ch['turn']}: its seed is revealed when the turn is over"
                       + ("" if ch["owner"] == "turn" else " and the owner's secrets are open (or at the end)")
                       + f"; {ok[None]}")
            return out
        out.append(f"  dice scheme 2: {whose}, turn {ch['turn']}: seed {ch['seed']} ({ch['from']}; hashed once per "
                   "turn down to the head in GameCreated)")
        out.append(f'  key = HMAC-SHA256(seed, "pbem-dice-2:key:{ch["digest"]}") = {ch["key"]}'
                   "  (the text after 'key:' is the digest of the players' contributions)")
    d = r.get("derivation")
    if d is None:
        out.append(f'  HMAC-SHA256(seed, "{r["message"]}"): {ok[None]}')
        return out
    seedname = "key" if ch else "seed"
    sd = r["sides"]
    out.append(f"  limit = floor(2^32 / {sd}) * {sd} = {d['limit']}; values >= limit are rejected (no modulo bias)")
    seen = None
    for st in d["steps"]:
        if st["message"] != seen:
            out.append(f'  HMAC-SHA256({seedname}, "{st["message"]}") = {st["block"]}')
            seen = st["message"]
        verdict = "accepted" if st["accepted"] else "rejected"
        out.append(f"    bytes {st['offset']}..{st['offset'] + 3}: v = {st['v']} "
                   f"{'<' if st['accepted'] else '>='} {d['limit']}: {verdict}")
    last = d["steps"][-1]["v"]
    out.append(f"  {last} mod {sd} + 1 = {d['face']}: {ok[r['checked']]}")
    return out


def explain_text(x: dict, sc, events: bool = True) -> str:
    """The explanation as plain text (what `pbem explain` prints); ``events=False``
    leaves out the list of the order's events (the replay page shows them apart)."""
    who = "the referee" if x["viewer"] == REFEREE else sc.side_name(x["viewer"])
    lines = [f"event {x['seq']} {x['kind']} of game {x['game_id']} (as {who})",
             f"  {x['text']}" if x["text"] else "  (nothing to say about it)",
             f"  head after it {x['hash']}  (before it {x['prev']})  at {x['at']}", ""]
    o = x["order"]
    if o:
        by = " (applied by the host at the deadline)" if o["by"] == "deadline" else ""
        lines.append(f"order: seq {o['seq']}, given by {o['side_name']}{by}: {o['text']}")
        lines.append(f"  written against head {o['head_before']}")
        if o.get("signature"):
            lines.append(f"  signature: {o['signature']}")
        lines.append(f"  its events: seq {o['seq']}..{o['last']}")
        for e in o["events"] if events else []:
            mark = ">" if e["seq"] == x["seq"] else " "
            lines.append(f"  {mark}{e['seq']:>5} {e['kind']:<18} {e['text']}")
    else:
        lines.append(f"cause: {x['cause']}")
    lines.append("")
    lines.append("rules applied:" if x["rules"] else "rules applied: none recorded")
    for r in x["rules"]:
        text = ": ".join(t for t in (r["rule"], r["what"]) if t)
        lines.append(f"  seq {r['seq']} {r['kind']}: {text}")
    if x["lookups"]:
        lines.append("table lookups recorded:")
        for lk in x["lookups"]:
            fields = ", ".join(f"{k} {_short(v, 60)}" for k, v in lk["fields"].items())
            lines.append(f"  seq {lk['seq']} {lk['kind']}: {fields}")
            c = lk.get("crt")
            if c:
                where = f"the scenario's CRT{' (reconstructed)' if c['reconstructed'] else ''}"
                verdict = ("matches the recorded result" if c["matches"] else
                           "differs from the recorded result (the game applied its own table or a modifier; "
                           "see the rules cited)")
                lines.append(f"    {where}: column {c['column']}, die {c['row']} -> {c['cell']}: {verdict}")
    d = x["dice"]
    lines.append("")
    if d["rolls"] or d["hidden"]:
        lines.append(f"dice ({d['mode']}): {d['note']}")
        if d["rerun"]:
            lines.append(f"  note: {d['rerun']}")
        for r in d["rolls"]:
            lines += ["  " + s for s in roll_lines(r)]
        if d["hidden"] and not d["rolls"]:
            lines.append("  the rolls of this order are not in your view")
    else:
        lines.append("dice: none rolled here")
    s = x.get("secret")
    if s:
        lines.append(f"sealed secret {s['name']}: sha256(salt + payload) = {s['commitment']}: "
                     + ("matches the commitment sealed at seq " + str(s["sealed_at"]) if s["matches"]
                        else "DOES NOT MATCH the commitment sealed earlier"))
    st = x["state"]
    lines.append("")
    lines.append(f"state change ({st['scope']}: after seq {st['from']} -> after seq {st['to']}):")
    lines += [f"  {c}" for c in st["changes"]] or ["  nothing visible changed"]
    if st.get("referee"):
        lines.append("  other state (referee):")
        lines += [f"    {c}" for c in st["referee"]]
    if x.get("recorded"):
        lines.append("")
        lines.append(f"as the log records {'it' if len(x['recorded']) == 1 else 'them'}"
                     f"{'' if x['viewer'] == REFEREE else ' (your view)'}:")
        lines += [f"  {r['seq']} {r['kind']} {json.dumps(r['body'], ensure_ascii=False, separators=(',', ':'))}"
                  for r in x["recorded"]]
    return "\n".join(lines) + "\n"


def explain(game: Game, seq: int, viewer: str = REFEREE) -> dict:
    return Explainer(game, viewer).explain(seq)
