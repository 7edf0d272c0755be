"""Ingest: one incoming message from start to answer.  Parse it, recognise
a duplicate or a copied Message-ID, find the game and side and authenticate
the sender (the registered address and its Token: or Signature:), then
either refuse it with a reason or journal its orders and apply them exactly
once: after a crash the journaled job is recovered from the game's log
instead of being applied again.  Last, the answer to the sender and the
reports to the other sides.

The lines of an authenticated mail are sorted by ``mailcmd.read`` (orders,
misspelt orders, commands, text to ignore); the mail then checks its orders
(CHECK), stages them (DRAFT, or a host in staged mode), applies them or the
staged ones (FINAL), or applies them at once, and answers its commands."""
from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pbem import ahead, staging
from pbem.core.events import PressSent
from pbem.core.turn import Turn
from pbem.host import crash
from pbem.host import mail as M
from pbem.host import mailcmd
from pbem.host.common import REFEREE, Answer, HostError
from pbem.host.mailcmd import board_asked
from pbem.host.players import secret_digest


# The outcome an answer's subject begins with ("ACCEPTED: Re: [pbem g1] orders"): what
# happened to the mail, readable in the list of mails without opening one.
SUBJECT_OUTCOME = {"accepted": "ACCEPTED", "partial": "PARTLY APPLIED", "refused": "REFUSED", "checked": "CHECKED",
                   "staged": "STAGED", "answered": "ANSWERED", "empty": "NO ORDERS"}
_PREFIXES = re.compile(r"^(?:\s*(?:(?:re|aw|sv|fwd?)\s*:|(?:%s)\s*:))+\s*" % "|".join(
    re.escape(w) for w in SUBJECT_OUTCOME.values()), re.IGNORECASE)


@dataclass
class Outcome:
    """What happened to one message (for the log and the command line)."""
    name: str
    # accepted | partial | refused | checked | staged | duplicate | ignored | quarantined | error
    status: str
    filed: str = "processed"     # processed | quarantine | left (still in the inbox)
    game: str = ""
    side: str = ""
    detail: str = ""

    def line(self) -> str:
        who = f" {self.game}/{self.side}" if self.game and self.side else (f" {self.game}" if self.game else "")
        det = f": {self.detail}" if self.detail else ""
        return f"{self.name}: {self.status}{who}{det}"


