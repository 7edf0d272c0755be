"""Letters: what the host writes to players and the referee.  Each viewer's
report (the text and the map as PNG and SVG), the mail templates and what
they are given, the thread every mail to a side hangs under, the reports
of a new state to every side, and the welcome of a new game (which also
registers it and gives every side its secret)."""
from __future__ import annotations

from pbem.core.turn import Turn
from pbem.host.trustmail import head_receipt, welcome_lines
from pbem.host.common import REFEREE, Answer, fmt_duration
from pbem.host.journal import job_key


class LettersMixin:
    """Writing the Host's mails.  Uses the Host's ``cfg``, the players
    (``_players``, ``ensure_secrets``), the journal, the spool and the
    deadlines (``_period``, ``_sync_deadlines``)."""

    def _report(self, game, viewer: str, st, entries, head: str, maps: bool = True,
                svg_asked: bool = False, turn: Turn | None = None, since: int | None = None) -> tuple[str, list]:
        """The viewer's text report and the map attachments (one PNG, the SVG as
        ``map_svg`` says, or always when the player asked with MAP SVG:
        render.map_attachments); ``maps=False``: the text only.  ``turn``: the
        state's Turn, when the caller has one (every viewer's mail reads the same); ``since``:
        the viewer's ``last_report``, when the caller read it."""
        from pbem.report import render
        from pbem.views import state_view
        since = game.last_report(viewer) if since is None else since
        view = state_view(game, st, viewer, head, turn=turn)        # read once for the text and the map
        faced = render.faces(game, st, view["units"], viewer)      # so are the counters' faces
        text = render.report_text(game, viewer, st, entries, since, head, turn=turn, view=view, faced=faced)
        if not maps:
            return text, []
        atts = render.map_attachments(game, viewer, st, entries, since, head, png=self.cfg.map_png,
                                      svg=True if svg_asked else self.cfg.map_svg, width=self.cfg.map_width,
                                      turn=turn, view=view, faced=faced)
        return text, atts

    def _tpl(self, name: str, **ctx) -> str:
        from pbem.report import render
        return render.env().get_template(f"mail/{name}.txt.j2").render(**ctx)

    def _context(self, game, viewer: str, st, head: str, turn: Turn | None = None, dl: dict | None = None) -> dict:
        """What every mail template is given (``turn``: the state's Turn, ``dl`` the game's
        deadlines (``_deadlines``, not changed here), when the caller has them)."""
        sc = game.scenario
        turn = Turn(game.rules, game.scenario, st) if turn is None else turn
        dl = self._deadlines(game) if dl is None else dl   # read once for the lines below
        policy = self._policy(game, dl)
        return {"game_id": game.game_id, "title": sc.title, "side": viewer,
                "side_name": sc.side_name(viewer) if viewer != REFEREE else "Referee",
                "host": self.cfg.address, "head": head, "seq": st.seq, "turn": st.turn,
                "period": fmt_duration(policy.period), "has_period": policy.on,
                "deadline_lines": self.deadline_lines(game, viewer, dl),
                "due_lines": self.due_lines(game, viewer, st, dl),
                "reminder": fmt_duration(self.cfg.reminder), "defaults": _defaults_text(game),
                "auth": self.cfg.auth, "sides": [(s.id, s.name) for s in sc.sides],
                "orders_mode": self.cfg.orders_mode,
                # during a set-up step: the viewer's legal choices (set-up areas, drop zones, hexes)
                "setup": [] if viewer == REFEREE else list(turn.setup(viewer)),
                "setup_title": "" if viewer == REFEREE else turn.setup_title(viewer),
                # a board wider than the PNG: the mail says what its two pictures are (report/closeup.py)
                "map_note": _map_note(sc, self.cfg)}

    def _refs(self, game, side: str) -> list[str]:
        """Every mail to a side threads under its welcome message."""
        return [f"<pbem.{game.game_id}.welcome.{side}@{self.cfg.domain}>"]

    def _report_entries(self, game, reported: dict[str, int] | None = None) -> list:
        """What every viewer's report of this game reads (each side's and the referee's),
        from the end of the log: the entries after the earliest of their last reports,
        and before them the last move of each unit those name (``views.report_entries``,
        as `pbem report` reads), never the whole log.  ``reported``: ``game.last_reports()``,
        when the caller read it."""
        from pbem.views import report_entries
        viewers = [*self._players(game), *([REFEREE] if self.cfg.referee else [])]
        reported = game.last_reports() if reported is None else reported
        return report_entries(game, min((reported.get(v, 0) for v in viewers), default=-1), keep=True)

    def _state_mails(self, game, headline: dict[str, str], skip: set[str] = frozenset(), kind: str = "report",
                     referee_note: str = "", st=None, entries=None, turn: Turn | None = None,
                     reported: dict[str, int] | None = None, head: str = "") -> list[Answer]:
        """Each side (and the referee) its own report of the new state (``st``, ``entries``,
        ``turn`` and ``reported`` (``game.last_reports()``): the caller's, when it already read
        them at the head; ``head``: the hash of ``st``'s head)."""
        if st is None:
            (st, head), turn = game.state_and_hash(), None
        reported = game.last_reports() if reported is None else reported
        entries = self._report_entries(game, reported) if entries is None else entries
        turn = Turn(game.rules, game.scenario, st) if turn is None else turn   # one for every viewer's mail
        head = head or game.head()[1]
        out = []
        sc = game.scenario
        when = f"{turn.line()} (seq {st.seq})"          # _when: the step line names no viewer
        dl = self._deadlines(game)                      # read once for every viewer's mail
        for side, addr in self._players(game).items():
            if side in skip:
                continue
            text, atts = self._report(game, side, st, entries, head, turn=turn, since=reported.get(side, 0))
            body = self._tpl("report", report=text, note=headline.get(side, headline.get("*", "")),
                             **self._context(game, side, st, head, turn, dl)) + head_receipt(self.cfg.root, game, st.seq,
                                                                                         head)
            subj = f"[pbem {game.game_id}] {sc.side_name(side)}: " + when
            out.append(Answer(addr, side, kind, subj, body, atts, references=self._refs(game, side), head=head,
                              seq=st.seq, slug=f"{side}-{kind}", in_reply_to=""))
        if self.cfg.referee:
            text, atts = self._report(game, REFEREE, st, entries, head, turn=turn, since=reported.get(REFEREE, 0))
            body = self._tpl("report", report=text, note=referee_note or headline.get("*", ""),
                             **self._context(game, REFEREE, st, head, turn, dl))
            out.append(Answer(self.cfg.referee, REFEREE, "referee", f"[pbem {game.game_id}] referee: " + when,
                              body, atts, head=head, seq=st.seq, slug=f"referee-{kind}"))
        return out

    def _mark_reported(self, game, answers: list[Answer]) -> None:
        # One write for every viewer, not fsync'd: it is what the next reports start from,
        # and these answers are durable in the spool already (engine.Game.mark_reported).
        seq = game.head()[0]
        seqs = {a.viewer: seq for a in answers if a.head}
        if seqs:
            game.mark_reported(seqs, sync=False)

    # --- welcome ----------------------------------------------------------------------

    def welcome(self, game) -> list[str]:
        """Register a game, give every side a secret and mail each player a welcome."""
        with self.locked(), self.store.transaction():
            self.register(game)
            sec = self.ensure_secrets(game)
            key = job_key("welcome", game.game_id)
            rec = self.journal_get(key)
            told = []
            if not rec or rec.get("status") != "done":
                rec = rec or self._start(key)
                self._sync_deadlines(game)           # first: the welcome names the first deadline
                st = game.state()
                entries = game.entries()
                head = entries[-1].hash
                answers = []
                for side, addr in self._players(game).items():
                    text, atts = self._report(game, side, st, entries, head)
                    ctx = self._context(game, side, st, head)
                    from pbem.host.mailcmd import align
                    body = self._tpl("welcome", report=text, secret=sec[side],
                                     orders_help=[row for x in Turn(game.rules, game.scenario, st).help(side)
                                                  for row in align(x)],
                                     commitment=game.created.seed_commitment, dice_mode=game.created.dice_mode,
                                     dice_scheme=game.created.dice_scheme, trust=welcome_lines(self.cfg.root, game, side), **ctx)
                    answers.append(Answer(addr, side, "welcome",
                                          f"[pbem {game.game_id}] welcome: you play {game.scenario.side_name(side)} "
                                          f"in {game.scenario.title}", body, atts, head=head, seq=st.seq,
                                          slug=f"{side}-welcome", message_id=self._refs(game, side)[0][1:-1]))
                    told.append(f"{side} <{addr}>")
                if self.cfg.referee:
                    text, atts = self._report(game, REFEREE, st, entries, head)
                    body = self._tpl("report", report=text, note=f"Game {game.game_id} created; players: "
                                     + (", ".join(told) or "none with an address") + ".",
                                     **self._context(game, REFEREE, st, head))
                    answers.append(Answer(self.cfg.referee, REFEREE, "referee",
                                          f"[pbem {game.game_id}] referee: game created", body, atts, head=head,
                                          seq=st.seq, slug="referee-created"))
                # each welcome's Message-ID is the thread root of that side's later mail
                self.commit(rec["job"], answers, game.game_id)
                self._mark_reported(game, answers)
                self._done(key, rec, outcome="welcome", game=game.game_id)
                self._sync_deadlines(game)
            self.store.after_commit(self.flush)       # a database sends once the job is in
        return told


def _when(game, st) -> str:
    """A mail subject's step: the one step line (core/turn.py), naming the side the step
    belongs to (an Ops Phase: the Initiative player), and the seq."""
    return f"{Turn(game.rules, game.scenario, st).line()} (seq {st.seq})"


def _defaults_text(game) -> str:
    from pbem.host.deadlines import defaults_text
    return defaults_text(game)


def _map_note(sc, cfg) -> list[str]:
    from pbem.report import closeup
    return closeup.note() if cfg.map_png and closeup.big_board(sc, cfg.map_width) else []
