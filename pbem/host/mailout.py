"""An outgoing mail's bytes, written directly: the very bytes ``bytes(mail.build(...))``
gives (the standard library's EmailMessage and generator under ``mail.OUT_POLICY``),
in a tenth of its time (about 10 ms a mail there: every header parsed into its
registry object and folded back, the whole text searched for the boundary).

Only mails whose every header is plain ASCII are written here (printable words and
single spaces, no ``=?`` that could read as an encoded word, no line near the
998-character limit), with simple addresses, ids and attachment names, and a text
whose lines all fit in 998 bytes; any other mail is built by ``mail.build``, the plain
code.  tests/test_perf_mailout.py compares the two on the host's own mails and on
random ones."""
from __future__ import annotations

import binascii
import random
import re
import sys
from email.utils import formatdate

from pbem.core import orders as O

_WORDS = re.compile(r"[!-~]+(?: [!-~]+)*")              # printable ASCII words, one space between
_ADDR = re.compile(r"[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")
_NAME = re.compile(r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*")
_ID = re.compile(r"[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")
_FILE = re.compile(r"[A-Za-z0-9._-]+")
_TYPE = re.compile(r"[a-z0-9]+(?:[.+-][a-z0-9]+)*")
_HEADER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_STRUCTURED = frozenset({"from", "to", "cc", "bcc", "sender", "reply-to", "date", "message-id", "mime-version",
                         "subject", "in-reply-to", "references", "auto-submitted",
                         "content-type", "content-transfer-encoding", "content-disposition",
                         "resent-date", "resent-from", "resent-to", "resent-cc", "resent-bcc", "resent-sender",
                         "orig-date"})
MAX_LINE = 998                                   # mail.OUT_POLICY.max_line_length
_B64_CHUNK = MAX_LINE // 4 * 3                   # bytes per base64 line (email.contentmanager._encode_base64)


def _plain(value: str, limit: int) -> bool:
    return len(value) <= limit and "=?" not in value and _WORDS.fullmatch(value) is not None


def _date() -> str:
    # the Date header as the email package writes it back: formatdate's "GMT" as "+0000"
    return formatdate(localtime=False, usegmt=True)[:-3] + "+0000"


def _boundary(text: bytes) -> str:
    """email.generator.Generator._make_boundary: a random token, made longer while a line
    of the mail's parts reads as it.  Only the text part can hold such a line: the other
    parts' headers are the fixed ones written here and base64 has no "-"."""
    token = random.randrange(sys.maxsize)
    boundary = "=" * 15 + "%019d" % token + "=="
    b, counter = boundary, 0
    while b"--" + b.encode("ascii") in text and \
            re.search(b"^--" + re.escape(b.encode("ascii")) + b"(--)?$", text, re.MULTILINE):
        b = boundary + "." + str(counter)
        counter += 1
    return b


def message_bytes(sender: str, to: str, subject: str, body: str, *, message_id: str, attachments=(),
                  in_reply_to: str = "", references=(), headers: dict[str, str] | None = None,
                  auto: str = "auto-generated", sender_name: str = "", boundary: str | None = None,
                  date: str | None = None) -> bytes:
    """``bytes(mail.build(...))`` with the same arguments (``boundary`` and ``date``: for
    the tests, which compare the two; a mail is otherwise given a random boundary and
    the time now, as the plain code gives it)."""
    got = _direct(sender, to, subject, body, message_id, attachments, in_reply_to, references, headers or {},
                  auto, sender_name, boundary, date)
    if got is not None:
        return got
    from pbem.host.mail import build
    msg = build(sender, to, subject, body, message_id=message_id, attachments=attachments, in_reply_to=in_reply_to,
                references=references, headers=headers, auto=auto, sender_name=sender_name)
    if boundary is not None and attachments:
        msg.set_boundary(boundary)
    return bytes(msg)


def _direct(sender, to, subject, body, message_id, attachments, in_reply_to, references, headers, auto,
            sender_name, boundary, date) -> bytes | None:
    """The mail's bytes, or None when it is not one this module writes (the plain code does)."""
    from pbem.report.mailparts import Undeliverable, clean_header, safe_address
    if not safe_address(to) or not safe_address(sender):
        raise Undeliverable(f"refusing to write a mail to {to!r} from {sender!r}: not a plain e-mail address")
    if not (_ADDR.fullmatch(to) and _ADDR.fullmatch(sender) and _ID.fullmatch(message_id)):
        return None
    name = clean_header(sender_name)
    if name and not _NAME.fullmatch(name):
        return None
    lines = [f"From: {name} <{sender}>" if name else f"From: {sender}", f"To: {to}"]
    subject = clean_header(subject)
    if not _plain(subject, 900):
        return None
    lines += [f"Subject: {subject}", f"Date: {date or _date()}", f"Message-ID: <{message_id}>"]
    refs = list(references) + ([f"<{in_reply_to}>"] if in_reply_to else [])
    if in_reply_to or refs:
        irt = f"<{in_reply_to}>" if in_reply_to else refs[-1]
        ref_line = " ".join(dict.fromkeys(refs))
        if not (_plain(irt, 900) and _plain(ref_line, 900)):
            return None
        lines += [f"In-Reply-To: {irt}", f"References: {ref_line}"]
    if not _plain(auto, 900):
        return None
    lines.append(f"Auto-Submitted: {auto}")
    for k, v in headers.items():
        v = clean_header(str(v))
        if not _HEADER_NAME.fullmatch(k) or k.lower() in _STRUCTURED or not _plain(v, 900 - len(k)):
            return None
        lines.append(f"{k}: {v}")
    # the text (email.contentmanager.set_text_content: utf-8, 7bit when ASCII, else 8bit)
    try:
        text_lines = O.visible(body).encode("utf-8").splitlines()
    except UnicodeEncodeError:
        return None                                 # the plain code says why
    if any(len(x) > MAX_LINE for x in text_lines):
        return None                                 # quoted-printable or base64: the plain code
    text = b"\n".join(text_lines) + b"\n"
    cte = "7bit" if text.isascii() else "8bit"
    text_head = f'Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: {cte}\n'
    head = "\n".join(lines) + "\n"
    if not attachments:
        return (head + text_head + "MIME-Version: 1.0\n\n").encode("ascii") + text
    parts = [text_head.encode("ascii") + b"\n" + text]
    for a in attachments:
        if not (_TYPE.fullmatch(a.maintype) and _TYPE.fullmatch(a.subtype) and _FILE.fullmatch(a.filename)):
            return None
        data = a.data
        b64 = b"".join(binascii.b2a_base64(data[i:i + _B64_CHUNK]) for i in range(0, len(data), _B64_CHUNK))
        parts.append((f"Content-Type: {a.maintype}/{a.subtype}\nContent-Transfer-Encoding: base64\n"
                      f'Content-Disposition: attachment; filename="{a.filename}"\nMIME-Version: 1.0\n\n'
                      ).encode("ascii") + b64)
    b = boundary or _boundary(parts[0])
    sep = f"\n--{b}\n".encode("ascii")
    return ((head + f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{b}"\n\n--{b}\n').encode("ascii")
            + sep.join(parts) + f"\n--{b}--\n".encode("ascii"))
