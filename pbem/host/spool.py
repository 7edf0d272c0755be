"""The outgoing spool.  ``commit`` writes a job's mails to
state/spool/building/JOB and renames the folder to state/spool/ready/JOB in
one step; ``flush`` delivers them, oldest job first, through the outbox
folder or SMTP, and removes each file only after the transport took it.  A
mail no transport will ever take is set aside in state/spool/failed/.  No mail
is larger than ``[outgoing] max_bytes`` (``within``)."""
from __future__ import annotations

import contextlib
import os
import re
import shutil

from pbem.host import crash
from pbem.host import mail as M
from pbem.host.common import Answer
from pbem.host.config import password


class SpoolMixin:
    """The Host's spool.  Uses the Host's ``cfg``, ``spool_*`` folders,
    ``outbox_path`` and ``log``."""

    def _msgid(self, job: str, n: int) -> str:
        return f"pbem.{job}.{n}@{self.cfg.domain}"

    def commit(self, job: str, answers: list[Answer], game_id: str = "") -> bool:
        """Write a job's mails to the spool in one step; False if they already are."""
        final = self.spool_ready / job
        if final.exists():
            return False
        building = self.spool_building / job
        if building.exists():
            shutil.rmtree(building)
        building.mkdir(parents=True)
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
                return M.build(self.cfg.address, a.to, a.subject, body, message_id=a.message_id or self._msgid(job, n),
                               attachments=attachments, in_reply_to=a.in_reply_to, references=refs, headers=headers,
                               auto="auto-replied" if a.in_reply_to and a.kind == "answer" else "auto-generated",
                               sender_name=self.cfg.name)
            data = within(self.cfg.max_out, make, a.body, a.attachments)   # every mail under [outgoing] max_bytes
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", a.slug or f"{a.viewer}-{a.kind}")
            M.write_atomic(building / f"{n:02d}-{slug}.eml", data, 0o600)
        crash.checkpoint("spool-written")
        os.rename(building, final)
        M._fsync_dir(final.parent)
        return True

    def _transport(self):
        out = self.cfg.outgoing
        if out.get("kind", "outbox") == "smtp":
            return M.SmtpSender(str(out["server"]), int(out.get("port", 587)), str(out.get("user", "")),
                                password(self.cfg, "smtp"), str(out.get("security", "starttls")),
                                envelope_from=self.cfg.address, timeout=float(out.get("timeout", 60)))
        return M.Outbox(self.outbox_path)

    def pending(self) -> int:
        return sum(1 for d in self.spool_ready.iterdir() for _ in d.glob("*.eml")) if self.spool_ready.is_dir() else 0

    def flush(self) -> int:
        """Deliver the spool, oldest job first; what cannot go now stays for the next try."""
        jobs = sorted(d for d in self.spool_ready.iterdir() if d.is_dir()) if self.spool_ready.is_dir() else []
        if not any(any(d.glob("*.eml")) for d in jobs):
            for d in jobs:
                with contextlib.suppress(OSError):
                    d.rmdir()
            return 0
        sent = 0
        try:
            with self._transport() as t:
                for d in jobs:
                    for f in sorted(d.glob("*.eml")):
                        try:
                            where = t.send(f"{d.name}-{f.stem}", f.read_bytes())
                        except M.Undeliverable as e:
                            self.spool_failed.mkdir(parents=True, exist_ok=True)
                            os.replace(f, self.spool_failed / f"{d.name}-{f.name}")
                            self.log(f"mail {d.name}/{f.name} cannot be delivered, set aside in "
                                     f"{self.spool_failed}: {e}")
                            continue
                        crash.checkpoint("sent")
                        f.unlink()
                        sent += 1
                        self.log(f"sent {d.name}/{f.name} to {where}")
                    with contextlib.suppress(OSError):
                        d.rmdir()
        except M.MailError as e:
            self.log(f"delivery failed, {self.pending()} mail(s) wait in the spool: {e}")
        return sent


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
