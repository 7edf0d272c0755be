"""E-mail in and out, with no game knowledge.

In: parse a raw message (the standard library's modern ``email.policy``),
find its readable text (plain, or HTML turned into text), drop quoted reply
lines and signatures, pick out the ``Key: value`` lines a player writes
(``Game:``, ``Side:``, ``Head:``, ``Token:``, ``Signature:``) and keep the
rest as order text.  Messages come from a Maildir or an IMAP folder.

Out: build a message (text body, attachments, threading headers) and hand it
to an outbox folder of ``.eml`` files or an SMTP server.

Signed orders: ``Signature:`` is HMAC-SHA256 over ``orders_canonical`` (the
game, the side, the head and the order lines with comments and extra spaces
removed), keyed with the side's secret, so a mail program that re-wraps or
re-spaces lines does not break it and a changed order does.

host.py decides what to do with a message; this module only reads and writes.
"""
from __future__ import annotations

import hashlib
import hmac
import html
import os
import re
import socket
import time
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import formatdate, parseaddr
from html.parser import HTMLParser
from pathlib import Path

from pbem.core import orders as O
# the parts of a mail the report and the engine use too live below the host (report/mailparts.py)
from pbem.report.mailparts import Attachment, MailError, Undeliverable, clean_header, safe_address  # noqa: F401

KEYS = ("game", "side", "head", "token", "signature")
_KEY_RE = re.compile(r"^\s*(game|side|head|token|signature)\s*:\s*(\S*)\s*$", re.IGNORECASE)
_TAG_RE = re.compile(r"\[pbem\s+([A-Za-z0-9._-]+)\]", re.IGNORECASE)
SIGN_VERSION = "pbem-orders-1"


# --- reading ----------------------------------------------------------------

@dataclass
class Incoming:
    """What the host needs from one incoming message."""
    size: int
    message_id: str = ""                 # without the angle brackets; "" if missing
    key: str = ""                        # idempotency key: the Message-ID, else a digest of the bytes
    sender: str = ""                     # From address (addr-spec, lower case); "" if none
    subject: str = ""
    in_reply_to: str = ""
    references: list[str] = field(default_factory=list)
    automatic: str = ""                  # why this is machine mail (bounce, auto-reply, our own); "" = a person
    own: bool = False                    # pbem's own mail come back (a referee copy, say)
    problem: str = ""                    # why no text could be read ("" = text is usable)
    text: str = ""                       # readable text, quotes and signature removed
    fields: dict[str, str] = field(default_factory=dict)   # lower-case key -> value, first occurrence
    orders: str = ""                     # the text without the Key: lines
    subject_game: str = ""               # the game named by a [pbem GAME] subject tag
    digest: str = ""                     # sha256 of the text: a re-delivery has the same one
    ssh_signed: str = ""                 # the text above an SSH signature (pbem.trust.signed), as sent
    ssh_signature: str = ""              # that signature, armored

    @property
    def game(self) -> str:
        return self.fields.get("game", "") or self.subject_game


def _header(msg, name: str) -> str:
    """A header as text; '' when missing or so malformed the parser gives up."""
    try:
        v = msg[name]
    except Exception:                    # noqa: BLE001 - the email package raises assorted errors on junk
        return ""
    return "" if v is None else str(v).strip()


def _raw_header(msg, name: str) -> str:
    """A header's text as sent (unfolded), not as the email package re-parses it:
    its msg-id parser cuts ``<a:1@b>`` at the colon, so two ids would become one."""
    try:
        for k, v in msg.raw_items():
            if k.lower() == name.lower():
                return " ".join(str(v).split())
    except Exception:                    # noqa: BLE001
        pass
    return ""


def _sender(msg) -> str:
    try:
        h = msg["From"]
        addrs = getattr(h, "addresses", ()) if h is not None else ()
        for a in addrs:
            if a.addr_spec and "@" in a.addr_spec:
                return a.addr_spec.lower()
    except Exception:                    # noqa: BLE001
        pass
    _name, addr = parseaddr(_header(msg, "From"))
    return addr.lower() if "@" in addr else ""


# A message id as the host keeps it: printable ASCII, no spaces or brackets (RFC 5322
# msg-id), at most 250 characters.  Anything else is not an id: the message is then
# known by a digest of its bytes, and nothing of it reaches a header the host writes.
_MSGID = re.compile(r"[!-;=?-~]{1,250}")
_REF_RE = re.compile(r"<([!-;=?-~]{1,250})>")


