"""What a mail of pbem's is made of, below the mail host: an attachment, a header
value no outside text can split, an address safe to write into To:, and the
errors of a mail that cannot go.  The report writes its mails with these
(``render.report_eml``, ``map_attachments``) and the engine checks a player's
address with them, so neither imports the host (tests/test_layers.py);
``pbem.host.mail`` gives the same names."""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Attachment", "MailError", "Undeliverable", "clean_header", "safe_address"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_ADDR = re.compile(r"[!-?A-~]+@[!-?A-~]+")          # printable ASCII, no spaces, one @ at least


class MailError(Exception):
    """A transport failure (SMTP, IMAP, files) with a message for the host."""


class Undeliverable(MailError):
    """This one mail can never go (recipients or content refused for good);
    the others can."""


def clean_header(value: str) -> str:
    """A header value with every control character (CR and LF included) made a
    space: no text from outside (a subject, a side name) can add a header line."""
    return " ".join(_CONTROL.sub(" ", value).split())


def safe_address(addr: str) -> bool:
    """True for an address the host may write into To: (no spaces, no control characters)."""
    return bool(_ADDR.fullmatch(addr))


@dataclass
class Attachment:
    data: bytes
    maintype: str
    subtype: str
    filename: str
