"""Deadlines: the clock of every decision a game waits for (deadline.json
in the game folder), reminders before it runs out, the rules' default
orders applied when it does (exactly once, like orders by mail), reports
for moves made at the host rather than by mail, and `pbem deadline`
(show, extend, set the period)."""
from __future__ import annotations

import json
import re
from datetime import timedelta

from pbem import staging
from pbem.host import crash
from pbem.host import mail as M
from pbem.host.common import DEADLINE_NAME, REFEREE, Answer, HostError, fmt_duration, iso, parse_duration, \
    parse_time
from pbem.host.journal import job_key


class DeadlinesMixin:
    """The Host's deadlines.  Uses the Host's ``cfg``, ``now``, ``games``,
    ``locked``, ``log``, the journal, the players, the letters, the spool and
    ``_apply`` (ingest's exactly-once application of orders)."""

    def _period(self, game) -> timedelta | None:
        dl = self._deadlines(game)
        if "period" in dl:
            try:
                return parse_duration(dl["period"], zero=False)
            except HostError:                   # written by hand, or by a pbem that did not bound it
                pass
        return self.cfg.period

    def deadlines_on(self, game) -> bool:
        """Do this game's decisions get deadlines at all?"""
        return self._period(game) is not None

    @staticmethod
    def _deadlines(game) -> dict:
        try:
            return json.loads((game.dir / DEADLINE_NAME).read_text())
        except (OSError, ValueError):
            return {}

    @staticmethod
    def _save_deadlines(game, dl: dict) -> None:
        M.write_atomic(game.dir / DEADLINE_NAME, json.dumps(dl, indent=1, sort_keys=True).encode())

    @staticmethod
    def _await_key(st, item: dict) -> str:
        units = ",".join(item.get("units", []) or [])
        return f"t{st.turn}.p{st.phase}.{item['side']}.{item['kind']}.{item.get('combat', '')}.{units}"

    def _sync_deadlines(self, game) -> dict:
        """Start the clock for every decision newly awaited; forget answered ones."""
        dl = self._deadlines(game)
        period = self._period(game)
        st = game.state()
        waits = dict(dl.get("waits", {}))
        now = self.now()
        items = [] if st.result is not None else game.rules.awaiting(st, game.scenario)
        keys = {}
        for item in items:
            k = self._await_key(st, item)
            keys[k] = item
        new = {k: v for k, v in waits.items() if k in keys}
        away = dl.get("absent", {})
        for k, item in keys.items():
            if k not in new and period is not None:
                due = now + period
                if away.get(item["side"]) and parse_time(away[item["side"]]) > due:
                    due = parse_time(away[item["side"]])          # the player said ABSENT until then
                new[k] = {"side": item["side"], "kind": item["kind"], "since": iso(now), "due": iso(due),
                          "reminded": False}
        if new != waits or "waits" not in dl:
            dl["waits"] = new
            self._save_deadlines(game, dl)
        return dl

    def tick(self) -> list[str]:
        """Reminders and deadline defaults that are due, for every hosted game."""
        from pbem.engine import EngineError, Game
        from pbem.log import LogError
        done = []
        with self.locked():
            for gid, path in self.games().items():
                try:
                    game = Game(path)
                    dl = self._sync_deadlines(game)
                except (EngineError, LogError, OSError) as e:
                    self.log(f"game {gid}: skipped ({e})")
                    continue
                if self.busy(gid):
                    self.log(f"game {gid}: orders of a message are half-way; they are finished when that "
                             "message is polled again (deadlines wait until then)")
                    continue
                try:
                    done += self._tick_game(game, dl)
                except Exception as e:            # noqa: BLE001 - one game's trouble must not stop the others
                    self.log(f"game {gid}: reports and deadlines skipped this time: {type(e).__name__}: {e}")
        return done

    def _tick_game(self, game, dl: dict) -> list[str]:
        synced = self._sync_reports(game)
        if synced:
            return [synced]
        now = self.now()
        done = []
        for k, w in sorted(dl.get("waits", {}).items()):
            due = parse_time(w["due"])
            if now >= due:
                done.append(self._apply_default(game, k, w))
                break                   # the state changed; look again on the next tick
            if self.cfg.reminder and not w.get("reminded") and now >= due - self.cfg.reminder:
                done.append(self._remind(game, k, w))
        return done

    def _sync_reports(self, game) -> str:
        """The log moved on without the mail (the host used `pbem order`,
        `pbem reveal`, ...): every side still gets its report of the change."""
        seq, head = game.head()
        viewers = list(self._players(game)) + ([REFEREE] if self.cfg.referee else [])
        if not viewers or min(game.last_report(v) for v in viewers) >= seq:
            return ""
        key = job_key("sync", game.game_id, head)
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return ""
        rec = rec or self._start(key)
        note = "The game moved on at the host (not by mail); here is where it stands."
        answers = [a for a in self._state_mails(game, {"*": note}, kind="report", referee_note=note)
                   if game.last_report(a.viewer) < seq]
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
                from pbem.views import awaiting_rows
                # as the side may read it (Ruleset.awaiting_view), as its reports and STATUS say it
                body = self._tpl("reminder", due=w["due"], kind=w["kind"],
                                 awaiting=[a for a in awaiting_rows(game, st, w["side"]) if a["side"] == w["side"]],
                                 default_lines=game.rules.default_orders(st, game.scenario, w["side"]),
                                 staged=bool((staging.staged(game, w["side"]) or {}).get("step") == staging.step_of(st)),
                                 **self._context(game, w["side"], st, head))
                answers.append(Answer(addr, w["side"], "reminder",
                                      f"[pbem {game.game_id}] reminder: {game.scenario.side_name(w['side'])}, your "
                                      f"{w['kind']} is due by {w['due']}", body, head=head, seq=st.seq,
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

    def _apply_default(self, game, akey: str, w: dict) -> str:
        from pbem.views import order_text
        side = w["side"]
        st = game.state()
        seq, head = game.head()
        key = job_key("deadline", game.game_id, akey, head[:16])
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return f"game {game.game_id}: deadline for {side} already handled"
        held = staging.staged(game, side)
        skey = job_key("deadline-staged", game.game_id, akey, head[:16])
        srec = self.journal_get(skey)
        if srec and srec.get("status") != "done":
            key, rec = skey, srec                   # staged orders half-way: finished from the journal
        elif not rec and not srec and held and held.get("step") == staging.step_of(st):
            # the side staged orders for this step and never sent FINAL: the deadline applies them
            # (if they all fail, the next tick applies the default under its own key)
            key = skey
            rec = self._start(key)
            rec = dict(rec, status="applying", kind="deadline", game=game.game_id, side=side, seq_before=seq,
                       head_before=head, text=held["text"], expect=head, by="", staged=True,
                       staged_ident=staging.ident(held))
            self.journal_put(key, rec)
            crash.checkpoint("journaled")
        lines = [] if rec and rec.get("staged") else game.rules.default_orders(st, game.scenario, side)
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
            if rec.get("staged"):
                note = (f"The deadline for {sc.side_name(side)}'s {w['kind']} passed at {w['due']}. The host applied "
                        f"the orders {sc.side_name(side)} had staged: {text}.")
            else:
                note = (f"The deadline for {sc.side_name(side)}'s {w['kind']} passed at {w['due']}. The host applied "
                        f"the documented default for it: {text}.")
            return note + (f" (Refused: {refused_for(viewer)}.)" if sub.refused is not None else "")
        notes = {s: note_for(s) for s in sc.side_ids()}
        answers = self._state_mails(game, notes, kind="deadline", referee_note=note_for(REFEREE))
        self.commit(rec["job"], answers, game.game_id)
        crash.checkpoint("spooled")
        self._mark_reported(game, answers)
        self._done(key, rec, outcome="deadline", applied=len(sub.applied), seq_after=sub.seq)
        self._sync_deadlines(game)
        # no order text here (as for mailed orders): this goes to host.log, and a default may seal a secret
        what = "the orders it had staged" if rec.get("staged") else "the default"
        msg = f"game {game.game_id}: deadline passed for {side}; applied {what} ({len(sub.applied)} order(s))"
        self.log(msg)
        return msg

    def deadline(self, game, extend: timedelta | None = None, period: str | None = None) -> list[str]:
        """`pbem deadline`: show, extend (and tell the players), or set the period."""
        out = []
        with self.locked():
            hosted = self.games().get(game.game_id)
            if hosted is None or hosted.resolve() != game.dir.resolve():
                raise HostError(f"game {game.game_id} ({game.dir}) is not hosted by {self.cfg.root}; "
                                "host it first with `pbem host add`")
            if period is not None:
                parse_duration(period, zero=False)
                dl = self._deadlines(game)
                dl["period"] = period
                self._save_deadlines(game, dl)
                out.append(f"period for new decisions: {fmt_duration(parse_duration(period))}")
            dl = self._sync_deadlines(game)
            if extend is not None:
                waits = dl.get("waits", {})
                if not waits:
                    raise HostError(f"game {game.game_id} has no running deadline to extend")
                st = game.state()
                head = game.head()[1]
                for k, w in waits.items():
                    try:
                        due = parse_time(w["due"]) + extend
                    except OverflowError:               # a due date near the calendar's end (written by hand)
                        raise HostError(f"the deadline {w['due']} cannot be moved {fmt_duration(extend)} later: "
                                        "past the end of the calendar") from None
                    w["due"] = iso(due)
                    w["reminded"] = bool(self.cfg.reminder) and w.get("reminded", False) and \
                        self.now() >= due - self.cfg.reminder
                    key = job_key("extend", game.game_id, k, w["due"])
                    rec = self.journal_get(key)
                    if rec and rec.get("status") == "done":
                        continue
                    rec = rec or self._start(key)
                    note = (f"The host extended the deadline for {game.scenario.side_name(w['side'])}'s "
                            f"{w['kind']} by {fmt_duration(extend)}: it is now due by {w['due']}.")
                    answers = []
                    for side, addr in self._players(game).items():
                        body = self._tpl("notice", note=note, **self._context(game, side, st, head))
                        answers.append(Answer(addr, side, "notice", f"[pbem {game.game_id}] deadline extended to "
                                              f"{w['due']}", body, references=self._refs(game, side),
                                              slug=f"{side}-notice"))
                    self.commit(rec["job"], answers, game.game_id)
                    self._done(key, rec, outcome="extended", game=game.game_id)
                    self.log(f"game {game.game_id}: {note}")
                self._save_deadlines(game, dl)
                self.flush()
            for k, w in self._deadlines(game).get("waits", {}).items():
                out.append(f"{w['side']}: {w['kind']} due by {w['due']}" + (" (reminded)" if w.get("reminded") else ""))
            if not self._deadlines(game).get("waits"):
                out.append("no deadline running" + ("" if self._period(game) else " (no deadline period set)"))
        return out

    def _absent(self, game, side: str, arg: str) -> str:
        """ABSENT until DATE: ``side``'s running and future deadlines move to DATE at the
        latest, as far ahead as the host's ``[deadlines] absence`` allows within any
        ``absence_window`` (pbem.host.absence): a renewal while away counts too."""
        from pbem.host import absence as A
        m = re.fullmatch(r"(?:until\s+)?(\S+)", arg.strip(), re.IGNORECASE)
        if not m:
            return "ABSENT needs a date: ABSENT until 2026-03-01 (or a time: 2026-03-01T18:00:00Z); nothing changed."
        if self.cfg.absence is None:
            return "This host grants no absences (its [deadlines] absence is off); nothing changed."
        try:
            until = parse_time(m.group(1))
        except HostError as e:
            return f"ABSENT: {e}; nothing changed."
        now = self.now()
        if until <= now:
            return f"ABSENT: {iso(until)} has passed already; nothing changed."
        cap, window = self.cfg.absence, self.cfg.absence_window
        rule = f"{fmt_duration(cap)} at most in any {fmt_duration(window)}"
        with self.locked():
            dl = self._deadlines(game)
            asked = until
            until = A.longest(A.spans(dl, side, now, window), now, min(until, now + cap), cap, window)
            try:
                before = parse_time(dl.get("absent", {}).get(side) or "")
            except HostError:
                before = now
            if until <= max(now, before):
                already = (f"you are marked absent until {iso(before)} already" if before > now else
                           f"you were away {fmt_duration(cap)} within the last {fmt_duration(window)} already")
                return f"ABSENT: {already}, and this host lets a player be away {rule}; nothing changed."
            capped = "" if until == asked else (f"This host lets a player be away {rule}, so not until "
                                                f"{iso(asked)}. ")
            A.granted(dl, side, now, until, window)
            dl.setdefault("absent", {})[side] = iso(until)
            moved = 0
            for w in dl.get("waits", {}).values():
                if w["side"] == side and parse_time(w["due"]) < until:
                    w["due"], w["reminded"] = iso(until), False
                    moved += 1
            self._save_deadlines(game, dl)
        self.log(f"game {game.game_id}: {side} is absent until {iso(until)}")
        return (f"{capped}You are marked absent until {iso(until)}: no deadline of yours falls before then"
                + (f" ({moved} running deadline(s) moved)." if moved else "."))