class IngestMixin:
    """The Host's handling of one message.  Uses the Host's ``cfg``, ``games``,
    ``log``, the journal, the players, the letters, the spool and the
    deadlines (``_sync_deadlines``)."""

    def ingest_claimed(self, raw: bytes, name: str, source: str = "", retry: bool = False,
                       inc: M.Incoming | None = None, pass_busy: bool = False) -> Outcome | None:
        """``ingest`` as one job of the store: with a database, the message is claimed
        first (its journal row taken FOR UPDATE SKIP LOCKED) and its events, its
        journal record and its outgoing mail commit together, or not at all; None
        when another worker has the message in hand (with ``pass_busy``, also when
        another holds the lock of the game it names).  The file store's journal makes
        the job happen once by itself (one host process at a time).  ``inc``: ``raw``
        read by ``mail.parse`` already."""
        inc = inc or M.parse(raw, self.cfg.max_bytes)   # read once: ``ingest`` takes it as it is
        try:
            with self.store.claim(inc.key, source, game=inc.game if pass_busy else "", doing=f"mail {name}") as got:
                if not got:
                    return None
                oc = self.ingest(raw, name, retry, inc=inc)
        except self.store.errors as e:
            oc = Outcome(name, "error", "left", detail=f"the database failed ({type(e).__name__}: {e}); nothing "
                         "of this message was kept, and it is tried again on the next poll")
            self.log(oc.line())
        finally:
            if getattr(self, "_in_look", False):
                self._idle_due = True               # said at the look's end (``_take_inbox``)
            else:
                self.store.beat("")
        return oc

    def ingest(self, raw: bytes, name: str, retry: bool = False, inc: M.Incoming | None = None) -> Outcome:
        """One message, start to answer; never raises (but a SimulatedCrash).
        With ``retry`` a message quarantined before is looked at afresh (it
        changed nothing then); `pbem mail ingest` retries.  ``inc``: ``raw``
        already read by ``mail.parse`` (it is not read twice).

        When the host itself fails (a full or read-only disk, any OSError) the
        message stays in the inbox and is tried again on the next poll: it is
        not the message's fault.  Any other failure is the message's: before its
        orders were taken it goes to quarantine with the reason; after, it is
        retried MAX_ATTEMPTS times and then set aside, so one poisoned message
        can never stop the host, its deadlines or its other games."""
        self._taken = {}                            # the "applying" record this message wrote, by key
        self._unwritten = None                      # a started record not written yet (journal._start)
        self._players_read = {}                     # each game's players, read once for this message
        try:
            with self.store.atomic():               # a database rolls back what a failing message did
                oc = self._ingest(raw, name, retry, inc)
        except self.store.errors:
            raise                                   # the database itself: nothing kept, the job is tried again
        except OSError as e:
            oc = Outcome(name, "error", "left", detail=f"the host could not write ({e.strerror or e}); the message "
                         "stays in the inbox and is tried again on the next poll")
        except Exception as e:                     # noqa: BLE001 - one bad message must not stop the host
            oc = self._failed(raw, name, e)
        finally:
            self._players_read = None
        self.log(oc.line())
        return oc

    MAX_ATTEMPTS = 3
    FILING_GRACE = 30.0                             # s: a worker files the message it just dealt with

    def _just_done_by_another(self, rec: dict) -> bool:
        """A job another worker (or Host) finished a moment ago: its message is being filed
        by that worker, between its commit and its filing, and filing it here too would
        put a second copy in an IMAP folder.  Left in the inbox instead; should that worker
        have died before filing it, a poll after ``FILING_GRACE`` files it (clocks of
        different machines apart by more than that only move the moment)."""
        by, at = rec.get("done_by"), rec.get("done_at")
        if not by or by == self.journal_token or not isinstance(at, (int, float)):
            return False
        return time.time() - at < self.FILING_GRACE

    def _failed(self, raw: bytes, name: str, e: Exception) -> Outcome:
        why = f"internal error ({type(e).__name__}: {e})"
        try:
            inc = M.parse(raw, self.cfg.max_bytes)
            rec = self.journal_get(inc.key) or {}
            if rec.get("status") != "applying" and inc.key in getattr(self, "_taken", {}):
                # a database rolled back the orders and their "applying" record with them: the
                # orders were taken all the same, so the message is retried as on files
                rec = self._taken[inc.key]
            if rec.get("status") != "applying":
                return Outcome(name, "error", "quarantine", detail=why)
            rec = dict(rec, attempts=int(rec.get("attempts", 0)) + 1)
            gid, side = rec.get("game", ""), rec.get("side", "")
            if rec["attempts"] < self.MAX_ATTEMPTS:
                self.journal_put(inc.key, rec)
                return Outcome(name, "error", "left", gid, side, f"{why} after the orders were taken; left in the "
                               f"inbox to finish on the next poll (attempt {rec['attempts']} of {self.MAX_ATTEMPTS})")
            # give up on this message: what the log holds stays; the next tick mails every side its report
            self._done(inc.key, rec, outcome="error", filed="quarantine", reason=why)
            return Outcome(name, "error", "quarantine", gid, side, f"{why} after the orders were taken, "
                           f"{self.MAX_ATTEMPTS} times; set aside " + ("(the database kept nothing of it)" if
                           self.store.shared else "(what was applied stays applied)"))
        except OSError as e2:
            return Outcome(name, "error", "left", detail=f"{why}; the host could not record it either "
                           f"({e2.strerror or e2}); tried again on the next poll")

    def _ingest(self, raw: bytes, name: str, retry: bool = False, inc: M.Incoming | None = None) -> Outcome:
        inc = M.parse(raw, self.cfg.max_bytes) if inc is None else inc
        key = inc.key
        rec = self.journal_get(key)
        if retry and rec and rec.get("status") == "done" and rec.get("filed") == "quarantine" \
                and rec.get("digest") == inc.digest:
            self.store.job_retire(key, rec["job"])      # kept, no longer in force
            rec = None
        if rec and rec.get("status") == "done":
            if rec.get("digest") == inc.digest:
                filed = rec.get("filed", "processed")
                if self._just_done_by_another(rec):
                    filed = "left"                  # that worker is filing it now (else the next poll does)
                return Outcome(name, "duplicate", filed, rec.get("game", ""), rec.get("side", ""),
                               f"Message-ID {inc.message_id or '(none)'} was already dealt with ({rec.get('outcome', '')}); "
                               "not applied again")
            key = f"{key}#{inc.digest[:16]}"
            rec = self.journal_get(key)
            if rec and rec.get("status") == "done":
                return Outcome(name, "duplicate", rec.get("filed", "quarantine"), detail="already refused once")
            rec = rec or self._start(key, digest=inc.digest)
            return self._refuse(name, inc, key, rec,
                                f"this message reuses the Message-ID <{inc.message_id}> of an earlier message with "
                                "different content; a message is applied once, and a copied one is refused",
                                quarantine=True)
        if rec and rec.get("status") == "applying":
            return self._finish_orders(name, inc, key, rec)
        rec = rec or self._start(key, write=False, digest=inc.digest)     # recorded by the job's first write
        crash.checkpoint("started")
        if not inc.own and not inc.automatic and inc.sender and inc.sender == self.cfg.referee \
                and not inc.problem and board_asked(inc):
            return self._board(name, inc, key, rec)
        if inc.own or (inc.sender and inc.sender == self.cfg.address):
            self._done(key, rec, outcome="ignored", filed="processed")
            return Outcome(name, "ignored", "processed", detail="pbem's own mail; nothing to do")
        if inc.automatic:
            self._done(key, rec, outcome="ignored", filed="quarantine")
            return Outcome(name, "quarantined", "quarantine", detail=f"{inc.automatic}; not answered")
        if not inc.sender:
            self._done(key, rec, outcome="quarantined", filed="quarantine")
            return Outcome(name, "quarantined", "quarantine", detail="no From address: nobody to answer")
        if inc.problem:
            return self._refuse(name, inc, key, rec, f"the host could not read your message: {inc.problem}.",
                                quarantine=True)
        # which game, which side, and is it really them?
        gid = inc.game
        if inc.fields.get("game") and inc.subject_game and inc.fields["game"] != inc.subject_game:
            return self._refuse(name, inc, key, rec, f"the subject names game {inc.subject_game} but the Game: line "
                                f"names {inc.fields['game']}; say which one", quarantine=True)
        if not gid:
            return self._refuse(name, inc, key, rec, "the message does not say which game it is for: put "
                                "[pbem GAME-ID] in the subject (replying to a pbem mail keeps it) or a line "
                                "'Game: GAME-ID' in the body", quarantine=True)
        game = self.game(gid)
        if game is None or not self._plays(game, inc.sender):
            # the same words whether the game exists or not: an answer never tells which ids exist
            return self._refuse(name, inc, key, rec, f"{inc.sender} plays no game {gid!r} on this host; check the "
                                "game id in your welcome mail", quarantine=True, game_id=gid if game else "")
        players = self._players(game)
        side = inc.fields.get("side", "").lower()
        side = game.scenario.side_of(side) or side          # "Side: Commonwealth" names allied
        if not side:
            mine = [s for s, a in players.items() if a == inc.sender]
            if len(mine) == 1:
                side = mine[0]
            elif len(mine) > 1:
                return self._refuse(name, inc, key, rec, f"you play {' and '.join(mine)} in game {gid}: add a "
                                    "line 'Side: SIDE' to say which side these orders are for",
                                    quarantine=True, game_id=gid)
        if not side:
            gone = self._retired_address(game, inc.sender)
            if gone:
                return self._refuse(name, inc, key, rec, _no_longer(game, inc.sender, gone), quarantine=True,
                                    game_id=gid)
        if side not in game.scenario.side_ids():
            what = f"side {side!r} is not a side of game {gid}" if side else \
                f"this address is not registered for any side of game {gid}"
            return self._refuse(name, inc, key, rec, f"{what}; nothing was applied", quarantine=True, game_id=gid)
        problem = self._authenticate(game, side, inc)
        if problem:
            return self._refuse(name, inc, key, rec, problem, quarantine=True, game_id=gid, side=side)
        # authenticated: sort the lines, record what will be applied, on which head, before touching the log
        req = mailcmd.read(inc.orders, inc.subject, game)
        if game.created.signatures == "required" and not inc.ssh_signature and (req.has_orders or req.press.strip()):
            from pbem.host.trustmail import UNSIGNED
            return self._refuse(name, inc, key, rec, UNSIGNED, quarantine=False, game_id=gid, side=side)
        too_much = mailcmd.press_problem(self.cfg, game, side, req)
        if too_much:                                # bounded press: no mail to the other side can swell
            return self._refuse(name, inc, key, rec, too_much, quarantine=False, game_id=gid, side=side)
        seq, head = game.head()
        job = self._plan(game, side, req)
        # orders sent to be applied replace what was staged (a FINAL's staged text is in the journal)
        job["drop_staged"] = job["mode"] == "final" or (job["mode"] == "apply" and req.has_orders)
        job.update(_ahead_plan(job, req))
        if inc.ssh_signature and job["mode"] == "apply":          # the log keeps what the key signed
            job.update(signed=inc.ssh_signed, signature=inc.ssh_signature)
        rec = dict(rec, status="applying", kind="orders", game=gid, side=side, seq_before=seq, head_before=head,
                   expect=inc.fields.get("head", "").lower(), by="", commands=req.commands, ignored=req.ignored,
                   **job)
        self.journal_put(key, rec)
        self._taken = {key: rec}
        crash.checkpoint("journaled")
        return self._finish_orders(name, inc, key, rec, game)

    def _plan(self, game, side: str, req) -> dict:
        """What a mail does: ``mode`` (apply | check | stage | final), ``text`` (applied
        now: orders and press), ``check`` / ``stage`` (the orders to check or hold)
        and ``note`` (what became of staged orders)."""
        if req.mode == "check":
            return {"mode": "check", "text": "", "check": mailcmd.merge(req.orders, req.press)}
        if req.mode == "final" and not req.has_orders:
            held = staging.staged(game, side)
            press = "\n".join(ln for ln in req.press.split("\n") if ln)
            if held is None:
                return {"mode": "final", "text": press, "note": "FINAL: no orders were staged, so none were applied."}
            now = staging.step_of(game, game.state())
            if staging.under(held.get("step"), now):
                return {"mode": "final", "text": press, "note": f"FINAL: {staging.UNDER}."}
            if held.get("step") != now:
                return {"mode": "final", "text": press, "note": "FINAL: your staged orders were for a step the game "
                        "has left; they were dropped, not applied."}
            text = held["text"].rstrip("\n") + ("\n" + press if press else "")
            return {"mode": "final", "text": text, "staged_ident": staging.ident(held),
                    "note": "FINAL: your staged orders were applied (line numbers below are those of the staged "
                            "orders)."}
        if req.mode == "final":
            return {"mode": "final", "text": mailcmd.merge(req.orders, req.press),
                    "note": "FINAL: this mail's orders were applied (replacing any staged)."}
        if req.mode == "draft" and not req.has_orders:
            held = staging.staged(game, side)
            return {"mode": "check", "text": req.press, "check": held["text"] if held else "",
                    "note": "DRAFT without orders: your staged orders are kept as they are; here is how they "
                            "check now." if held else "DRAFT without orders: you have no orders staged."}
        if req.mode == "draft" or (req.has_orders and self.cfg.orders_mode == "staged"):
            return {"mode": "stage", "text": req.press, "stage": req.orders}
        return {"mode": "apply", "text": mailcmd.merge(req.orders, req.press)}

    def _board(self, name: str, inc: M.Incoming, key: str, rec: dict) -> Outcome:
        """A STATUS mailed by the referee: the host's status board, one row per game."""
        from pbem.host.status import board_text
        body = self._tpl("board", board=board_text(self), host=self.cfg.address)
        answers = [Answer(inc.sender, REFEREE, "answer", f"Re: {inc.subject or 'STATUS'}", body,
                          in_reply_to=inc.message_id, references=inc.references, outcome="status", slug="referee-status")]
        self._keep_started(key, rec)
        self.commit(rec["job"], answers, "")
        self._done(key, rec, outcome="status", filed="processed")
        return Outcome(name, "accepted", "processed", detail="the status board sent to the referee")

    def _authenticate(self, game, side: str, inc: M.Incoming) -> str:
        """'' when the message is from ``side``'s player; else why it is not."""
        players = self._players(game)
        registered = players.get(side, "")
        if not registered:
            return f"side {side} of game {game.game_id} has no player address registered; nothing was applied"
        if inc.sender != registered:
            gone = self._retired_address(game, inc.sender, side)
            if gone:
                return _no_longer(game, inc.sender, gone)
            return (f"this message comes from {inc.sender}, which is not the address registered for "
                    f"{game.scenario.side_name(side)} in game {game.game_id}; nothing was applied")
        if inc.ssh_signature:                       # signed with the player's own key: no token needed
            from pbem.host.trustmail import ssh_auth
            return ssh_auth(game, side, inc)
        secret = self.secrets_of(game).get(side)
        if not secret:
            return f"the host holds no secret for {side} in game {game.game_id}; ask the host to run `pbem host add`"
        sig, tok, head = inc.fields.get("signature", ""), inc.fields.get("token", ""), inc.fields.get("head", "")
        if sig:
            if not head:
                return "a signed message needs its 'Head:' line (the signature covers it); nothing was applied"
            want = M.signature(secret, game.game_id, side, head, inc.orders)
            if not _same(sig.lower(), want):
                replaced = self._retired(game, side)
                also = (f" (the host replaced {game.scenario.side_name(side)}'s secret on {replaced[-1]['at']}: "
                        "if you signed with the old one, sign again with the new one the host mailed you)"
                        if replaced else "")
                return ("the Signature: line does not match these orders: they were changed after signing, or "
                        f"signed for another game, side or head, or with another secret{also}; nothing was applied")
            return ""
        if self.cfg.auth == "signature":
            return ("this host accepts signed orders only: sign them with `pbem orders sign` and send its "
                    "output; nothing was applied")
        if tok:
            if not _same(tok.lower(), secret.lower()):
                d = secret_digest(tok)
                old = next((r for r in reversed(self._retired(game, side))
                            if r.get("secret_sha256") and _same(r["secret_sha256"], d)), None)
                if old:
                    return (f"the Token: line holds an old secret of {game.scenario.side_name(side)}: the host "
                            f"replaced it on {old['at']} and refuses it from now on; use the new secret the host "
                            "mailed to the side's player; nothing was applied")
                return f"the Token: line does not match {game.scenario.side_name(side)}'s secret; nothing was applied"
            return ""
        return ("the message carries neither a 'Token:' line nor a 'Signature:' line, so the host cannot tell it "
                "comes from you; add 'Token: YOUR-SECRET' (from the welcome mail) or sign the orders with "
                "`pbem orders sign`; nothing was applied")

    # --- answering ----------------------------------------------------------------

    def _reply_subject(self, inc: M.Incoming, gid: str, outcome: str = "") -> str:
        """The answer's subject: its outcome word first (``SUBJECT_OUTCOME``), then the thread's
        subject (without the command words: a reply to a CHECK's answer must not be checked
        again, nor the outcome words and Re: of earlier answers)."""
        subj = " ".join(w for w in (inc.subject or "").split() if w.strip(".,;:!?") not in mailcmd.SUBJECT_WORDS)
        subj = _PREFIXES.sub("", subj).strip() or "your message"
        if gid and f"[pbem {gid}]".lower() not in subj.lower():
            subj = f"[pbem {gid}] {subj}"
        subj = f"Re: {subj}"
        word = SUBJECT_OUTCOME.get(outcome, "")
        return f"{word}: {subj}" if word else subj

    def _refuse(self, name: str, inc: M.Incoming, key: str, rec: dict, reason: str, quarantine: bool,
                game_id: str = "", side: str = "") -> Outcome:
        """Answer a message that changes nothing, then record it as done."""
        answers = []
        stranger = bool(inc.sender) and not self._known_sender(inc.sender)
        if stranger:
            # no backscatter: a forged From would make the host mail a stranger, and an answer
            # would tell a prober which game ids exist; the host's operator sees it in quarantine
            reason += " (not answered: the sender plays no game on this host)"
        elif inc.sender and not inc.automatic and inc.sender != self.cfg.address:
            due = []
            if side and game_id and not quarantine:         # an authenticated player's mail refused
                game = self.game(game_id)
                due = self.due_lines(game, side) if game is not None else []
            body = self._tpl("refused", reason=reason, host=self.cfg.address, game_id=game_id, side=side,
                             subject=inc.subject, message_id=inc.message_id, due_lines=due)
            answers.append(Answer(inc.sender, side or "unknown", "answer", self._reply_subject(inc, game_id, "refused"),
                                  body, in_reply_to=inc.message_id, references=inc.references, outcome="refused",
                                  slug="refused"))
        self._keep_started(key, rec)
        self.commit(rec["job"], answers, game_id)
        crash.checkpoint("spooled")
        filed = "quarantine" if quarantine else "processed"
        self._done(key, rec, outcome="refused", filed=filed, reason=reason, game=game_id, side=side)
        return Outcome(name, "quarantined" if quarantine else "refused", filed, game_id, side, reason)

    def _finish_orders(self, name: str, inc: M.Incoming, key: str, rec: dict, game=None) -> Outcome:
        """Apply a journaled job's orders once and answer (``game``: the game the mail was
        read against, open already; a job finished after a crash opens it again)."""
        from pbem.engine import Game
        gid, side = rec["game"], rec["side"]
        if game is None:
            path = self.hosted(gid)
            if path is None:
                raise HostError(f"game {gid} vanished from this host")
            game = Game(path)
        trial = self._draft_check(game, rec)
        bad_draft = trial if trial is not None and trial.refused is not None else None
        if bad_draft is not None:                   # nothing of the mail is applied, nothing staged
            sub, stale = None, ""
        elif rec.get("staged_ident"):
            sub, stale = self._apply_staged(game, rec)
        else:
            if rec.get("drop_staged"):
                staging.discard(game, side)         # here, so a job finished after a crash drops them too
            sub, stale = self._apply(game, rec)
        crash.checkpoint("applied")
        mode = rec.get("mode", "apply")
        chain, held_note = self._held(game, rec, sub, stale, bad_draft)
        checked: list[str] = []
        if not stale and mode == "check":
            checked = mailcmd.check_lines(game, side, game.check(side, rec["check"]))
        note = "\n".join(x for x in (rec.get("note", ""), rec.get("ahead_note", ""), held_note) if x)
        if bad_draft is not None:
            checked = mailcmd.check_lines(game, side, bad_draft)
            note = "\n".join(x for x in (note, _draft_note(game, side, bad_draft)) if x)
        elif not stale and mode == "stage":
            try:
                checked = mailcmd.check_lines(game, side, staging.stage(game, side, rec["stage"], at=rec["at"],
                                                                        trial=trial))
            except staging.NotYourStep as e:          # answered as a check: nothing held
                import textwrap
                mode, note = "check", "\n".join(x for x in (note, textwrap.fill(str(e), 74)) if x)
                checked = mailcmd.check_lines(game, side, game.check(side, rec["stage"]))
        st, head = game.state_and_hash()           # the state and its head, read together
        sc = game.scenario
        changed = bool(sub and sub.applied) or any(r["status"] in ("applied", "partly applied") for r in chain)
        told = ahead.notes(game, chain)
        note = "\n".join(x for x in (note, told.get(side, ""), *ahead.lines_for(game, side)) if x)
        if changed:
            self._sync_deadlines(game, st, head)    # first: the answer and the reports name the new deadlines
        if stale or bad_draft is not None:
            outcome = "refused"
        elif sub.refused is not None:
            outcome = "partial" if sub.applied else "refused"
        elif mode in ("check", "stage"):
            outcome = {"check": "checked", "stage": "staged"}[mode]
        else:
            outcome = "accepted"
        reported = game.last_reports()             # each viewer's last report, read once
        entries = self._report_entries(game, reported)
        applied = []
        if sub:
            for a in sub.applied:
                from pbem.report import render
                effects = [t for t in (render.describe(ev, sc, side) for ev in a.events) if t]
                applied.append({"line": a.line, "text": a.text, "effects": effects})
        svg_asked = mailcmd.MAP_SVG in rec.get("commands", [])
        turn = Turn(game.rules, sc, st)             # the state's turn, read once for every mail of this one
        report, atts = self._report(game, side, st, entries, head, maps=outcome != "refused",   # a refusal: no map
                                    svg_asked=svg_asked, turn=turn, since=reported.get(side, 0))
        commands = self._commands(game, side, st, head, rec.get("commands", []), refused=outcome == "refused",
                                  job=rec["job"])
        ctx = self._context(game, side, st, head, turn)   # after the commands: a TIMEZONE, an UNDO show at once
        empty = bool(sub) and not sub.applied and sub.refused is None and mode == "apply" and not commands
        shown = ("empty" if empty else "answered") if outcome == "accepted" and not applied else outcome
        body = self._tpl("answer", outcome=outcome, stale=stale, applied=applied,
                         refused=str(sub.refused) if sub and sub.refused else "",
                         not_applied=(sub.not_applied if sub else []), report=report, mode=mode,
                         checked=checked, ignored=rec.get("ignored", []), commands=commands,
                         final_note=note, bad_draft=bad_draft is not None, empty=empty, **ctx)
        if changed:                                 # the host's signed receipt (pbem.trust.receipt)
            from pbem.host.trustmail import receipt
            body += receipt(self.cfg.root, game, sub, rec["text"])
        answers = [Answer(inc.sender or self._players(game).get(side, ""), side, "answer",
                          self._reply_subject(inc, gid, shown), body, atts, in_reply_to=inc.message_id,
                          references=inc.references or self._refs(game, side), outcome=outcome, head=head,
                          seq=st.seq, slug=f"{side}-answer")]
        if changed and sub:
            said = [ev.text for a in sub.applied for ev in a.events if isinstance(ev, PressSent)]
            moved = len(said) < len(sub.applied)
            note = "\n".join(([f"{sc.side_name(side)} sent orders; the game moved on."] if moved else []) +
                              [f"{sc.side_name(side)} writes: {t}" for t in said])
            ref_note = (f"{sc.side_name(side)} ({inc.sender}) sent orders: {outcome}.\n" +
                        "\n".join(f"  applied line {a['line']}: {a['text']}" for a in applied) +
                        (f"\n  REFUSED {sub.refused}" if sub.refused else "") +
                        "".join(f"\n  {sc.side_name(r['side'])}'s held orders {r['status']}: {r['text']}"
                                + (f" ({r['why']})" if r["why"] else "") for r in chain))
            heads = {"*": note, **{s: "\n".join(x for x in (note, told.get(s, ""), *ahead.lines_for(game, s)) if x)
                                   for s in sc.side_ids() if s != side}}
            answers += self._state_mails(game, heads, skip={side}, referee_note=ref_note, st=st,
                                         entries=entries, turn=turn, reported=reported, head=head)
        self.commit(rec["job"], answers, gid)
        crash.checkpoint("spooled")
        self._mark_reported(game, answers)
        # no order text here: this goes to host.log, and an order may be a sealed secret
        detail = (f"{len(sub.applied) if sub else 0} order(s) applied" + (f"; {stale}" if stale else "") +
                  (f"; line {sub.refused.line} refused" if sub and sub.refused else ""))
        rec = {k: v for k, v in rec.items() if k not in ("check", "stage", "signed", "ahead")}   # order texts stay out of the journal
        self._done(key, rec, outcome=outcome, filed="processed", applied=len(sub.applied) if sub else 0,
                   seq_after=st.seq)
        crash.checkpoint("recorded")
        return Outcome(name, outcome, "processed", gid, side, detail)

    def _held(self, game, rec: dict, sub, stale: str, bad_draft) -> tuple[list[dict], str]:
        """Orders ahead (pbem.ahead): hold the blocks after THEN of a mail whose orders
        were applied (replacing what was held), then apply every held block whose time
        has come.  Returns (what the held blocks did, a note for the sender)."""
        side, note = rec["side"], ""
        if stale or bad_draft is not None or not sub or not sub.applied:
            return [], ("THEN: the orders after THEN were not held, as this mail's own orders were not applied."
                        if rec.get("ahead") else "")
        if rec.get("drop_staged"):               # orders sent now: they replace what was held
            blocks = rec.get("ahead", []) if sub.refused is None else []
            if rec.get("ahead") and sub.refused is not None:
                note = "THEN: the orders after THEN were not held, as a line of this mail's own orders was refused."
            turn = game.state().turn if blocks else 0          # only held blocks name their turn
            ahead.hold(game, side, blocks, rec["job"], turn, rec.get("at", ""))
        return (ahead.run(game, side, at=rec.get("at")) if ahead.moved(sub) else []), note

    @staticmethod
    def _draft_check(game, rec: dict):
        """The check (Game.check) of a DRAFT (or of a mail staged on a staged-mode host), else
        None.  A draft with a line the rules refuse is not held: the previous one stays; one
        without is staged with this check (staging.stage takes it while the head stays).
        Looked at only before the job touched the log (a job finished after a crash goes on
        as it began)."""
        if rec.get("mode") != "stage" or not rec.get("stage", "").strip() or game.head()[1] != rec["head_before"] \
                or staging.not_your_step(game, rec["side"], rec["stage"]):      # answered "NOT STAGED" as before
            return None
        return game.check(rec["side"], rec["stage"])

    def _commands(self, game, side: str, st, head: str, commands: list, refused: bool = False,
                  job: str = "") -> list[dict]:
        """The answers to the mail's commands: a title and its lines each (``job``: the mail's,
        so an EXTEND counts once however often the mail is finished)."""
        out = []
        for name, arg in commands:
            if name == "help":
                out.append({"title": "HELP", "lines": mailcmd.help_lines(game, st, side)})
            elif name == "status":
                out.append({"title": "STATUS", "lines": mailcmd.status_lines(self, game, st, side, head)})
            elif name == "history":
                out.append({"title": f"HISTORY {arg}".strip(), "lines": mailcmd.history_lines(game, side, arg)})
            elif name == "absent":
                out.append({"title": f"ABSENT {arg}".strip(), "lines": [self._absent(game, side, arg)]})
            elif name == "key":
                from pbem.host.trustmail import key_command
                out.append({"title": "KEY", "lines": key_command(game, side, self._players(game).get(side, ""), arg)})
            elif name == "timezone":
                out.append({"title": f"TIMEZONE {arg}".strip(), "lines": [self._timezone(game, side, arg)]})
            elif name == "undo":
                out.append({"title": "UNDO", "lines": mailcmd.undo_lines(game, side)})
            elif name == "extend":
                out.append({"title": f"EXTEND {arg}".strip(),
                            "lines": [self._extend_offer(game, side, arg, job)]})
        if mailcmd.MAP_SVG in commands:
            out.append({"title": "MAP SVG", "lines": [
                "A refusal carries no map; send MAP SVG again with your next mail." if refused else
                "The map is attached as SVG too (sharp at any zoom; open it in a web browser)."]})
        return out

    # --- applying, exactly once ----------------------------------------------------

    def _apply(self, game, rec: dict):
        """(Submission, '') or (None, why stale).  Redone after a crash, it
        returns the result of the first run instead of applying twice."""
        seq, head = game.head()
        if head != rec["head_before"]:
            sub = self._recover(game, rec)
            if sub is not None:
                self.log(f"recovered job {rec['job']}: its orders were already in the log (seq {rec['seq_before'] + 1}"
                         f"-{sub.seq}); answering without applying them again")
                return sub, ""
            seq, head = game.head()
        return self._submit(game, rec, (seq, head))

    def _apply_staged(self, game, rec: dict):
        """``_apply`` for a job that applies staged orders (FINAL, a deadline): under the
        log's lock, exactly once with every other taker of them (staging.final), so a
        `pbem order --final` at the same time, or after a crash, never applies them twice."""
        with game.log.lock():
            if game.head()[1] != rec["head_before"]:
                sub = self._recover(game, rec)
                if sub is not None:               # this job applied them before a crash
                    staging.final(game, rec["side"], lambda _t: None, want=rec["staged_ident"])
                    self.log(f"recovered job {rec['job']}: its orders were already in the log; answering "
                             "without applying them again")
                    return sub, ""
            done, why = staging.final(game, rec["side"], lambda _t: self._submit(game, rec),
                                      want=rec["staged_ident"])
        if done is not None:
            return done
        if why and why != staging.ALREADY:
            return None, f"FINAL: {why}"
        return None, ("the staged orders were no longer held when the host came to apply them (applied "
                      "already, or staged anew); nothing was applied again")

    def _submit(self, game, rec: dict, at_head: tuple[int, str] | None = None):
        """``game.submit`` of the job's orders (``at_head``: the head the caller just read)."""
        from pbem.log import StaleHead
        seq, head = at_head or game.head()
        expect = rec.get("expect") or ""
        full = None
        if expect:
            if len(expect) < 12 or not re.fullmatch(r"[0-9a-f]+", expect):
                return None, ("the Head: line must hold the head hash from your latest report "
                              "(at least its first 12 hex digits)")
            if not head.startswith(expect):
                return None, (f"your orders were written against head {expect[:12]}..., but the game has moved on "
                              f"to head {head} (seq {seq}); read the report below and send them again")
            full = head
        try:
            sub = game.submit(rec["side"], rec["text"], expect_head=full, at=rec["at"], by=rec.get("by", ""),
                              signed=rec.get("signed", ""), signature=rec.get("signature", ""))
        except StaleHead:
            seq, head = game.head()
            return None, (f"the game moved on while your orders were being applied; it is now at head {head} "
                          f"(seq {seq}); read the report below and send them again")
        return sub, ""

    def _recover(self, game, rec: dict):
        """The Submission this job's orders made, if the log already holds it."""
        from pbem.engine import EngineError, Game
        lines = list(game.log.iter_lines())
        n = int(rec["seq_before"])
        if len(lines) <= n + 1:
            return None
        with tempfile.TemporaryDirectory(dir=self.state_dir) as td:
            d = Path(td) / "g"
            d.mkdir()
            # a private scratch copy of the game as it was before the job (0600, as the game's own files)
            M.write_atomic(d / "scenario.toml", game.store.read("scenario.toml") or b"")
            seed = game.store.read("seed")
            if seed is not None:
                M.write_atomic(d / "seed", seed)
            M.write_atomic(d / "log.jsonl", b"".join(ln + b"\n" for ln in lines[:n + 1]))
            M.write_atomic(d / "log.head", f"{n} {rec['head_before']}\n".encode())
            try:
                scratch = Game(d)
                if scratch.head()[1] != rec["head_before"]:
                    return None
                sub = scratch.submit(rec["side"], rec["text"], at=rec["at"], by=rec.get("by", ""),
                                     signed=rec.get("signed", ""), signature=rec.get("signature", ""))
            except EngineError:
                return None
            new = list(scratch.log.iter_lines())[n + 1:]
        if new and lines[n + 1:n + 1 + len(new)] == new:
            return sub
        return None


