"""The outgoing spool.  ``commit`` writes a job's mails to
state/spool/building/JOB and renames the folder to state/spool/ready/JOB in
one step; ``flush`` delivers them, oldest job first, through the outbox
folder or SMTP, and removes each file only after the transport took it.  A
mail no transport will ever take is set aside in state/spool/failed/.  No mail
is larger than ``[outgoing] max_bytes`` (``within``).

What went wrong is kept beside the mails (state/spool/errors.json: per mail
its first and last failed try, how many, the last error), so `pbem host
status` can show a stuck mail with its reason, and ``flush_problems`` says
what this flush could not do (`pbem mail poll` prints it and exits 1)."""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
from email import policy
from email.parser import BytesHeaderParser

from pbem.host import crash
from pbem.host import mail as M
from pbem.host import mailout
from pbem.host.common import Answer, iso
from pbem.host.config import password


class SpoolMixin:
    """The Host's spool.  Uses the Host's ``cfg``, ``spool_*`` folders,
    ``outbox_path`` and ``log``."""

    def _msgid(self, job: str, n: int) -> str:
        return f"pbem.{job}.{n}@{self.cfg.domain}"

    def commit(self, job: str, answers: list[Answer], game_id: str = "") -> bool:
        """Write a job's mails to the spool in one step; False if they already are."""
        if self.store.spool_has(job):
            return False
        mails = []
        for n, a in enumerate(answers):
            headers = {"X-pbem-Kind": a.kind, "X-pbem-Side": a.viewer}
            if game_id:
                headers["X-pbem-Game"] = game_id
            if a.head:
                headers["X-pbem-Head"] = a.head
                headers["X-pbem-Seq"] = str(a.seq)
            if a.outcome:
                headers["X-pbem-Outcome"] = a.outcome
            refs = list(a.references)

            def make(body, attachments, a=a, n=n, headers=headers, refs=refs):
                # the bytes mail.build's message gives, written directly (host/mailout.py)
                return mailout.message_bytes(
                    self.cfg.address, a.to, a.subject, body, message_id=a.message_id or self._msgid(job, n),
                    attachments=attachments, in_reply_to=a.in_reply_to, references=refs, headers=headers,
                    auto="auto-replied" if a.in_reply_to and a.kind == "answer" else "auto-generated",
                    sender_name=self.cfg.name)
            data = within(self.cfg.max_out, make, a.body, a.attachments)   # every mail under [outgoing] max_bytes
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", a.slug or f"{a.viewer}-{a.kind}")
            mails.append((f"{n:02d}-{slug}.eml", data))
        return self.store.spool_put(job, mails, game_id)

    def _transport(self, batch: bool = False):
        """SMTP, or the outbox folder (``batch``: fsync'd once per job, ``M.Outbox``)."""
        out = self.cfg.outgoing
        if out.get("kind", "outbox") == "smtp":
            return M.SmtpSender(str(out["server"]), int(out.get("port", 587)), str(out.get("user", "")),
                                password(self.cfg, "smtp"), str(out.get("security", "starttls")),
                                envelope_from=self.cfg.address, timeout=float(out.get("timeout", 60)))
        return M.Outbox(self.outbox_path, batch=batch)

    def pending(self) -> int:
        return self.store.spool_pending()

    def flush(self) -> int:
        """Deliver the spool, oldest job first; what cannot go now stays for the next try
        (its error kept for `pbem host status`, and said in ``flush_problems``)."""
        self.flush_problems = []
        if self.store.shared:
            return self._flush_rows()
        jobs = sorted(d for d in self.spool_ready.iterdir() if d.is_dir()) if self.spool_ready.is_dir() else []
        if not any(any(d.glob("*.eml")) for d in jobs):
            for d in jobs:
                with contextlib.suppress(OSError):
                    d.rmdir()
            return 0
        sent = 0
        errors = self._spool_errors()
        try:
            # the outbox folder is fsync'd once per job, before the job's spooled mails are
            # forgotten (a crash before that sends them again: the outbox writes a name once)
            with self._transport(batch=True) as t:
                for d in jobs:
                    taken = []
                    for f in sorted(d.glob("*.eml")):
                        name = f"{d.name}/{f.name}"
                        try:
                            if hasattr(t, "send_file"):             # the outbox: the spooled file itself
                                where = t.send_file(f"{d.name}-{f.stem}", f)
                            else:
                                where = t.send(f"{d.name}-{f.stem}", f.read_bytes())
                        except M.Undeliverable as e:
                            self.spool_failed.mkdir(parents=True, exist_ok=True)
                            os.replace(f, self.spool_failed / f"{d.name}-{f.name}")
                            _tried(errors.pop(name, None), errors, f"failed/{d.name}-{f.name}", str(e), self.now())
                            self.flush_problems.append(f"mail {name} cannot be delivered, set aside in "
                                                       f"{self.spool_failed}: {e}")
                            self.log(self.flush_problems[-1])
                            continue
                        crash.checkpoint("sent")
                        taken.append((f, name, where))
                        if not getattr(t, "batch", False):
                            self._sent(f, name, where, errors)
                            sent += 1
                    if getattr(t, "batch", False) and taken:
                        t.sync()
                        for f, name, where in taken:
                            self._sent(f, name, where, errors)
                            sent += 1
                    with contextlib.suppress(OSError):
                        d.rmdir()
        except M.MailError as e:
            for d in jobs:
                for f in sorted(d.glob("*.eml")):
                    name = f"{d.name}/{f.name}"
                    _tried(errors.get(name), errors, name, str(e), self.now())
            self.flush_problems.append(f"delivery failed, {self.pending()} mail(s) wait in the spool: {e}")
            self.log(self.flush_problems[-1])
        self._save_spool_errors(errors)
        return sent

    def _sent(self, f, name: str, where: str, errors: dict) -> None:
        """A spooled mail the transport took (durably): forgotten, and said in host.log."""
        f.unlink()
        errors.pop(name, None)
        self.log(f"sent {name} to {where}")

    def _flush_rows(self) -> int:
        """``flush`` with a database: each mail a row, taken by one worker at a time
        (pbem.store.pg.PgStore.spool_items) and deleted once the transport took it."""
        items = self.store.spool_items()
        first = next(items, None)
        if first is None:
            return 0
        sent = 0
        try:
            with self._transport() as t:
                for item in itertools.chain([first], items):
                    try:
                        where = t.send(item.name, item.data())
                    except M.Undeliverable as e:
                        aside = item.fail(str(e))
                        self.flush_problems.append(f"mail {item.label} cannot be delivered, set aside in {aside}: {e}")
                        self.log(self.flush_problems[-1])
                        continue
                    crash.checkpoint("sent")
                    item.done()
                    sent += 1
                    self.log(f"sent {item.label} to {where}")
        except M.MailError as e:
            items.close()
            self.store.spool_tried(str(e), iso(self.now()))
            self.flush_problems.append(f"delivery failed, {self.pending()} mail(s) wait in the spool: {e}")
            self.log(self.flush_problems[-1])
        return sent

    # --- what went wrong, per mail ------------------------------------------------

    @property
    def _errors_path(self):
        return self.spool_ready.parent / "errors.json"

    def _spool_errors(self) -> dict:
        try:
            data = json.loads(self._errors_path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save_spool_errors(self, errors: dict) -> None:
        live = {k: v for k, v in errors.items()
                if (self.spool_ready / k).exists() or (k.startswith("failed/") and
                                                       (self.spool_failed / k[len("failed/"):]).exists())}
        if live or self._errors_path.exists():
            with contextlib.suppress(OSError):
                M.write_atomic(self._errors_path, json.dumps(live, indent=1, sort_keys=True).encode(), 0o600)

    def stuck(self) -> list[dict]:
        """Every mail not delivered: in the spool (waiting for the next try) or set aside
        (no transport will take it), with its game, kind, recipients, when it was made
        and what went wrong the last time (``error`` "" when no try has failed yet)."""
        if self.store.shared:
            return self.store.stuck()
        errors = self._spool_errors()
        parser = BytesHeaderParser(policy=policy.default)
        out = []
        places = [("waiting", self.spool_ready, "*/*.eml"), ("set aside", self.spool_failed, "*.eml")]
        for state, where, pattern in places:
            if not where.is_dir():
                continue
            for f in sorted(where.glob(pattern)):
                name = f"{f.parent.name}/{f.name}" if state == "waiting" else f"failed/{f.name}"
                try:
                    h = parser.parsebytes(f.read_bytes())
                except OSError:
                    continue
                e = errors.get(name) or {}
                out.append({"mail": name, "state": state, "game": str(h["X-pbem-Game"] or ""),
                            "kind": str(h["X-pbem-Kind"] or ""), "to": str(h["To"] or ""),
                            "made": str(h["Date"] or ""), "tries": int(e.get("tries", 0)),
                            "first_error": e.get("first", ""), "last_try": e.get("at", ""),
                            "error": e.get("error", "")})
        return out


def _tried(before: dict | None, errors: dict, name: str, error: str, now) -> None:
    """One more failed try of mail ``name``, recorded in ``errors``."""
    e = dict(before or {})
    e.setdefault("first", iso(now))
    errors[name] = dict(e, at=iso(now), tries=int(e.get("tries", 0)) + 1, error=error[:500])


def within(limit: int, make, body: str, attachments: list) -> bytes:
    """The bytes of ``make(body, attachments)`` (a built mail), at most ``limit`` long:
    the attachments left out (the SVG first, then the largest) and, if that is not
    enough, the end of the text cut, each said at the end of the text."""
    kept, out = list(attachments), []

    def note(cut: int = 0) -> str:
        what = []
        if out:
            what.append(f"left out {', '.join(out)}")
        if cut:
            what.append(f"cut the last {cut:,} characters of the text")
        return (f"\n\n[The host {' and '.join(what)} to keep this mail under {limit:,} bytes; HISTORY shows "
                "the events, STATUS where the game stands.]")
    data = bytes(make(body, kept))
    while kept and len(data) > limit:
        i = next((i for i, a in enumerate(kept) if "svg" in a.subtype),
                 max(range(len(kept)), key=lambda i: len(kept[i].data)))
        out.append(kept.pop(i).filename)
        data = bytes(make(body + note(), kept))
    keep = len(body)
    while len(data) > limit and keep > 0:
        keep = max(0, min(keep - 1, keep * limit * 9 // (10 * len(data))))
        data = bytes(make(body[:keep] + note(len(body) - keep), []))
    return data
