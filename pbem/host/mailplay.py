"""Scripted players who play a game only by e-mail, through a host.

Each player reads the mail the host sent to their address (welcome, answers,
reports), takes their secret from the welcome and the head from the newest
mail, and answers with the orders of the next step of a playbook (the same
folders `pbem play` uses).  One player signs its orders, the other sends its
token, so both ways are used.  `pbem mail demo` and the end-to-end tests run
this; the host cannot tell these players from people.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate
from pathlib import Path
from typing import Callable

from pbem.host import mail as M


class MailPlayError(Exception):
    pass


def read(data: bytes) -> EmailMessage:
    return BytesParser(policy=policy.default).parsebytes(data)


def body_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


def addressed_to(msg: EmailMessage, address: str) -> bool:
    h = msg["To"]
    return any(a.addr_spec.lower() == address.lower() for a in getattr(h, "addresses", ()))


@dataclass
class Player:
    side: str
    address: str
    sign: bool = False
    secret: str = ""
    sent: int = 0


class Table:
    """The players of one game around a host.

    ``mailbox(address)`` gives (key, raw) of the mails delivered to an
    address so far, oldest first (the key names a mail for good: a file
    name, a number); ``deliver(raw)`` puts a message into the host's inbox;
    ``process()`` makes the host deal with its inbox."""

    def __init__(self, game_id: str, host_address: str, players: list[Player],
                 mailbox: Callable[[str], list[tuple[str, bytes]]], deliver: Callable[[bytes], None],
                 process: Callable[[], None]):
        self.game_id, self.host_address = game_id, host_address
        self.players = {p.side: p for p in players}
        self.mailbox, self.deliver, self.process = mailbox, deliver, process
        self._parsed: dict[str, EmailMessage] = {}

    def mails(self, side: str) -> list[EmailMessage]:
        out = []
        for key, raw in self.mailbox(self.players[side].address):
            if key not in self._parsed:
                self._parsed[key] = read(raw)
            out.append(self._parsed[key])
        return out

    def secret(self, side: str) -> str:
        p = self.players[side]
        if not p.secret:
            for msg in self.mails(side):
                if str(msg["X-pbem-Kind"] or "") == "welcome" and str(msg["X-pbem-Side"]) == side:
                    m = re.search(r"YOUR SECRET\s+([0-9a-f]{16,})", body_of(msg))
                    if m:
                        p.secret = m.group(1)
            if not p.secret:
                raise MailPlayError(f"{side} ({p.address}) got no welcome mail with a secret")
        return p.secret

    def latest(self, side: str) -> EmailMessage:
        """The newest mail to this side that carries the game's head."""
        found = [m for m in self.mails(side) if m["X-pbem-Head"] and str(m["X-pbem-Side"]) == side]
        if not found:
            raise MailPlayError(f"{side} has no mail from the host yet")
        return found[-1]

    def compose(self, side: str, orders: str, head: str | None = None, reply_to: EmailMessage | None = None,
                token: str | None = None) -> EmailMessage:
        p = self.players[side]
        reply_to = reply_to if reply_to is not None else self.latest(side)
        head = head if head is not None else str(reply_to["X-pbem-Head"])
        secret = self.secret(side)
        if p.sign:
            body = M.signed_body(secret, self.game_id, side, head, orders)
        else:
            body = f"Head: {head}\nToken: {token if token is not None else secret}\n\n{orders.strip()}\n"
        # what a mail program adds below the orders: a signature and the quoted mail
        quoted = "\n".join("> " + ln for ln in body_of(reply_to).splitlines()[:40])
        body += f"\n-- \n{side} player\n\nOn {reply_to['Date']}, {self.host_address} wrote:\n{quoted}\n"
        p.sent += 1
        msg = EmailMessage()
        msg["From"] = p.address
        msg["To"] = self.host_address
        subject = str(reply_to["Subject"] or f"[pbem {self.game_id}] orders")
        msg["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
        msg["Date"] = formatdate(usegmt=True)
        msg["Message-ID"] = f"<{side}.{p.sent}.{self.game_id}@players.example>"
        msg["In-Reply-To"] = str(reply_to["Message-ID"])
        msg["References"] = " ".join(filter(None, [str(reply_to["References"] or ""), str(reply_to["Message-ID"])]))
        msg.set_content(body)
        return msg

    def answer_to(self, side: str, msg: EmailMessage) -> EmailMessage:
        mid = str(msg["Message-ID"])
        for m in reversed(self.mails(side)):
            if str(m["In-Reply-To"] or "") == mid:
                return m
        raise MailPlayError(f"the host did not answer {side}'s message {mid}")

    def send(self, side: str, orders: str, **kw) -> EmailMessage:
        """Send orders and return the host's answer."""
        msg = self.compose(side, orders, **kw)
        self.deliver(bytes(msg))
        self.process()
        return self.answer_to(side, msg)


def side_of(step: str, sides: list[str]) -> str:
    stem = Path(step).stem
    for s in sides:
        if stem.endswith("-" + s):
            return s
    raise MailPlayError(f"{step}: the file name must end with -SIDE.txt, SIDE one of {', '.join(sides)}")


def play_steps(folder: Path, table: Table, sides: list[str], echo=print, extras: dict | None = None) -> int:
    """Send every step of the playbook as one message of its side; stop at
    the first answer that is not 'accepted'.  ``extras`` (``mail_extras``) adds
    the mails only the by-mail demo sends: commands before a step, and steps
    sent as a DRAFT and then made FINAL, and groups of a side's steps sent in one mail,
    the later ones after THEN lines (``ahead``: held and applied when their time comes)."""
    book = tomllib.loads((folder / "playbook.toml").read_text())
    extras = extras or {}
    staged = set(extras.get("staged", []))
    # orders ahead (pbem.ahead): a group's later steps go in its first step's mail, after THEN lines
    groups = {g[0]: g[1:] for g in extras.get("ahead", []) if g}
    later = {s: g[0] for g in extras.get("ahead", []) for s in g[1:]}
    for n, step in enumerate(book["steps"], start=1):
        side = side_of(step, sides)
        if step in later:
            echo(f"{step:<22} sent ahead by {side} with {later[step]} (after THEN), applied when its time came")
            continue
        for extra in extras.get("mail", []):
            if extra.get("before") == step:
                _send_extra(folder, table, sides, extra, echo)
        orders = (folder / step).read_text()
        for more in groups.get(step, []):
            if side_of(more, sides) != side:
                raise MailPlayError(f"mail.toml: ahead group of {step} holds {more}, a step of another side")
            orders = orders.rstrip("\n") + "\nTHEN\n" + (folder / more).read_text()
        if step in staged:
            _expect(table.send(side, "DRAFT\n" + orders), "staged", step + " (DRAFT)")
            echo(f"{step:<22} mailed by {side} as a DRAFT: held, not applied")
            answer = table.send(side, "FINAL\n")
            what = f"{step} (FINAL)"
        else:
            answer = table.send(side, orders)
            what = step
        outcome = _expect(answer, "accepted", what)
        echo(f"{what:<22} mailed by {side}, {outcome}; head {str(answer['X-pbem-Head'])[:12]}")
        for extra in extras.get("mail", []):
            if extra.get("after") == step:
                _send_extra(folder, table, sides, extra, echo)
    return len(book["steps"])


def _expect(answer: EmailMessage, want: str, what: str) -> str:
    outcome = str(answer["X-pbem-Outcome"] or "")
    if outcome != want:
        raise MailPlayError(f"{what}: the host answered {outcome or 'without an outcome'}, not {want}:\n"
                            + "\n".join(body_of(answer).splitlines()[:12]))
    return outcome


def _send_extra(folder: Path, table: Table, sides: list[str], extra: dict, echo) -> None:
    """One mail of the demo's own: its text, and a step's orders after it (``orders``)."""
    side = extra["side"]
    if side not in sides:
        raise MailPlayError(f"mail.toml: side {side!r} is not one of {', '.join(sides)}")
    text = extra.get("text", "")
    if extra.get("orders"):
        text += "\n" + (folder / extra["orders"]).read_text()
    answer = table.send(side, text)
    outcome = _expect(answer, extra.get("expect", "accepted"), f"mail.toml ({extra.get('about', 'a mail')})")
    echo(f"{'  ' + extra.get('about', 'mail'):<22} mailed by {side}, {outcome}")


def mail_extras(folder: Path) -> dict:
    """``FOLDER/mail.toml``: the mails only the by-mail demo sends ({} without one)."""
    path = folder / "mail.toml"
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise MailPlayError(f"{path}: {e}") from None


def demo(folder: Path, into: Path, echo=print, maps: bool = True, reveal: bool = True) -> str:
    """`pbem mail demo`: a fresh host in INTO on the embedded defaults plays
    the example with two scripted players; every mail stays in INTO/outbox.
    ``maps=False`` sends no map pictures (faster); ``reveal=False`` keeps the seed."""
    from pbem.engine import Game
    from pbem.host.service import Host, init_host
    try:
        book = tomllib.loads((folder / "playbook.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise MailPlayError(f"{folder / 'playbook.toml'}: {e}") from None
    if (into / "pbem-host.toml").exists() or (into.exists() and any(into.iterdir())):
        raise MailPlayError(f"{into} is not empty; give a new folder (or delete it)")
    address = "referee@pbem.example"
    init_host(into, address, name="pbem referee", period="off", maps=maps)
    host = Host.open(into)
    gid = book.get("id") or folder.name
    game = Game.create(host.cfg.games_dir / gid, book["scenario"], book.get("players", {}),
                       seed_hex=book.get("seed"), dice=book.get("dice"), game_id=gid)
    host.welcome(game)
    sides = game.scenario.side_ids()
    players = [Player(s, addr, sign=(i == 0)) for i, (s, addr) in enumerate(game.created.players.items()) if addr]
    inbox = M.Maildir(host.inbox_path)

    to_of: dict[str, str] = {}

    def mailbox(address: str) -> list[tuple[str, bytes]]:
        out = []
        for f in sorted(host.outbox_path.glob("*.eml")):
            if f.name not in to_of:
                to_of[f.name] = ",".join(M.recipients(f.read_bytes())).lower()
            if address.lower() in to_of[f.name].split(","):
                out.append((f.name, f.read_bytes()))
        return out

    table = Table(gid, address, players, mailbox, inbox.deliver, host.poll)
    steps = play_steps(folder, table, sides, echo=echo, extras=mail_extras(folder))
    game = Game(game.dir)
    st = game.state()
    if reveal and game.created.dice_mode == "seeded":
        game.reveal()                      # as `pbem reveal` at the host: the next poll mails it to everyone
        host.poll()
        echo("the host revealed the dice seed; every side got it by mail")
    rep = game.verify()
    if not rep.ok:
        raise MailPlayError("verify failed: " + "; ".join(rep.problems))
    result = (f"{game.scenario.side_name(st.result.winner)} wins: {st.result.reason} (rule {st.result.rule})"
              if st.result else "the game is not finished")
    n = len(list(host.outbox_path.glob("*.eml")))
    n_in = len(host.processed.messages())
    return (f"{game.scenario.title}, played by e-mail\n{result}\n"
            f"{steps} steps in {n_in} mails in, {n} mails out: {host.outbox_path}/\n"
            f"log {game.dir / 'log.jsonl'}: {rep.events} events, verified; head {rep.head}")