def _ahead_plan(job: dict, req) -> dict:
    """What becomes of a mail's blocks after THEN (pbem.ahead): held once its own orders
    are applied (``ahead``), or a note why not (``ahead_note``)."""
    if not req.ahead:
        return {}
    n = len(req.ahead)
    if job["mode"] == "apply" and req.has_orders or (job["mode"] == "final" and req.has_orders):
        return {"ahead": req.ahead}
    if job["mode"] == "check":
        return {"ahead_note": f"THEN: {n} block(s) after THEN would be held for your next steps "
                              f"({ahead.shown(req.ahead)}); each is checked when its time comes (the state "
                              "is not known before), and a refused one is dropped with the rest."}
    return {"ahead_note": "THEN: the orders after THEN were not held: they are held only with orders of this "
                          "mail applied now (not with a DRAFT, or a FINAL of staged orders, or a mail "
                          "without orders before its first THEN)."}


def _draft_note(game, side: str, trial) -> str:
    """What became of a refused DRAFT, and of the orders staged before it."""
    import textwrap
    held = staging.staged(game, side)
    if held and held.get("step") == staging.step_of(game, game.state()):
        kept = (f"Your previous draft (staged at {held.get('at', '?')}) is kept as it was: FINAL applies it, a "
                "corrected DRAFT replaces it, UNDO drops it.")
    else:
        kept = "You have no orders staged; send the DRAFT again without the refused line."
    return textwrap.fill(f"DRAFT REFUSED: line {trial.refused.line} would be refused, so this draft was not "
                         f"staged and nothing of this mail was applied (its press neither). {kept}", 74)


def _same(given: str, expected: str) -> bool:
    """Constant-time comparison of a value from a mail (any text at all) with
    the host's own: compared as UTF-8 bytes, so non-ASCII input is simply unequal."""
    import hmac
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8", "replace"))


def _no_longer(game, address: str, gone: dict) -> str:
    return (f"{address} no longer plays {game.scenario.side_name(gone['side'])} in game {game.game_id}: "
            f"on {gone['at']} the host registered another player's address for that side; nothing was applied")