def _msgid(text: str) -> str:
    m = re.search(r"<([^<>]*)>", text)
    cand = m.group(1) if m else text.strip().strip("<>").strip()
    return cand if _MSGID.fullmatch(cand) else ""


def _automatic(msg, sender: str) -> str:
    auto = _header(msg, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"automatic mail (Auto-Submitted: {auto})"
    prec = _header(msg, "Precedence").lower()
    if prec in ("bulk", "junk", "list"):
        return f"bulk or list mail (Precedence: {prec})"
    if msg.get_content_type() == "multipart/report" or _header(msg, "X-Failed-Recipients"):
        return "a delivery report (bounce)"
    if sender.split("@", 1)[0] in ("mailer-daemon", "postmaster"):
        return "a message from a mail system, not a person"
    return ""


class _ReadPolicy(policy.EmailPolicy):
    """``policy.default`` keeping each header it parsed by name and value (the email package
    parses a header at every look: a Content-Type about ten times a message)."""

    def header_fetch_parse(self, name, value):
        key = (name, value) if isinstance(value, str) else None
        got = _HEADERS.get(key) if key is not None else None
        if got is None:
            got = super().header_fetch_parse(name, value)
            if key is not None:
                _HEADERS.clear() if len(_HEADERS) >= 512 else None
                _HEADERS[key] = got
        return got


_HEADERS: dict = {}
READ_POLICY = _ReadPolicy()


def parse(raw: bytes, max_bytes: int = 0, read_policy=None) -> Incoming:
    """Read one message; never raises.  A message larger than ``max_bytes``
    (0 = no limit) is read for its headers only and gets a ``problem``.
    ``read_policy``: the email package's (default ``READ_POLICY``)."""
    inc = Incoming(size=len(raw))
    too_big = bool(max_bytes) and len(raw) > max_bytes
    pol = read_policy or READ_POLICY
    try:
        if too_big:
            msg = BytesHeaderParser(policy=pol).parsebytes(raw)
        else:
            msg = BytesParser(policy=pol).parsebytes(raw)
    except Exception as e:               # noqa: BLE001 - the parser is lenient; this is a last resort
        inc.problem = f"the message could not be parsed at all ({type(e).__name__})"
        inc.key = "sha256:" + hashlib.sha256(raw).hexdigest()
        return inc
    inc.message_id = _msgid(_raw_header(msg, "Message-ID"))
    inc.key = inc.message_id or "sha256:" + hashlib.sha256(raw).hexdigest()
    sender = _sender(msg)
    inc.sender = sender if safe_address(sender) else ""
    inc.subject = clean_header(_header(msg, "Subject"))
    inc.in_reply_to = _msgid(_raw_header(msg, "In-Reply-To"))
    inc.references = [f"<{r}>" for r in _REF_RE.findall(_raw_header(msg, "References"))]
    m = _TAG_RE.search(inc.subject)
    inc.subject_game = m.group(1) if m else ""
    inc.own = bool(_header(msg, "X-pbem-Kind"))
    inc.automatic = _automatic(msg, inc.sender)
    # what a re-delivery keeps the same: the body (transport headers may be added on the way)
    body_digest = hashlib.sha256(re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[-1]).hexdigest()
    if too_big:
        inc.problem = (f"the message is {len(raw):,} bytes; this host accepts at most {max_bytes:,}. "
                       "Send your orders as plain text, without attachments")
        inc.digest = body_digest
        return inc
    text, problem = body_text(msg)
    if text is None:
        inc.problem = problem
        inc.digest = body_digest
        return inc
    from pbem.trust.signed import split as split_signed
    before, armored = split_signed(text)         # an SSH signature covers the text above it, as sent
    if armored:
        inc.ssh_signed, inc.ssh_signature, text = before.replace("\r\n", "\n"), armored, before
    inc.text = strip_reply(text)
    inc.fields, inc.orders = split_fields(inc.text)
    inc.digest = hashlib.sha256(inc.text.encode("utf-8", "replace")).hexdigest()
    return inc


def body_text(msg) -> tuple[str | None, str]:
    """The message's readable text (plain preferred, else HTML made text), or
    (None, why not)."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception as e:               # noqa: BLE001
        return None, f"its MIME structure could not be read ({type(e).__name__})"
    if part is None:
        defects = [type(d).__name__ for d in getattr(msg, "defects", [])]
        why = f" (MIME problems: {', '.join(defects)})" if defects else ""
        return None, (f"it has no text part to read orders from{why}; "
                      "write the orders in the body of a plain-text or HTML message")
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, ValueError, AssertionError):
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", "replace")
    if not isinstance(content, str):
        content = bytes(content).decode("utf-8", "replace")
    if part.get_content_subtype() == "html":
        return html_to_text(content), ""
    params = {k.lower(): str(v).lower() for k, v in (part.get_params() or [])[1:]}
    if params.get("format") == "flowed":
        content = unflow(content, delsp=params.get("delsp") == "yes")
    return content, ""


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 format=flowed: a line ending in a space goes on in the next."""
    out: list[str] = []
    buf = ""
    for line in O.split_lines(text):           # the one definition of a line (not str.splitlines)
        if line.startswith(" "):
            line = line[1:]                            # space-stuffing
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


_BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table",
          "ul", "ol", "hr", "dd", "dt", "section", "article", "header", "footer"}
