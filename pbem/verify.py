"""`pbem verify`: what a Game proves about itself (a mixin of engine.Game).

The hash chain and its ``log.head`` anchor, the scenario file and the caches
against what they claim, the seed against its commitment, and every order
re-run through the rules on the state before it, compared event for event
with what the log says happened.  Never raises for a bad log: it reports it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from pbem.core import events as E
from pbem.core import orders as O
from pbem.core.scenario import SCENARIO_LIMIT, ScenarioError, loads
from pbem.core.scenario import rewrite_cache as rewrite_scenario_cache
from pbem.core.state import GameState, state_bytes
from pbem.log import LogError, anchor_of

if TYPE_CHECKING:
    from pbem.engine import Entry


class VerifyReport(msgspec.Struct):
    ok: bool
    events: int
    head: str
    problems: list[str]
    notes: list[str]


class Verification:
    """The verification half of engine.Game."""

    def _check_head(self, entries: list[Entry], expect_head: str | None,
                    problems: list[str], notes: list[str]) -> None:
        """Prove the tail. The chain ties every line to the last line's hash,
        but anyone can change the last lines and re-hash, so the head itself
        must be anchored: by log.head, or by ``expect_head`` (the head of a
        report the auditor trusts). A missing, unreadable or lagging anchor
        leaves lines unproven: a problem, unless ``expect_head`` matches. An
        anchor that contradicts the log is always a problem. log.head only
        catches an edit that did not also rewrite it; ``expect_head`` is the
        proof against anyone who could write the whole folder."""
        head, last = entries[-1].hash, entries[-1].seq
        if expect_head is not None and expect_head != head:
            problems.append(f"the log's head is {head}, not the expected {expect_head}")
        verdict, anchor, e = anchor_of(self.log, last, lambda seq: entries[seq].hash)
        gap = f"{e}: " if verdict == "unreadable" else "there is no log.head anchor: "
        if anchor is not None:
            seq, h = anchor
            if verdict == "removed":
                problems.append(f"log.head records seq {seq} but the log ends at seq {last}: "
                                "lines were removed (or log.head is not this log's)")
                return
            if verdict == "changed":
                problems.append(f"line {seq + 1} of the log does not hash to the head recorded in log.head: "
                                "it was changed")
                return
            if verdict == "ok":
                if expect_head == head:
                    notes.append(f"the head matches --head: every line up to seq {last} is proven")
                elif expect_head is None:
                    notes.append(f"log.head anchors the head (seq {last}); whoever can write this folder "
                                 "can re-anchor it, so compare the head with your latest report (--head)")
                return
            gap = (f"log.head anchors seq {seq} only (the log ends at seq {last}; an interrupted write, "
                   "or a changed tail): ")
        proven = f"lines up to seq {anchor[0]} are proven, " if anchor is not None else ""
        unproven = f"seq {anchor[0] + 1 if anchor is not None else 0}..{last}"
        if expect_head is None:
            problems.append(gap + proven + f"{unproven} cannot be proven unaltered; "
                            "give the head from your latest report with --head HASH")
        elif expect_head == head:
            notes.append(gap + f"the head given with --head proves every line up to seq {last}")

    def _audit_scenario(self, notes: list[str]) -> None:
        """Verify trusts no cache: the scenario is parsed again from scenario.toml
        (checked against GameCreated when the game was opened); a cache that gave
        something else is replaced, with a note."""
        sc_path = self.store.path_of("scenario.toml")
        try:
            raw = self.store.read("scenario.toml", limit=SCENARIO_LIMIT)
            if raw is None:
                return
            fresh = loads(raw, str(sc_path))
        except (OSError, ScenarioError):
            return                                  # as opened: the file changed under us; nothing to compare
        if fresh.sha256 != self.scenario.sha256:
            return
        if fresh != self.scenario:
            notes.append(f"{self._scenario_cache_path.name} did not match scenario.toml (altered); "
                         "checked against scenario.toml and rebuilt")
            self.scenario = fresh
            rewrite_scenario_cache(self._scenario_cache_path, fresh)

    def _audit_state_cache(self, head: str, st: GameState, replayed: bytes,
                           sealed: dict[str, E.SecretRecorded], notes: list[str]) -> None:
        """A state cache at this head that is not the verified state is rewritten, with a note."""
        cached = self._read_cache(head)
        if cached is None:
            return
        try:
            from pbem.engine import _decode_sealed
            same = state_bytes(cached[0]) == replayed and _decode_sealed(cached[1]) == sealed
        except msgspec.DecodeError:
            same = False
        if not same:
            notes.append(f"{self._cache_path.name} did not match the log (altered); rebuilt from the verified replay")
            self._write_cache(head, st, sealed)

    def verify(self, progress=None, expect_head: str | None = None) -> VerifyReport:
        """Check the hash chain and its anchor (``_check_head``), then re-run
        every order through the rules and compare what they produce with what
        the log says happened. Never raises for a bad log: it reports it."""
        from pbem.core import dice as D
        problems: list[str] = []
        notes: list[str] = []
        try:
            entries = self.entries(verify=True)
        except LogError as e:
            return VerifyReport(False, 0, "", [str(e)], notes)
        if not entries:
            return VerifyReport(False, 0, "", [f"{self.log.path} is empty"], notes)
        head = entries[-1].hash
        self._check_head(entries, expect_head, problems, notes)
        self._audit_scenario(notes)
        sc = self.scenario
        seed: bytes | None = None
        for en in entries:
            if isinstance(en.event, E.SeedRevealed):
                try:
                    seed = bytes.fromhex(en.event.seed)
                except ValueError:
                    seed = b""
                if not D.check_reveal(seed, self.created.seed_commitment):
                    problems.append(f"seq {en.seq}: the revealed seed does not match the commitment in GameCreated")
                    seed = None
        chained = self.created.dice_scheme == 2 and self.created.dice_mode == "seeded"
        if self.created.dice_mode == "scripted":
            notes.append("scripted dice: this game's rolls were fixed in advance (tests, teaching)")
        elif chained and seed is None and not self.store.has_seed():
            pass                                    # said below, with what the turn seeds checked
        elif seed is None:
            if not self.store.has_seed():           # e.g. an auditor's copy of the log
                notes.append("dice not checked: the seed is not revealed yet; rules were checked with the recorded rolls")
            else:                                   # the host's folder: its seed must be the committed one
                try:
                    seed = self.store.read_seed(self.created.seed_commitment)
                    notes.append("dice checked with the host's seed file (not yet revealed)")
                except D.DiceError as e:
                    problems.append(f"{e}; rules were checked with the recorded rolls")
        else:
            notes.append("dice checked against the revealed seed")

        expected_start = [self.created] + self.rules.initial_events(sc)
        got_start = [en.event for en in entries[:len(expected_start)]]
        if got_start != expected_start:
            problems.append("the opening events do not match the scenario's initial events")
        st = self.new_state()
        for ev in expected_start[1:]:
            self.rules.apply(st, ev, sc)
        i = len(expected_start)
        total = len(entries)
        replay_ok = True
        sealed: dict[str, E.SecretRecorded] = {}
        if chained:
            from pbem.core import chain as C
            keys = self.chain_keys((lambda: seed) if seed is not None else None, C.revealed_keys(entries))
            derived = recorded_only = 0
        while i < total and replay_ok:
            en = entries[i]
            ev = en.event
            if progress:
                progress(i, total)
            if isinstance(ev, E.OrderGiven):
                j = i + 1
                while j < total and not isinstance(entries[j].event, (E.OrderGiven, *E.STANDALONE)):
                    j += 1
                kernel = j
                while kernel > i + 1 and isinstance(entries[kernel - 1].event, E.KERNEL_AFTER):
                    kernel -= 1
                after = [x.event for x in entries[kernel:j]]
                logged = [x.event for x in entries[i:kernel]]
                recorded = [r for x in logged for r in E.dice_of(x)]
                salts = [x.salt for x in logged if isinstance(x, E.SecretRecorded)]
                before_turn = st.turn
                if chained:
                    dice = C.ChainDice(keys, self.game_id, en.seq, recorded, salts)
                elif self.created.dice_mode == "scripted" or seed is not None:
                    dice = self._dice(st, en.seq, lambda: seed)     # as submit rolled them
                else:
                    dice = D.RecordedDice(recorded, salts)
                try:
                    trial, produced = self._adjudicate(st, ev, O.parse_line(ev.text, self.rules.verbs), dice, sealed,
                                                       copy=False)
                except (O.OrderError, D.DiceError) as e:
                    problems.append(f"seq {en.seq}: order {ev.text!r} from {ev.side} is refused on replay: {e}")
                    replay_ok = False
                    break
                if produced != logged:
                    k = next((n for n, (a, b) in enumerate(zip(produced, logged)) if a != b),
                             min(len(produced), len(logged)))
                    want = produced[k] if k < len(produced) else "(nothing)"
                    have = logged[k] if k < len(logged) else "(nothing)"
                    problems.append(f"seq {en.seq + k}: the log says {have!r} but the rules give {want!r}")
                    replay_ok = False
                    break
                st = trial
                for x in logged:
                    if isinstance(x, E.SecretRecorded):
                        sealed[f"{x.side}:{x.name}"] = x
                if chained:
                    derived += sum(1 for u in dice.used if u[2])
                    recorded_only += sum(1 for u in dice.used if not u[2])
                    why = self._check_kernel(before_turn, st, after)
                    if why:
                        problems.append(f"seq {entries[kernel].seq if after else en.seq}: {why}")
                        replay_ok = False
                        break
                elif after:
                    problems.append(f"seq {entries[kernel].seq}: {E.kind_of(after[0])} in a game of dice scheme 1")
                    replay_ok = False
                    break
                i = j
            elif isinstance(ev, E.STANDALONE):
                try:
                    self.rules.apply(st, ev, sc)
                except ValueError as e:
                    problems.append(f"seq {en.seq}: {e}")
                    replay_ok = False
                i += 1
            else:
                problems.append(f"seq {en.seq}: {en.kind} does not follow from any order")
                replay_ok = False
        if replay_ok:
            st.seq = entries[-1].seq
            try:
                replayed = state_bytes(self.replay(entries))
                if state_bytes(st) != replayed:
                    problems.append("re-running the rules and replaying the events give different states")
                elif not problems:
                    self._audit_state_cache(head, st, replayed, sealed, notes)
            except LogError as e:
                problems.append(str(e))
        if chained and replay_ok:
            notes.append(_chain_note(st, seed is not None, derived, recorded_only))
        self._check_signatures(entries, problems, notes)
        if progress:
            progress(total, total)
        return VerifyReport(not problems, total, head, problems, notes)

    def _check_kernel(self, before_turn: int, st: GameState, after: list) -> str:
        """Scheme 2: the reveals after an order are the ones due (chain.reveal_plan), and
        each seed hashes to the chain (the reducer checks it while applying them)."""
        from pbem.core import chain as C
        want = C.reveal_plan(before_turn, st)
        if C.plan_of(after) != want:
            turns = ", ".join(str(t) for t, _ in want) or "none"
            return f"the dice reveals after this order are not the ones due (turns due: {turns})"
        for ev in after:
            try:
                self.rules.apply(st, ev, self.scenario)
            except ValueError as e:
                return str(e)
        return ""

    def _check_signatures(self, entries, problems: list[str], notes: list[str]) -> None:
        """Every order's signature against the side's registered key (pbem/trust/findings.py)."""
        from pbem.trust import findings as F
        rows = F.order_signatures(self.created, entries)
        required = self.created.signatures == "required"
        for r in rows:
            if r.status in F.PROBLEMS or (required and r.status == "unsigned"):
                problems.append(f"seq {r.seq}: order {r.text!r} of {r.side} is {F.describe(r)}")
        n = F.counts(rows)
        if n.get("signed") or n.get("unbound") or n.get("key-changed") or required or self.created.keys:
            parts = [f"{n[k]} {k}" for k in ("signed", "unbound", "key-changed", "unsigned", "deadline") if n.get(k)]
            notes.append("order signatures: " + (", ".join(parts) or "no orders yet")
                         + ("; signatures are required in this game" if required else ""))
        for r in rows:
            if r.status in F.WARNINGS:
                notes.append(f"seq {r.seq}: order {r.text!r} is {F.describe(r)}")


def _chain_note(st: GameState, whole: bool, derived: int, recorded: int) -> str:
    ch = st.chain
    upto = f"turns up to {ch.revealed}" if ch.revealed >= 0 else "no turn yet"
    if whole:
        return f"dice scheme 2: every roll re-derived from the seed ({derived} rolls); the revealed turn seeds ({upto}) hash to the chain"
    return (f"dice scheme 2: {derived} rolls re-derived from the revealed turn seeds ({upto}; each hashes to the chain "
            f"GameCreated committed to); {recorded} rolls of turns not over or of secrets not open taken as recorded")
