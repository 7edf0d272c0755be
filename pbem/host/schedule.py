"""What changes a game's deadlines: `pbem deadline` (show; the game's own clock, days,
minimum, grace, zone and period; extend; pause and resume, each a public event in the
log) and the players' mail commands ABSENT, TIMEZONE and EXTEND (an extension every
side asked for).  When a step is due is pbem.host.clock's; the running deadlines are
pbem.host.deadlines'."""
from __future__ import annotations

import re
from datetime import timedelta

from pbem.host.common import REFEREE, Answer, HostError, fmt_duration, iso, parse_duration, parse_time
from pbem.host.deadlines import POLICY_KEYS, _readers
from pbem.host.journal import job_key
from pbem.store.files import same_game


class ScheduleMixin:
    """Changing the Host's deadlines.  Uses the deadlines (``_deadlines``,
    ``_save_deadlines``, ``_sync_deadlines``, ``_policy``), the letters, the journal and
    the spool."""

    def _hosted(self, game) -> None:
        hosted = self.games().get(game.game_id)
        if hosted is None or not same_game(hosted, game):
            raise HostError(f"game {game.game_id} ({game.store.where}) is not hosted by {self.cfg.root}; "
                            "host it first with `pbem host add`")

    def deadline(self, game, extend: timedelta | None = None, period: str | None = None,
                 settings: dict[str, str] | None = None, pause: bool | None = None) -> list[str]:
        """`pbem deadline`: show; set the game's own policy (``settings``: POLICY_KEYS);
        extend the running deadlines (the players are told); pause or resume them."""
        out = []
        settings = dict(settings or {})
        if period is not None:
            settings["period"] = period
        with self.locked(), self.store.transaction():
            self._hosted(game)
            if settings:
                dl = self._deadlines(game)
                for k, v in settings.items():
                    if k not in POLICY_KEYS:
                        raise HostError(f"no deadline setting {k!r}; the settings are {', '.join(POLICY_KEYS)}")
                    try:
                        _readers()[k](v)
                    except HostError as e:
                        raise HostError(f"--{k}: {e}") from None
                    dl[k] = v
                self._save_deadlines(game, dl)
                self._policy(game, dl).due(self.now())       # a mask and a clock that allow no day refuse here
                out += [f"for new decisions: {ln}" for ln in self._policy(game, dl).describe()]
            dl = self._sync_deadlines(game)
            if pause is not None:
                out.append(self._pause(game, pause))
            if extend is not None:
                if not dl.get("waits"):
                    raise HostError(f"game {game.game_id} has no running deadline to extend")
                self._extend_waits(game, extend, "The host extended")
                self.store.after_commit(self.flush)       # a database sends once the job is in
            elif pause is not None:
                self.store.after_commit(self.flush)
            dl = self._deadlines(game)
            if not settings:
                out += self._policy(game, dl).describe()
            if dl.get("paused"):
                out.append(f"paused since {dl['paused']['at']}")
            pol = self._policy(game, dl)
            for k, w in dl.get("waits", {}).items():
                grace = f", grace until {iso(pol.final(parse_time(w['due'])))}" if pol.grace else ""
                out.append(f"{w['side']}: {w['kind']} due by {w['due']}{grace}"
                           + (" (late)" if w.get("late") else " (reminded)" if w.get("reminded") else ""))
            if not dl.get("waits"):
                out.append("no deadline running" + ("" if pol.on else " (no deadline period set)"))
        return out

    def _extend_waits(self, game, delta: timedelta, who: str, key_extra: str = "") -> int:
        """Every running deadline of ``game`` ``delta`` later, each side told (in its zone)."""
        dl = self._deadlines(game)
        st = game.state()
        head = game.head()[1]
        sc = game.scenario
        for k, w in dl.get("waits", {}).items():
            try:
                due = parse_time(w["due"]) + delta
            except OverflowError:               # a due date near the calendar's end (written by hand)
                raise HostError(f"the deadline {w['due']} cannot be moved {fmt_duration(delta)} later: "
                                "past the end of the calendar") from None
            w["due"] = iso(due)
            w["late"] = False
            w["reminded"] = bool(self.cfg.reminder) and w.get("reminded", False) and \
                self.now() >= due - self.cfg.reminder
            key = job_key("extend", game.game_id, k, w["due"], key_extra)
            rec = self.journal_get(key)
            if rec and rec.get("status") == "done":
                continue
            rec = rec or self._start(key)
            answers = []
            for side, addr in self._players(game).items():
                note = (f"{who} the deadline for {sc.side_name(w['side'])}'s {w['kind']} by {fmt_duration(delta)}: "
                        f"it is now due by {self.show_time(game, side, due, dl)}.")
                body = self._tpl("notice", note=note, **self._context(game, side, st, head))
                answers.append(Answer(addr, side, "notice", f"[pbem {game.game_id}] deadline extended to "
                                      f"{w['due']}", body, references=self._refs(game, side), slug=f"{side}-notice"))
            self.commit(rec["job"], answers, game.game_id)
            self._done(key, rec, outcome="extended", game=game.game_id)
            self.log(f"game {game.game_id}: {who.lower()} the deadline for {w['side']}'s {w['kind']} by "
                     f"{fmt_duration(delta)}, to {w['due']}")
        self._save_deadlines(game, dl)
        return len(dl.get("waits", {}))

    def _pause(self, game, pause: bool) -> str:
        """Pause (or resume) every deadline of ``game``: a public event in its log, and every side's
        report with a note.  On resuming, each deadline keeps the time it had left (one that arose
        while paused, its whole time), moved on to the clock as the policy says."""
        from pbem.core import events as E
        from pbem.engine import EngineError
        dl = self._deadlines(game)
        now = self.now()
        if game.state().result is not None:
            raise HostError(f"game {game.game_id} is over: it has no deadlines to pause or resume")
        if pause and dl.get("paused"):
            raise HostError(f"the deadlines of game {game.game_id} are paused already (since {dl['paused']['at']})")
        if not pause and not dl.get("paused"):
            raise HostError(f"the deadlines of game {game.game_id} are not paused")
        try:
            game.host_event(E.DeadlinesChanged(action="paused" if pause else "resumed", by="host"), at=iso(now))
        except EngineError as e:
            raise HostError(str(e)) from None
        pol = self._policy(game, dl)
        if pause:
            dl["paused"] = {"at": iso(now)}
        else:
            since = parse_time(dl.pop("paused")["at"])
            for w in dl.get("waits", {}).values():
                shift = now - max(since, parse_time(w["since"]))
                w["due"] = iso(pol.align(parse_time(w["due"]) + shift))
                w["reminded"] = w["late"] = False
        self._save_deadlines(game, dl)
        what = "paused" if pause else "resumed"
        notes = {}
        for side in game.scenario.side_ids() + [REFEREE]:
            at = self.show_time(game, side, now, dl)
            notes[side] = (f"The host paused the deadlines of this game at {at}: no deadline runs, and no default "
                           "is applied, until the host resumes them. Orders are taken as always." if pause else
                           f"The host resumed the deadlines of this game at {at}; each keeps the time it had left.")
        key = job_key("pause", game.game_id, what, game.head()[1])
        rec = self._start(key)
        answers = self._state_mails(game, notes, kind="notice", referee_note=notes[REFEREE])
        self.commit(rec["job"], answers, game.game_id)
        self._mark_reported(game, answers)
        self._done(key, rec, outcome=what, game=game.game_id)
        self._sync_deadlines(game)
        self.log(f"game {game.game_id}: deadlines {what} by the host")
        return f"deadlines {what}; the players were told"

    # --- the players' commands -----------------------------------------------------------

    def _timezone(self, game, side: str, arg: str) -> str:
        """TIMEZONE ZONE: the zone this side reads its times in (besides UTC); TIMEZONE UTC drops it."""
        from pbem.host import clock as C
        name = arg.strip()
        if not name:
            z = self.zone_of(game, side)
            return (f"Your times are in UTC and {z}. " if z else "Your times are in UTC only. ") + \
                "Send TIMEZONE Europe/Berlin (your zone, as the tz database names it) to change it."
        try:
            name = C.check_zone(name)
        except HostError as e:
            return f"TIMEZONE: {e}; nothing changed."
        with self.locked():
            dl = self._deadlines(game)
            zones = dl.setdefault("zones", {})
            if name == "UTC":
                zones.pop(side, None)
            else:
                zones[side] = name
            self._save_deadlines(game, dl)
        return ("Your times are now in UTC only." if name == "UTC" else
                f"Your times are now in UTC and in {name}: it is {C.show(self.now(), name)}.")

    def _extend_offer(self, game, side: str, arg: str, job: str) -> str:
        """EXTEND 2d: this side asks for the running deadlines to move 2d later; once every side
        asked for the same, they move (a public event in the log, every side told)."""
        from pbem import staging
        from pbem.core import events as E
        try:
            delta = parse_duration(arg.strip(), zero=False)
        except HostError as e:
            return f"EXTEND: {e}; nothing changed."
        if delta is None:
            return "EXTEND needs a duration, e.g. EXTEND 2d; nothing changed."
        sc = game.scenario
        with self.locked():
            dl = self._deadlines(game)
            st = game.state()
            step = staging.step_of(game, st)
            offer = dl.get("extend") or {}
            if job in offer.get("jobs", []) or job in dl.get("extended_by", []):
                return "EXTEND: this mail was counted already."
            if not dl.get("waits"):
                return "EXTEND: no deadline is running; nothing changed."
            if offer.get("step") != step or offer.get("by") != fmt_duration(delta):
                offer = {"step": step, "by": fmt_duration(delta), "sides": [], "jobs": []}
            if side not in offer["sides"]:
                offer["sides"].append(side)
            offer["jobs"].append(job)
            missing = [s for s in sc.side_ids() if s not in offer["sides"]]
            if missing:
                dl["extend"] = offer
                self._save_deadlines(game, dl)
                self.log(f"game {game.game_id}: {side} asks to extend the deadlines by {offer['by']}")
                self._tell_offer(game, side, offer, missing)
                return (f"Your EXTEND {offer['by']} is noted. The deadlines move when "
                        f"{' and '.join(sc.side_name(s) for s in missing)} also send EXTEND {offer['by']} "
                        "(in this step of the game); they are told.")
            dl.pop("extend", None)
            dl["extended_by"] = (dl.get("extended_by", []) + offer["jobs"])[-50:]
            self._save_deadlines(game, dl)
            game.host_event(E.DeadlinesChanged(action="extended", by="sides", text=f"by {offer['by']}"),
                            at=iso(self.now()))
            n = self._extend_waits(game, delta, "Every side agreed: the host extended", key_extra=job)
        return f"Every side asked for it: the {n} running deadline(s) are now {offer['by']} later."

    def _tell_offer(self, game, side: str, offer: dict, missing: list[str]) -> None:
        sc = game.scenario
        st = game.state()
        head = game.head()[1]
        key = job_key("extend-offer", game.game_id, offer["step"], offer["by"], side)
        rec = self.journal_get(key)
        if rec and rec.get("status") == "done":
            return
        rec = rec or self._start(key)
        answers = []
        for other in missing:
            addr = self._players(game).get(other)
            if not addr:
                continue
            note = (f"{sc.side_name(side)} asks to extend the running deadlines by {offer['by']}. To agree, send "
                    f"EXTEND {offer['by']} (a line of its own) in this step of the game; otherwise nothing changes.")
            body = self._tpl("notice", note=note, **self._context(game, other, st, head))
            answers.append(Answer(addr, other, "notice", f"[pbem {game.game_id}] {sc.side_name(side)} asks for "
                                  f"{offer['by']} more", body, references=self._refs(game, other),
                                  slug=f"{other}-extend"))
        self.commit(rec["job"], answers, game.game_id)
        self._done(key, rec, outcome="extend-offer", game=game.game_id)

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
            return f"ABSENT: {self.show_time(game, side, until)} has passed already; nothing changed."
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
                already = (f"you are marked absent until {self.show_time(game, side, before)} already" if before > now else
                           f"you were away {fmt_duration(cap)} within the last {fmt_duration(window)} already")
                return f"ABSENT: {already}, and this host lets a player be away {rule}; nothing changed."
            capped = "" if until == asked else (f"This host lets a player be away {rule}, so not until "
                                                f"{self.show_time(game, side, asked)}. ")
            A.granted(dl, side, now, until, window)
            dl.setdefault("absent", {})[side] = iso(until)
            moved = 0
            for w in dl.get("waits", {}).values():
                if w["side"] == side and parse_time(w["due"]) < until:
                    w["due"], w["reminded"] = iso(until), False
                    moved += 1
            self._save_deadlines(game, dl)
        self.log(f"game {game.game_id}: {side} is absent until {iso(until)}")
        return (f"{capped}You are marked absent until {self.show_time(game, side, until)}: no deadline of yours falls before then"
                + (f" ({moved} running deadline(s) moved)." if moved else "."))