_VOID = {"br", "img", "hr", "meta", "input", "link", "area", "base", "col", "embed", "source", "wbr"}
_HIDDEN = {"style", "script", "head", "title", "blockquote"}
_QUOTE_MARKS = ("gmail_quote", "moz-cite-prefix", "divrplyfwdmsg", "yahoo_quoted", "protonmail_quote",
                "appendonsend", "gmail_signature", "moz-signature")


class _Html2Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0                  # depth inside an element whose text is not the author's
        self.pre = 0

    def handle_starttag(self, tag, attrs):
        if self.skip:
            if tag not in _VOID:
                self.skip += 1
            return
        marks = " ".join(str(v) for k, v in attrs if k in ("class", "id") and v).lower()
        if tag in _HIDDEN or any(m in marks for m in _QUOTE_MARKS):
            if tag not in _VOID:
                self.skip = 1
            return
        if tag == "pre":
            self.pre += 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_startendtag(self, tag, attrs):
        if not self.skip and tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if self.skip:
            if tag not in _VOID:
                self.skip -= 1
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.skip:
            return
        data = data.replace("\xa0", " ")
        if not self.pre:
            data = re.sub(r"\s+", " ", data)
        self.parts.append(data)


def html_to_text(source: str) -> str:
    """Readable text of an HTML body: block elements become line breaks,
    quoted replies (blockquote, the usual quote containers) and styles vanish."""
    p = _Html2Text()
    try:
        p.feed(source)
        p.close()
    except Exception:                    # noqa: BLE001 - fall back to crude tag stripping
        return html.unescape(re.sub(r"<[^>]*>", "\n", source))
    lines = [ln.strip() for ln in "".join(p.parts).split("\n")]
    return "\n".join(lines).strip("\n")


_ATTRIBUTION = re.compile(r"(wrote|schrieb|a écrit|escribió|scrisse|schreef)\s*:\s*$", re.IGNORECASE)


