"""The players of a hosted game: each side's address (the one the game
began with, or a later one in player-changes.json), its secret
(player-secrets.json, mode 0600, never in the log), the record of replaced
secrets and of addresses that no longer play a side, and
`pbem host rotate-secret`."""
from __future__ import annotations

import functools

import hashlib
import json
import secrets as _secrets

from pbem.host import crash
from pbem.host import mail as M
from pbem.host.common import CHANGES_NAME, REFEREE, SECRETS_NAME, Answer, HostError, iso
from pbem.host.journal import job_key
from pbem.store.files import same_game


class PlayersMixin:
    """Who plays which side of the Host's games, and their secrets.  Uses the
    Host's ``cfg``, ``games``, ``locked``, ``log``, the journal, the letters
    and the spool."""

    @staticmethod
    def secrets_of(game) -> dict[str, str]:
        path = game.store.path_of(SECRETS_NAME)
        # a database's documents have no modes (its tables' grants guard them): one read, not two
        mode = game.store.mode(SECRETS_NAME) if getattr(game.store, "has_modes", True) else 0o600
        if mode is None:
            return {}
        if mode & 0o077:
            raise HostError(f"{path} can be read by others (mode {mode:o}); run: chmod 600 {path}")
        try:
            return dict(json.loads(game.store.read(SECRETS_NAME) or b"{}"))
        except (OSError, ValueError) as e:
            raise HostError(f"cannot read {path}: {e}") from None

    def ensure_secrets(self, game) -> dict[str, str]:
        sec = self.secrets_of(game)
        changed = False
        for side in game.scenario.side_ids():
            if side not in sec:
                sec[side] = _secrets.token_hex(16)
                changed = True
        if changed:
            self._save_secrets(game, sec)
        return sec

    @staticmethod
    def _save_secrets(game, sec: dict[str, str]) -> None:
        game.store.write(SECRETS_NAME, json.dumps(sec, indent=1).encode())

    def _players(self, game) -> dict[str, str]:
        """Each side's player address: the one the game began with, or the
        one `pbem host rotate-secret --email` registered since.  Read once per
        incoming message (``ingest`` keeps them in ``_players_read``: its checks, its answer
        and its reports read the same)."""
        kept = getattr(self, "_players_read", None)
        got = kept.get(game.game_id) if kept is not None else None
        if got is None:
            given = dict(game.created.players)
            given.update(self._changes(game).get("addresses", {}) or {})
            try:
                got = dict(_addresses(tuple(given.items())))
            except TypeError:                       # a value no JSON of pbem's holds: read it as it is
                got = dict(_addresses.__wrapped__(tuple(given.items())))
            if kept is not None:
                kept[game.game_id] = got
        return dict(got)

    def unplayed(self, game) -> list[str]:
        """The sides with no player address: nobody is mailed their reports, and their steps
        are left to the deadlines (`pbem new` warns, `pbem host status` shows them)."""
        players = self._players(game)
        return [s for s in game.scenario.side_ids() if s not in players]

    # --- player changes: a side's new address, replaced secrets ------------------------
    #
    # The log's GameCreated keeps the addresses the game began with; the host
    # keeps later ones in player-changes.json (mode 0600), with a record of
    # every replaced secret (its sha256 only, never the secret) and every
    # address that no longer plays a side, so mail carrying either is refused
    # with a clear reason.

    @staticmethod
    def _changes(game) -> dict:
        path = game.store.path_of(CHANGES_NAME)
        try:
            raw = game.store.read(CHANGES_NAME)
            if raw is None:
                return {}
            data = json.loads(raw)
        except (OSError, ValueError) as e:
            raise HostError(f"cannot read {path}: {e}") from None
        return data if isinstance(data, dict) else {}

    def _retired(self, game, side: str | None = None) -> list[dict]:
        """The replacements of ``side`` (every side if None), oldest first."""
        return [r for r in self._changes(game).get("retired", []) if side is None or r.get("side") == side]

    def _known_sender(self, address: str) -> bool:
        """Does ``address`` play (or did it play) a side of a game on this host?"""
        from pbem.engine import Game
        for path in self.games().values():
            try:
                if self._plays(Game(path), address):
                    return True
            except Exception:                  # noqa: BLE001 - a broken game knows nobody
                continue
        return False

    def _plays(self, game, address: str) -> bool:
        return address in self._players(game).values() or self._retired_address(game, address) is not None

    def _retired_address(self, game, address: str, side: str | None = None) -> dict | None:
        """The latest record of ``address`` leaving ``side`` (any side if None)
        while it plays that side no longer."""
        players = self._players(game)
        for r in reversed(self._retired(game, side)):
            if r.get("address") == address and players.get(r["side"]) != address:
                return r
        return None

    def rotate_secret(self, game, side: str, email: str | None = None) -> dict:
        """`pbem host rotate-secret`: give ``side`` a new secret (and, with
        ``email``, a new player address), mail it to the side's player only,
        tell a replaced address that it no longer plays the side and the
        referee that the secret changed.  From then on the old secret and the
        old address are refused.  The secret goes into player-secrets.json
        (mode 0600) and the player's mail, nowhere else."""
        from email.utils import parseaddr
        with self.locked(), self.store.transaction():
            gid = game.game_id
            hosted = self.games().get(gid)
            if hosted is None or not same_game(hosted, game):
                raise HostError(f"game {gid} ({game.store.where}) is not hosted by {self.cfg.root}; "
                                "host it first with `pbem host add`")
            sc = game.scenario
            side = side.strip()
            if side not in sc.side_ids():
                raise HostError(f"game {gid} has no side {side!r}; its sides are {', '.join(sc.side_ids())}")
            old_addr = self._players(game).get(side, "")
            new_addr = old_addr
            if email is not None:
                new_addr = parseaddr(email.strip())[1].strip().lower()
                if "@" not in new_addr or any(c.isspace() for c in new_addr) or new_addr.startswith("@") \
                        or new_addr.endswith("@"):
                    raise HostError(f"--email {email!r} is not an e-mail address")
                if new_addr == self.cfg.address:
                    raise HostError(f"--email {new_addr} is the host's own address; give the player's address")
            if not new_addr:
                raise HostError(f"side {side} of game {gid} has no player address to mail the new secret to; "
                                "give one with --email ADDRESS")
            sec = self.secrets_of(game)                      # refuses a file others can read
            old_secret = sec.get(side, "")
            moved = new_addr != old_addr
            new_secret = _secrets.token_hex(16)
            now = iso(self.now())
            key = job_key("rotate", gid, side, now, _secrets.token_hex(4))
            rec = self._start(key, kind="rotate", game=gid, side=side)

            # the mails first: if one cannot be made, nothing has changed yet
            st = game.state()
            entries = game.entries()
            head = entries[-1].hash
            name = sc.side_name(side)
            ctx = self._context(game, side, st, head)
            text, atts = self._report(game, side, st, entries, head)
            body = self._tpl("secret", report=text, secret=new_secret, new_player=moved and bool(old_addr),
                             first_address=not old_addr, address=new_addr, **ctx)
            answers = [Answer(new_addr, side, "secret", f"[pbem {gid}] your new secret: you play {name} "
                              f"in {sc.title}", body, atts, head=head, seq=st.seq,
                              references=self._refs(game, side), slug=f"{side}-secret")]
            if moved and old_addr:
                note = (f"The host of game {gid} has given {name} (side \"{side}\") to another player, "
                        f"so {old_addr} no longer plays it. Mail from this address for that side is refused "
                        "from now on, and so is the side's old secret. Write to the host if this is a mistake.")
                answers.append(Answer(old_addr, side, "notice", f"[pbem {gid}] you no longer play {name}",
                                      self._tpl("notice", note=note, **ctx), references=self._refs(game, side),
                                      slug=f"{side}-replaced"))
            if self.cfg.referee:
                who = ""
                if moved:
                    who = f"; the side is now played from {new_addr}" + (f" instead of {old_addr}" if old_addr else "")
                note = (f"The host replaced the secret of {name} ({side}) on {now}{who}. The new secret went "
                        "to the side's player only; the old one is refused from now on.")
                answers.append(Answer(self.cfg.referee, REFEREE, "notice", f"[pbem {gid}] referee: new secret "
                                      f"for {name}", self._tpl("notice", note=note,
                                                               **self._context(game, REFEREE, st, head)),
                                      slug=f"referee-{side}-secret"))

            # the new secret in force: from here on the old one is refused
            sec[side] = new_secret
            self._save_secrets(game, sec)
            changes = self._changes(game)
            if moved:
                changes.setdefault("addresses", {})[side] = new_addr
            changes.setdefault("retired", []).append({
                "side": side, "at": now,
                "secret_sha256": secret_digest(old_secret) if old_secret else "",
                "address": old_addr if moved else ""})
            game.store.write(CHANGES_NAME, json.dumps(changes, indent=1, sort_keys=True).encode())
            self._players_read = None
            crash.checkpoint("rotated")
            self.commit(rec["job"], answers, gid)
            self._mark_reported(game, answers[:1])
            self._done(key, rec, outcome="rotated", moved=moved)
            self.log(f"game {gid}: new secret for {side} mailed to {new_addr}"
                     + (f" (the side's new address; {old_addr} no longer plays it)" if moved and old_addr else
                        " (the side's new address)" if moved else ""))
            self.store.after_commit(self.flush)       # a database sends once the job is in
        return {"game": gid, "side": side, "to": new_addr, "old": old_addr if moved else "",
                "file": game.store.path_of(SECRETS_NAME)}


def secret_digest(secret: str) -> str:
    """What the host keeps of a replaced secret: enough to recognise it, not to use it."""
    return hashlib.sha256(secret.strip().lower().encode("utf-8", "replace")).hexdigest()


@functools.lru_cache(maxsize=256)
def _addresses(given: tuple) -> tuple:
    """(side, address) of each side whose given address is one the host mails (parsed once
    per process for the same addresses: several times a mail read them)."""
    from email.utils import parseaddr
    out = []
    for side, addr in given:
        a = parseaddr(addr or "")[1].lower()
        if M.safe_address(a):                  # an address with a line break or a space gets no mail
            out.append((side, a))
    return tuple(out)
