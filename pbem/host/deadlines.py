"""Deadlines: the running deadline of every decision a game waits for
(deadline.json in the game folder, the only place that file is read and
written), reminders before it runs out, lateness notices when it passes with
grace to come, the rules' default orders applied after the grace (exactly
once, like orders by mail), and reports for moves made at the host rather
than by mail.  When a decision is due is pbem.host.clock's (pure); what
changes the deadlines (`pbem deadline`, ABSENT, TIMEZONE, EXTEND) is
pbem.host.schedule's."""
from __future__ import annotations

import json
import re
from datetime import timedelta

from pbem import staging
from pbem.core.turn import Turn
from pbem.host import crash
from pbem.host.common import DEADLINE_NAME, REFEREE, Answer, HostError, fmt_duration, iso, parse_duration, \
    parse_time
from pbem.host.journal import job_key


POLICY_KEYS = ("period", "clock", "days", "minimum", "grace", "zone")


def _readers() -> dict:
    from pbem.host import clock as C
    return {"period": lambda t: parse_duration(t, zero=False), "clock": C.parse_clock, "days": C.parse_days,
            "minimum": parse_duration, "grace": parse_duration, "zone": C.check_zone}


class DeadlinesMixin:
    """The Host's deadlines.  Uses the Host's ``cfg``, ``now``, ``games``,
    ``locked``, ``log``, the journal, the players, the letters, the spool and
    ``_apply`` (ingest's exactly-once application of orders).

    Everything a game keeps about its deadlines is in its deadline.json, read and
    written only by ``_deadlines`` and ``_save_deadlines``: the running ``waits``
    (per awaited decision: side, kind, since, due, reminded, late), the game's own
    policy settings (``POLICY_KEYS``, over the host's ``[deadlines]``), ``paused``,
    the players' ``zones``, ``absent``/``absences`` and the sides' ``extend`` offers."""

    def _policy(self, game, dl: dict | None = None):
        """The game's deadline policy (pbem.host.clock.Policy): the host's [deadlines],
        with what `pbem deadline` set for this game over it."""
        from pbem.host import clock as C
        dl = self._deadlines(game) if dl is None else dl
        c = self.cfg
        vals = {"period": c.period, "clock": c.clock, "days": c.days, "minimum": c.minimum, "grace": c.grace,
                "zone": c.zone}
        for k, read in _readers().items():
            if k in dl:
                try:
                    vals[k] = read(dl[k])
                except HostError:               # written by hand, or by a pbem that did not bound it
                    pass
        return C.Policy(**vals)

    def _period(self, game) -> timedelta | None:
        return self._policy(game).period

    def deadlines_on(self, game) -> bool:
        """Do this game's decisions get deadlines at all?"""
        return self._policy(game).on

    def zone_of(self, game, viewer: str, dl: dict | None = None) -> str:
        """The zone ``viewer`` reads times in: the one the player set (TIMEZONE, `pbem new
        --tz`), the host's [deadlines] zone for the referee, else UTC only."""
        dl = self._deadlines(game) if dl is None else dl
        z = (dl.get("zones") or {}).get(viewer, "")
        return z or (self._policy(game, dl).zone if viewer == REFEREE else "")

    def show_time(self, game, viewer: str, at, dl: dict | None = None) -> str:
        from pbem.host import clock as C
        return C.show(at, self.zone_of(game, viewer, dl))

    def deadline_lines(self, game, viewer: str, dl: dict | None = None) -> list[str]:
        """The deadlines as ``viewer`` reads them, for STATUS, the welcome and every report:
        the policy in words, then each running deadline (in UTC and the viewer's zone)."""
        dl = self._deadlines(game) if dl is None else dl
        pol = self._policy(game, dl)
        out = pol.describe()
        if dl.get("paused"):
            out.append(f"The host paused the deadlines at {self.show_time(game, viewer, dl['paused']['at'], dl)}: "
                       "none runs until they are resumed.")
        sc = game.scenario
        for w in dl.get("waits", {}).values():
            who = "your" if w["side"] == viewer else f"{sc.side_name(w['side'])}'s"
            try:
                due = parse_time(w["due"])
            except (HostError, KeyError):
                continue
            line = f"Deadline for {who} {w['kind']}: due by {self.show_time(game, viewer, due, dl)}"
            if pol.grace:
                line += f"; grace until {self.show_time(game, viewer, pol.final(due), dl)}"
            out.append(line + (" (late)." if w.get("late") else "."))
        z = self.zone_of(game, viewer, dl)
        if viewer != REFEREE:
            out.append(f"Times are in UTC and in your zone, {z} (TIMEZONE ZONE changes it)." if z else
                       "Times are in UTC; send TIMEZONE Europe/Berlin (your zone) to read them in yours too.")
        return out

    def due_lines(self, game, viewer: str, st=None, dl: dict | None = None) -> list[str]:
        """When ``viewer``'s next orders are due (in UTC and the player's zone) and what the
        host does at the deadline: the first lines of every report, answer and notice."""
        if viewer == REFEREE:
            return []
        st = game.state() if st is None else st
        if st.result is not None:
            return ["Your next orders: none, the game is over."]
        dl = self._deadlines(game) if dl is None else dl
        pol = self._policy(game, dl)
        if not pol.on:
            return ["Your next orders: this game has no deadlines; it waits for your orders as long as needed."]
        sc = game.scenario
        mine = sorted((w for w in dl.get("waits", {}).values() if w.get("side") == viewer and w.get("due")),
                      key=lambda w: w["due"])
        if dl.get("paused"):
            first = "Your next orders: the host paused the deadlines; none runs until they are resumed."
        elif mine:
            w = mine[0]
            first = f"Your next orders ({w['kind']}) are due by {self.show_time(game, viewer, w['due'], dl)}"
            if pol.grace:
                first += f", with grace until {self.show_time(game, viewer, pol.final(parse_time(w['due'])), dl)}"
            first += " (late)." if w.get("late") else "."
        else:
            others = list(dict.fromkeys(sc.side_name(w["side"]) for w in dl.get("waits", {}).values()
                                        if w.get("side") and w["side"] != viewer))
            rule = pol.describe()[0]
            first = (f"Your next orders are not due yet: the game waits for {' and '.join(others) or 'nobody'} "
                     f"now. {rule}")
        held = (staging.staged(game, viewer) or {}).get("step") == staging.step_of(game, st)
        then = ("your staged orders (DRAFT), or if they fail, the game's default: " if held
                else "the game's default: ")
        return [first, f"If no orders of yours come by the deadline{' and its grace' if pol.grace else ''}, "
                       f"the host applies {then}{defaults_text(game)}"]

    @staticmethod
    def _deadlines(game) -> dict:
        try:
            return json.loads(game.store.read(DEADLINE_NAME) or b"{}")
        except (OSError, ValueError):
            return {}

    @staticmethod
    def _save_deadlines(game, dl: dict) -> None:
        game.store.write(DEADLINE_NAME, json.dumps(dl, indent=1, sort_keys=True).encode())

    @staticmethod
    def _await_key(st, item: dict) -> str:
        units = ",".join(item.get("units", []) or [])
        return f"t{st.turn}.p{st.phase}.{item['side']}.{item['kind']}.{item.get('combat', '')}.{units}"

    def _sync_deadlines(self, game, st=None, head: str = "") -> dict:
        """Start the clock for every decision newly awaited; forget answered ones.
        ``st`` and ``head``: the state at the head and its hash, when the caller has them."""
        dl = self._deadlines(game)
        policy = self._policy(game, dl)
        waits = dict(dl.get("waits", {}))
        now = self.now()
        st, keys = self._awaited(game, st, head)
        new = {k: dict(v) for k, v in waits.items() if k in keys}
        away = dl.get("absent", {})
        arisen = []
        for k, item in keys.items():
            if k in new:
                continue
            arisen.append(item["side"])
            due = policy.due(now)
            if due is not None:
                if away.get(item["side"]) and parse_time(away[item["side"]]) > due:
                    due = parse_time(away[item["side"]])          # the player said ABSENT until then
                new[k] = {"side": item["side"], "kind": item["kind"], "since": iso(now), "due": iso(due),
                          "reminded": False}
        # Each running deadline keeps the grace it is given, so an audit (which sees this file,
        # not the host's configuration) does not call an order taken during the grace late.
        grace = fmt_duration(policy.grace) if policy.grace else ""
        for w in new.values():
            w.pop("grace", None)
            if grace:
                w["grace"] = grace
        if new != waits or "waits" not in dl:
            dl["waits"] = new
            self._save_deadlines(game, dl)
        if arisen:
            self._your_turn(game, dl, st, dict.fromkeys(arisen))
        return dl

    def _awaited(self, game, st=None, head: str = "") -> tuple:
        """(the state or None, the decisions the game awaits by their ``_await_key``), kept per
        game and head hash (``_awaited_at``): the host reads them again at every tick, and a
        head another process moved reads them anew.  The state is read when they are."""
        kept = self.__dict__.setdefault("_awaited_at", {})
        got = kept.get(game.game_id)
        now = head or game.head()[1]
        if got is not None and got[0] == now:
            return st, got[1]
        if st is None or not head:
            st, head = game.state_and_hash()         # the state and the head it is at, read together
        items = [] if st.result is not None else Turn(game.rules, game.scenario, st).rows(REFEREE)
        keys = {self._await_key(st, item): item for item in items}
        if len(kept) >= 1024:
            kept.clear()
        kept[game.game_id] = (head, keys)
        return st, keys

    def _your_turn(self, game, dl: dict, st, sides) -> None:
        """A hook: the game now waits for ``sides`` (the webhooks ping them); ``st``: the
        state at the head, None when the caller did not read it."""

    def tick(self) -> list[str]:
        """Reminders and deadline defaults that are due, for every hosted game."""
        done = []
        with self.locked():
            for gid, path in self.games().items():
                try:
                    # with a database: one transaction per game, which one worker takes at a time
                    with self.store.game_turn(gid) as mine:
                        if mine:
                            done += self._tick_one(gid, path)
                except self.store.errors as e:
                    self.log(f"game {gid}: reports and deadlines skipped this time: the database failed ({e})")
        return done

    def _tick_one(self, gid: str, path) -> list[str]:
        from pbem.engine import EngineError, Game
        from pbem.log import LogError
        try:
            with self.store.atomic():
                game = Game(path)
                dl = self._sync_deadlines(game)
        except (EngineError, LogError, OSError) as e:
            self.log(f"game {gid}: skipped ({e})")
            return []
        if self.busy(gid):
            self.log(f"game {gid}: orders of a message are half-way; they are finished when that "
                     "message is polled again (deadlines wait until then)")
            return []
        try:
            self.store.beat(f"deadlines {gid}")
            with self.store.atomic():             # a database keeps nothing of a game whose turn failed
                return self._tick_game(game, dl)
        except self.store.errors:
            raise
        except Exception as e:            # noqa: BLE001 - one game's trouble must not stop the others
            self.log(f"game {gid}: reports and deadlines skipped this time: {type(e).__name__}: {e}")
            return []

    def _tick_game(self, game, dl: dict) -> list[str]:
        synced = self._sync_reports(game)
        if synced:
            return [synced]
        if dl.get("paused"):
            return []
        now = self.now()
        policy = self._policy(game, dl)
        done = []
        for k, w in sorted(dl.get("waits", {}).items()):
            due = parse_time(w["due"])
            if now >= policy.final(due):
                done.append(self._apply_default(game, k, w))
                break                   # the state changed; look again on the next tick
            if now >= due:
                if not w.get("late"):
                    done.append(self._late(game, k, w, policy))
                continue
            if self.cfg.reminder and not w.get("reminded") and now >= due - self.cfg.reminder:
                done.append(self._remind(game, k, w))
        return done

    def _sync_reports(self, game) -> str:
        """The log moved on without the mail (the host used `pbem order`,
        `pbem reveal`, ...): every side still gets its report of the change."""
        seq, head = game.head()
        viewers = list(self._players(game)) + ([REFEREE] if self.cfg.referee else [])
        reported = game.last_reports()
        if not viewers or min(reported.get(v, 0) for v in viewers) >= seq:
            return ""
        key = job_key("sync", game.game_id, head)
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return ""
        rec = rec or self._start(key)
        self._sync_deadlines(game)
        note = "The game moved on at the host (not by mail); here is where it stands."
        answers = [a for a in self._state_mails(game, {"*": note}, kind="report", referee_note=note, reported=reported)
                   if reported.get(a.viewer, 0) < seq]
        self.commit(rec["job"], answers, game.game_id)
        self._mark_reported(game, answers)
        self._done(key, rec, outcome="synced", game=game.game_id)
        self._sync_deadlines(game)
        msg = f"game {game.game_id}: changed at the host; reports mailed to {', '.join(a.viewer for a in answers)}"
        self.log(msg)
        return msg

    def _remind(self, game, akey: str, w: dict) -> str:
        key = job_key("reminder", game.game_id, akey, w["due"])
        rec = self.journal_get(key)
        addr = self._players(game).get(w["side"], "")
        if not rec or rec.get("status") != "done":
            rec = rec or self._start(key)
            st = game.state()
            head = game.head()[1]
            answers = []
            if addr:
                # what the side is offered, as it may read it (core/turn.py), as its reports and STATUS say it
                # (its default as the host applies it: with the side's own sealed notes)
                offer = Turn(game.rules, game.scenario, st, sealed=game.secret_records()).offer(w["side"])
                body = self._tpl("reminder", due=self.show_time(game, w["side"], w["due"]), kind=w["kind"],
                                 awaiting=[x.row() for x in offer.waits],
                                 default_lines=offer.default_lines(),
                                 staged=bool((staging.staged(game, w["side"]) or {}).get("step") == staging.step_of(game, st)),
                                 **self._context(game, w["side"], st, head))
                answers.append(Answer(addr, w["side"], "reminder",
                                      f"[pbem {game.game_id}] reminder: {game.scenario.side_name(w['side'])}, your "
                                      f"{w['kind']}: due by {w['due']}", body, head=head, seq=st.seq,
                                      references=self._refs(game, w["side"]), slug=f"{w['side']}-reminder"))
            self.commit(rec["job"], answers, game.game_id)
            self._done(key, rec, outcome="reminded", game=game.game_id, side=w["side"])
        dl = self._deadlines(game)
        if akey in dl.get("waits", {}):
            dl["waits"][akey]["reminded"] = True
            self._save_deadlines(game, dl)
        msg = f"game {game.game_id}: reminded {w['side']} of the {w['kind']} due {w['due']}"
        self.log(msg)
        return msg

    def _late(self, game, akey: str, w: dict, policy) -> str:
        """A deadline passed with grace to come: every side and the referee are told who is
        late, and when the default will be applied (each in its own zone)."""
        key = job_key("late", game.game_id, akey, w["due"])
        rec = self.journal_get(key)
        sc = game.scenario
        final = policy.final(parse_time(w["due"]))
        if not rec or rec.get("status") != "done":
            rec = rec or self._start(key)
            st = game.state()
            head = game.head()[1]

            def note(viewer: str) -> str:
                who = "You are" if viewer == w["side"] else f"{sc.side_name(w['side'])} is"
                return (f"LATE: the deadline for {sc.side_name(w['side'])}'s {w['kind']} passed at "
                        f"{self.show_time(game, viewer, w['due'])}. {who} late: orders are still taken until "
                        f"{self.show_time(game, viewer, final)}; then the host applies the default.")
            answers = []
            for side, addr in self._players(game).items():
                body = self._tpl("notice", note=note(side), **self._context(game, side, st, head))
                answers.append(Answer(addr, side, "late", f"[pbem {game.game_id}] late: {sc.side_name(w['side'])}'s "
                                      f"{w['kind']}", body, references=self._refs(game, side), slug=f"{side}-late"))
            if self.cfg.referee:
                body = self._tpl("notice", note=note(REFEREE), **self._context(game, REFEREE, st, head))
                answers.append(Answer(self.cfg.referee, REFEREE, "late", f"[pbem {game.game_id}] referee: "
                                      f"{sc.side_name(w['side'])} is late", body, slug="referee-late"))
            self.commit(rec["job"], answers, game.game_id)
            self._done(key, rec, outcome="late", game=game.game_id, side=w["side"])
        dl = self._deadlines(game)
        if akey in dl.get("waits", {}):
            dl["waits"][akey]["late"] = True
            self._save_deadlines(game, dl)
        msg = (f"game {game.game_id}: {w['side']} is late for the {w['kind']} due {w['due']}; everyone told; "
               f"the default applies at {iso(final)}")
        self.log(msg)
        return msg

    def _apply_default(self, game, akey: str, w: dict) -> str:
        from pbem.views import order_text
        side = w["side"]
        st = game.state()
        seq, head = game.head()
        key = job_key("deadline", game.game_id, akey, head[:16])
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return f"game {game.game_id}: deadline for {side} already handled"
        pre: dict[str, str] = {}
        if not rec:                             # orders held after THEN first, as staged orders (pbem.ahead)
            got = self._apply_held(game, akey, w, head)
            if isinstance(got, str):
                return got
            pre = got
            seq, head = game.head()
        held = staging.staged(game, side)
        skey = job_key("deadline-staged", game.game_id, akey, head[:16])
        srec = self.journal_get(skey)
        if srec and srec.get("status") != "done":
            key, rec = skey, srec                   # staged orders half-way: finished from the journal
        elif not rec and not srec and held and held.get("step") == staging.step_of(game, st):
            # the side staged orders for this step and never sent FINAL: the deadline applies them
            # (if they all fail, the next tick applies the default under its own key)
            key = skey
            rec = self._start(key)
            rec = dict(rec, status="applying", kind="deadline", game=game.game_id, side=side, seq_before=seq,
                       head_before=head, text=held["text"], expect=head, by="", staged=True,
                       staged_ident=staging.ident(held))
            self.journal_put(key, rec)
            crash.checkpoint("journaled")
        # the deadline default: the orders the turn offers as the side's default (core/turn.py Offer.default),
        # built with the side's own sealed notes (the host holds them; a step's default may read them)
        lines = [] if rec and rec.get("staged") else Turn(game.rules, game.scenario, st,
                                                          sealed=game.secret_records()).default_lines(side)
        if not rec:
            if not lines:
                if not w.get("no_default"):
                    dl = self._deadlines(game)
                    dl["waits"][akey]["no_default"] = True
                    self._save_deadlines(game, dl)
                    self.log(f"game {game.game_id}: the deadline for {side}'s {w['kind']} passed, but the rules "
                             "define no default for it; still waiting")
                return f"game {game.game_id}: no default for {side}"
            rec = self._start(key)
            rec = dict(rec, status="applying", kind="deadline", game=game.game_id, side=side, seq_before=seq,
                       head_before=head, text="\n".join(lines), expect=head, by="deadline")
            self.journal_put(key, rec)
            crash.checkpoint("journaled")
        if rec.get("staged_ident"):             # exactly once with a FINAL at the same time (staging.final)
            sub, stale = self._apply_staged(game, rec)
        else:
            if rec.get("staged"):
                staging.discard(game, side)         # a job journaled before staged_ident existed
            sub, stale = self._apply(game, rec)
        crash.checkpoint("applied")
        sc = game.scenario
        if stale or sub is None or not sub.applied:
            why = stale or (str(sub.refused) if sub and sub.refused else "nothing to apply")
            self._done(key, rec, outcome="refused", reason=why)
            msg = f"game {game.game_id}: the deadline default for {side} could not be applied: {why}"
            self.log(msg)
            return msg
        def refused_for(viewer: str) -> str:
            r = sub.refused
            if viewer in (side, REFEREE) or not r.text:
                return str(r)
            shown = order_text(side, r.text, viewer, game.rules)
            # a sealed order: its name only, not even why (the reason may quote it)
            return str(r) if shown == r.text else f"line {r.line}: {shown}"
        def note_for(viewer: str) -> str:
            # each reader sees the applied orders through its own view: a default may seal a secret
            text = ", ".join(order_text(side, a.text, viewer, game.rules) for a in sub.applied)
            at = self.show_time(game, viewer, w["due"])
            if rec.get("staged"):
                note = (f"The deadline for {sc.side_name(side)}'s {w['kind']} passed at {at}. The host applied "
                        f"the orders {sc.side_name(side)} had staged: {text}.")
            else:
                note = (f"The deadline for {sc.side_name(side)}'s {w['kind']} passed at {at}. The host applied "
                        f"the documented default for it: {text}.")
            return note + (f" (Refused: {refused_for(viewer)}.)" if sub.refused is not None else "")
        from pbem import ahead
        chain = ahead.run(game, side)            # the other sides' orders held after THEN whose time came
        told = ahead.notes(game, chain)
        self._sync_deadlines(game)               # first: the reports name the next deadlines
        notes = {s: "\n".join(x for x in (pre.get(s, ""), note_for(s), told.get(s, ""), *ahead.lines_for(game, s))
                               if x)
                 for s in sc.side_ids()}
        answers = self._state_mails(game, notes, kind="deadline", referee_note=note_for(REFEREE))
        self.commit(rec["job"], answers, game.game_id)
        crash.checkpoint("spooled")
        self._mark_reported(game, answers)
        self._done(key, rec, outcome="deadline", applied=len(sub.applied), seq_after=sub.seq)
        # no order text here (as for mailed orders): this goes to host.log, and a default may seal a secret
        what = "the orders it had staged" if rec.get("staged") else "the default"
        msg = f"game {game.game_id}: deadline passed for {side}; applied {what} ({len(sub.applied)} order(s))"
        self.log(msg)
        return msg


    def _apply_held(self, game, akey: str, w: dict, head: str) -> str | dict:
        """The deadline of a side that holds orders after THEN (pbem.ahead): they are applied
        first, as staged orders are.  Returns the log line when they were (reports mailed),
        else what the sides are told of held orders refused or expired (the default follows)."""
        from pbem import ahead
        side, sc = w["side"], game.scenario
        if not ahead.held(game, side):
            return {}
        key = job_key("deadline-held", game.game_id, akey, head[:16])
        rec = self.journal_get(key) or self._start(key)
        chain = ahead.run(game, "")
        told = ahead.notes(game, chain)
        if not any(r["status"] in ("applied", "partly applied") for r in chain):
            self._done(key, rec, outcome="refused", game=game.game_id)
            return told
        self._sync_deadlines(game)
        note = (f"The deadline for {sc.side_name(side)}'s {w['kind']} passed; the host applied the orders "
                f"{sc.side_name(side)} held for this step (after THEN).")
        # held orders are that side's own (ahead.py): the others read only that orders came in time
        public = f"The deadline for {sc.side_name(side)}'s {w['kind']} passed; {sc.side_name(side)}'s orders were applied."
        notes = {s: "\n".join(x for x in (note if s == side else public, told.get(s, ""), *ahead.lines_for(game, s))
                              if x) for s in sc.side_ids()}
        answers = self._state_mails(game, notes, kind="deadline", referee_note=note)
        self.commit(rec["job"], answers, game.game_id)
        crash.checkpoint("spooled")
        self._mark_reported(game, answers)
        self._done(key, rec, outcome="deadline", game=game.game_id)
        msg = f"game {game.game_id}: deadline passed for {side}; applied the orders it held after THEN"
        self.log(msg)
        return msg