def strip_reply(text: str) -> str:
    """The author's own text: quoted lines ('>'), reply attributions and
    'Sent from my' lines become blank (so line numbers still match the
    message), and the text ends at a signature ('-- ') or a forwarded /
    original-message block."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    for i, ln in enumerate(lines):
        s = ln.rstrip()
        if s in ("--", "-- ") or ln == "-- ":
            break
        if re.match(r"^\s*-{2,}\s*(original message|forwarded message)", s, re.IGNORECASE) or re.match(r"^_{10,}$", s):
            break
        if re.match(r"^From:\s", s) and any(re.match(r"^(Sent|Date|To|Subject):\s", x)
                                            for x in lines[i + 1:i + 4]):
            break                                      # an Outlook-style quoted header block
        if s.lstrip().startswith(">"):
            out.append("")
            continue
        if _ATTRIBUTION.search(s):
            rest = [x for x in lines[i + 1:] if x.strip()]
            if not rest or rest[0].lstrip().startswith(">"):
                if out and re.match(r"^\s*(On|Am|Le|El|Il|Op)\s", out[-1]) and not _KEY_RE.match(out[-1]):
                    out[-1] = ""                       # the attribution wrapped over two lines
                out.append("")
                continue
        if re.match(r"^\s*Sent from my\s", s, re.IGNORECASE):
            out.append("")
            continue
        out.append(s)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


def split_fields(text: str) -> tuple[dict[str, str], str]:
    """Take the ``Key: value`` lines out of the text (leaving blank lines, so
    order line numbers stay those of the message); return them and the rest."""
    fields: dict[str, str] = {}
    rest: list[str] = []
    for ln in text.split("\n"):
        m = _KEY_RE.match(ln)
        if m:
            fields.setdefault(m.group(1).lower(), m.group(2))
            rest.append("")
            continue
        rest.append(ln)
    return fields, "\n".join(rest)


# --- signing ----------------------------------------------------------------

def canonical_orders(text: str) -> list[str]:
    """The order lines as the engine reads them: comments cut, spaces collapsed, blanks dropped."""
    out = []
    for ln in O.split_lines(text):
        if _KEY_RE.match(ln):
            continue
        body = " ".join(ln.split("#", 1)[0].split())
        if body:
            out.append(body)
    return out


def signature(secret: str, game: str, side: str, head: str, orders: str) -> str:
    """HMAC-SHA256 (hex) binding the orders to one game, side and head."""
    data = "\n".join([SIGN_VERSION, game, side, head.lower()] + canonical_orders(orders))
    return hmac.new(secret.encode("utf-8"), data.encode("utf-8"), hashlib.sha256).hexdigest()


def signed_body(secret: str, game: str, side: str, head: str, orders: str) -> str:
    """A message body ready to send: the key lines, the orders, the signature."""
    sig = signature(secret, game, side, head, orders)
    return (f"Game: {game}\nSide: {side}\nHead: {head.lower()}\n\n{orders.strip()}\n\nSignature: {sig}\n")


# --- writing ----------------------------------------------------------------

# Headers are not folded below the SMTP line limit, so a long subject stays on its line.
OUT_POLICY = policy.default.clone(max_line_length=998)


def build(sender: str, to: str, subject: str, body: str, *, message_id: str,
          attachments: list[Attachment] = (), in_reply_to: str = "", references: list[str] = (),
          headers: dict[str, str] | None = None, auto: str = "auto-generated", sender_name: str = "") -> EmailMessage:
    """One outgoing message (RFC 5322, MIME): text body plus attachments."""
    if not safe_address(to) or not safe_address(sender):
        raise Undeliverable(f"refusing to write a mail to {to!r} from {sender!r}: not a plain e-mail address")
    msg = EmailMessage(policy=OUT_POLICY)
    sender_name = clean_header(sender_name)
    msg["From"] = f"{sender_name} <{sender}>" if sender_name else sender
    msg["To"] = to
    msg["Subject"] = clean_header(subject)
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    msg["Message-ID"] = f"<{message_id}>"
    refs = list(references) + ([f"<{in_reply_to}>"] if in_reply_to else [])
    if in_reply_to or refs:
        msg["In-Reply-To"] = f"<{in_reply_to}>" if in_reply_to else refs[-1]
        msg["References"] = " ".join(dict.fromkeys(refs))
    msg["Auto-Submitted"] = auto                     # RFC 3834: no auto-replies to us, please
    for k, v in (headers or {}).items():
        msg[k] = clean_header(str(v))
    msg.set_content(O.visible(body))                 # no control character acts in a reader's mail program
    for a in attachments:
        msg.add_attachment(a.data, maintype=a.maintype, subtype=a.subtype, filename=a.filename)
    return msg


def recipients(data: bytes) -> list[str]:
    msg = BytesHeaderParser(policy=policy.default).parsebytes(data)
    out = []
    for name in ("To", "Cc"):
        h = msg[name]
        for a in getattr(h, "addresses", ()) if h is not None else ():
            if a.addr_spec:
                out.append(a.addr_spec)
    return out


# --- files ----------------------------------------------------------------

def _fsync_dir(path: Path) -> None:
    from pbem.log import _fsync_dir as fsync_dir       # here: this module stays light to import
    fsync_dir(path)


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write via a temporary file, fsync, rename, fsync the directory (the log's
    ``write_private``).  Private (0600) unless asked: most of what the host writes
    holds a secret."""
    from pbem.log import write_private
    write_private(Path(path), data)
    if mode != 0o600:
        os.chmod(path, mode)


_counter = 0


class Maildir:
    """A Maildir (``new/``, ``cur/``, ``tmp/``): delivery is write-to-tmp then
    rename, so a reader never sees half a message."""

    def __init__(self, path: Path, create: bool = True):
        self.path = Path(path)
        if create:
            for sub in ("tmp", "new", "cur"):
                (self.path / sub).mkdir(parents=True, exist_ok=True)
        elif not (self.path / "new").is_dir() or not (self.path / "cur").is_dir():
            raise MailError(f"{self.path} is not a Maildir (it needs new/ and cur/ subfolders)")

    @staticmethod
    def unique_name() -> str:
        global _counter
        _counter += 1
        return f"{time.time_ns()}.P{os.getpid()}Q{_counter}.{socket.gethostname().replace('/', '-')}"

    def deliver(self, data: bytes, name: str | None = None) -> Path:
        name = name or self.unique_name()
        tmp = self.path / "tmp" / name
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        final = self.path / "new" / name
        os.rename(tmp, final)
        _fsync_dir(final.parent)
        return final

    def messages(self) -> list[Path]:
        """Messages in new/ and cur/, oldest first."""
        found = []
        for sub in ("new", "cur"):
            for p in (self.path / sub).iterdir():
                if p.is_file() and not p.name.startswith("."):
                    try:
                        found.append((p.stat().st_mtime_ns, p.name, p))
                    except FileNotFoundError:
                        continue                        # taken by someone else meanwhile
        return [p for _t, _n, p in sorted(found)]

    def file_here(self, path: Path, keep_original: bool = False) -> Path:
        """Move (or copy) a message file into this Maildir's cur/."""
        base = Path(path).name.split(":", 1)[0]
        dest = self.path / "cur" / f"{base}:2,S"
        n = 1
        while dest.exists():
            dest = self.path / "cur" / f"{base}.{n}:2,S"
            n += 1
        if keep_original:
            write_atomic(dest, Path(path).read_bytes(), 0o600)
            return dest
        try:
            os.rename(path, dest)
        except OSError:                                 # another file system: copy, then remove
            write_atomic(dest, Path(path).read_bytes(), 0o600)
            os.unlink(path)
        # No fsync of the two folders: the journal (fsync'd) holds the message as done before
        # it is filed, so a rename a crash undoes puts it back in the inbox, where it is
        # recognised as handled and filed again, never applied twice (README: Never twice).
        return dest


class Outbox:
    """Outgoing mail as ``.eml`` files in a folder (the embedded default):
    a name is written once, so sending the same spooled mail twice is harmless.

    ``batch``: the folder is fsync'd once by ``sync()`` (the spool calls it before it
    forgets the mails it sent; so does leaving the ``with`` block), not once per mail."""

    def __init__(self, path: Path, batch: bool = False):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.batch = batch
        self._unsynced = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sync()
        return False

    def sync(self) -> None:
        """The folder fsync'd: every mail written so far is durable."""
        if self._unsynced:
            try:
                _fsync_dir(self.path)
            except OSError as e:
                raise MailError(f"cannot write {self.path}: {e.strerror or e}") from None
            self._unsynced = False

    def send_file(self, name: str, path: Path) -> str:
        """``send`` of a spooled mail's file (fsync'd): linked in, durable by the folder's fsync;
        a name there already is this mail sent before; copied across file systems."""
        dest = self.path / f"{name}.eml"
        try:
            os.link(path, dest)
        except FileExistsError:
            pass
        except OSError:
            return self.send(name, Path(path).read_bytes())
        self._unsynced = True
        if not self.batch:
            self.sync()
        return str(dest)

    def send(self, name: str, data: bytes) -> str:
        dest = self.path / f"{name}.eml"
        try:
            if self.batch:
                from pbem.log import write_private
                write_private(dest, data, sync_dir=False)
                self._unsynced = True
            else:
                write_atomic(dest, data)
        except OSError as e:                        # a full disk: the mail waits in the spool, as for a server down
            raise MailError(f"cannot write {dest}: {e.strerror or e}") from None
        return str(dest)


SECURITY = ("tls", "starttls", "none")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def check_security(kind: str, server: str, security: str) -> None:
    """Only the three documented values; "none" only to a loopback server, so no
    value (a typo included) ever sends a password in clear across a network."""
    if security not in SECURITY:
        raise MailError(f"{kind} security {security!r} is not one of: {', '.join(SECURITY)}")
    if security == "none" and server not in LOOPBACK:
        raise MailError(f"{kind} security \"none\" would send the password to {server} unencrypted; it is "
                        "for loopback test servers only")