def set_preferences(game, zones: dict[str, str], hooks: dict[str, str]) -> None:
    """`pbem new --tz SIDE=ZONE --notify SIDE=URL`: each side's zone (in deadline.json) and
    webhook (pbem.host.notify), for a game just created; a side the game lacks is refused."""
    from pbem.engine import EngineError
    for side in [*zones, *hooks]:
        if side not in game.scenario.side_ids():
            raise EngineError(f"--tz/--notify {side}=...: {game.scenario.id} has no side {side!r}; "
                              f"sides: {', '.join(game.scenario.side_ids())}")
    if zones:
        dl = DeadlinesMixin._deadlines(game)
        dl.setdefault("zones", {}).update({s: z for s, z in zones.items() if z != "UTC"})
        DeadlinesMixin._save_deadlines(game, dl)
    if hooks:
        from pbem.host import notify as N
        N.set_hooks(game, hooks)


def defaults_text(game) -> str:
    """The game's deadline default in words (``Ruleset.defaults_help``), without a leading
    "Deadline defaults:" of its own (the sentence that quotes it says so already)."""
    text = (game.rules.defaults_help or "").strip()
    text = re.sub(r"^deadline defaults\s*[.:]\s*", "", text, flags=re.IGNORECASE)
    if not text:
        return "none: the rules of this game define no default, so the game waits."
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