class SmtpSender:
    """Outgoing mail through an SMTP server (submission port with STARTTLS,
    implicit TLS, or plain on loopback for tests)."""

    def __init__(self, server: str, port: int = 587, user: str = "", password: str | None = None,
                 security: str = "starttls", envelope_from: str = "", timeout: float = 60):
        self.server, self.port, self.user, self.password = server, port, user, password
        self.security, self.envelope_from, self.timeout = security, envelope_from, timeout
        check_security("SMTP", server, security)
        self.conn = None

    def __enter__(self):
        import smtplib
        import ssl
        if self.user and self.password is None:             # before connecting: nothing to close
            raise MailError(f"SMTP user {self.user} is set but no password was found "
                            "(PBEM_SMTP_PASSWORD or credentials.toml)")
        try:
            if self.security == "tls":
                self.conn = smtplib.SMTP_SSL(self.server, self.port, timeout=self.timeout,
                                             context=ssl.create_default_context())
            else:
                self.conn = smtplib.SMTP(self.server, self.port, timeout=self.timeout)
                if self.security == "starttls":
                    self.conn.starttls(context=ssl.create_default_context())
            if self.user:
                self.conn.login(self.user, self.password)
        except (OSError, smtplib.SMTPException) as e:
            self._close()
            raise MailError(f"SMTP {self.server}:{self.port}: {_brief(e)}") from None
        return self

    def __exit__(self, *exc):
        self._close()
        return False

    def _close(self):
        if self.conn is not None:
            try:
                self.conn.quit()
            except Exception:                # noqa: BLE001 - closing a broken connection
                pass
            self.conn = None

    def send(self, name: str, data: bytes) -> str:
        import smtplib
        to = recipients(data)
        data = re.sub(rb"\r?\n", b"\r\n", data)      # SMTP wants CRLF; .eml files on disk keep LF
        if not to:
            raise Undeliverable(f"{name}: the message names no recipient")
        try:
            refused = self.conn.sendmail(self.envelope_from, to, data)
        except smtplib.SMTPRecipientsRefused as e:
            why = "; ".join(f"{r}: {c} {m.decode('utf-8', 'replace') if isinstance(m, bytes) else m}"
                            for r, (c, m) in e.recipients.items())
            raise Undeliverable(f"{name}: every recipient was refused ({_brief(Exception(why))})") from None
        except smtplib.SMTPDataError as e:
            if e.smtp_code >= 500:
                raise Undeliverable(f"{name}: the server refused the message ({_brief(e)})") from None
            raise MailError(f"SMTP {self.server}:{self.port}: {_brief(e)}") from None
        except (OSError, smtplib.SMTPException) as e:
            raise MailError(f"SMTP {self.server}:{self.port}: {_brief(e)}") from None
        if refused:
            return f"{', '.join(to)} (refused: {', '.join(refused)})"
        return ", ".join(to)


def _brief(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return " ".join(text.split())[:300]


class ImapInbox:
    """Incoming mail in an IMAP folder.  A message is moved to the processed
    or quarantine folder only after the host has dealt with it.

    No IDLE: each poll logs in, looks, and logs out.  UIDs are used only within one
    session (a message is known by its Message-ID: the journal), so a change of
    UIDVALIDITY (``uidvalidity``, for the host to log) renumbers nothing the host
    keeps; a message another client deleted meanwhile is simply not there; and a
    connection dropped in the middle leaves the messages not yet filed where they
    are, for the next poll."""

    def __init__(self, server: str, port: int = 993, user: str = "", password: str | None = None,
                 folder: str = "INBOX", security: str = "tls", processed: str = "pbem-processed",
                 quarantine: str = "pbem-quarantine", timeout: float = 60, batch: int = 200):
        self.server, self.port, self.user, self.password = server, port, user, password
        self.folder, self.security, self.timeout, self.batch = folder, security, timeout, batch
        self.targets = {"processed": processed, "quarantine": quarantine}
        check_security("IMAP", server, security)
        self.conn = None
        self.uidvalidity = ""
        self.caps: set[str] = set()
        self.skipped: list[str] = []          # UIDs another client took away between the search and the fetch

    def __enter__(self):
        import imaplib
        import ssl
        if self.password is None:                           # before connecting: nothing to close
            raise MailError(f"IMAP user {self.user} has no password (PBEM_IMAP_PASSWORD or credentials.toml)")
        try:
            if self.security == "tls":
                self.conn = imaplib.IMAP4_SSL(self.server, self.port, ssl_context=ssl.create_default_context(),
                                              timeout=self.timeout)
            else:
                self.conn = imaplib.IMAP4(self.server, self.port, timeout=self.timeout)
                if self.security == "starttls":
                    self.conn.starttls(ssl_context=ssl.create_default_context())
            self.conn.login(self.user, self.password)
            # a server names more after the login (Dovecot: MOVE) than before it
            typ, dat = self.conn.capability()
            if typ == "OK" and dat and dat[-1]:
                self.caps = {c.upper() for c in dat[-1].decode("ascii", "replace").split()}
            typ, _ = self.conn.select(self._quote(self.folder))
            if typ != "OK":
                raise MailError(f"IMAP folder {self.folder!r} cannot be opened")
            got = self.conn.response("UIDVALIDITY")[1]
            self.uidvalidity = (got[-1] or b"").decode("ascii", "replace") if got and got[-1] else ""
        except (OSError, imaplib.IMAP4.error) as e:
            self._close()
            raise MailError(f"IMAP {self.server}:{self.port}: {_brief(e)}") from None
        except MailError:
            self._close()
            raise
        return self

    def __exit__(self, *exc):
        self._close()
        return False

    def _close(self):
        if self.conn is not None:
            try:
                if self.conn.state == "SELECTED":
                    self.conn.close()
                self.conn.logout()
            except Exception:                # noqa: BLE001
                pass
            self.conn = None

    @staticmethod
    def _quote(name: str) -> str:
        return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def messages(self):
        """(uid, raw bytes) of the messages waiting, oldest first, one at a time: each is
        fetched when the one before it has been dealt with (and filed)."""
        for uid in self.uids():
            raw = self.fetch(uid)
            if raw is not None:
                yield uid, raw

    def uids(self) -> list[str]:
        """The UIDs of the messages waiting, oldest first (at most ``batch``)."""
        import imaplib
        try:
            typ, data = self.conn.uid("SEARCH", None, "ALL")
            if typ != "OK":
                raise MailError(f"IMAP SEARCH failed: {data!r}")
            return [u.decode() for u in (data[0] or b"").split()[: self.batch]]
        except (OSError, imaplib.IMAP4.error) as e:
            raise MailError(f"IMAP {self.server}: {_brief(e)}") from None

    def fetch(self, uid: str) -> bytes | None:
        """One message's raw bytes; None (and the UID in ``skipped``) when another client
        expunged it since the search."""
        import imaplib
        try:
            typ, parts = self.conn.uid("FETCH", uid, "(BODY.PEEK[])")
        except (OSError, imaplib.IMAP4.error) as e:
            raise MailError(f"IMAP {self.server}: {_brief(e)} (while fetching message {uid}; the "
                            "messages not filed yet stay in the folder for the next poll)") from None
        raw = next((p[1] for p in parts or [] if isinstance(p, tuple) and len(p) > 1), None)
        if typ == "OK" and raw is not None:
            return bytes(raw)
        self.skipped.append(uid)                    # expunged by another client since the search
        return None

    def file_into(self, uid: str, where: str) -> None:
        """Move a message to the processed or quarantine folder (created if needed)."""
        import imaplib
        folder = self._quote(self.targets[where])
        try:
            typ, data = self.conn.uid("SEARCH", None, f"UID {uid}")
            if typ == "OK" and uid.encode() not in (data[0] or b"").split():
                return                              # another client took it away meanwhile: nothing to move
            caps = self.caps | {c.decode().upper() if isinstance(c, bytes) else str(c).upper()
                                for c in (self.conn.capabilities or ())}
            if "MOVE" in caps:
                typ, data = self.conn.uid("MOVE", uid, folder)
                if typ != "OK":
                    self.conn.create(folder)
                    typ, data = self.conn.uid("MOVE", uid, folder)
            else:
                typ, data = self.conn.uid("COPY", uid, folder)
                if typ != "OK":
                    self.conn.create(folder)
                    typ, data = self.conn.uid("COPY", uid, folder)
                if typ == "OK":
                    self.conn.uid("STORE", uid, "+FLAGS", "(\\Deleted)")
                    self.conn.expunge()
            if typ != "OK":
                raise MailError(f"IMAP: cannot move message {uid} to {self.targets[where]!r}: {data!r}")
        except (OSError, imaplib.IMAP4.error) as e:
            raise MailError(f"IMAP {self.server}: {_brief(e)}") from None
