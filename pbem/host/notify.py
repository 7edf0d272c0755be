"""'Your turn' beyond mail: a webhook per player (`pbem new --notify SIDE=URL`, kept in
the game's notify.json, mode 0600), or the host's ``[notify] url`` template for every
player.  When the game starts to wait for a side, the host posts a small JSON document
to that side's webhook: the game, the side, the step, the due time and the head, never
a secret, a token or an address.  ``discord:URL`` and ``slack:URL`` post those
services' payloads instead (``{"content": ...}``, ``{"text": ...}``).

Each ping is a file in state/notify/pending/ until a server answered 2xx; a failed try
is retried with back-off (``BACKOFF``), and after the last one, or at once on a 4xx
answer (but 408 and 429), it is set aside in state/notify/failed/.  `pbem host status`
shows both with their last error.  A webhook goes to https, or to http on loopback
only (tests, a local relay)."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from datetime import timedelta
from urllib.parse import urlsplit

from pbem.host import mail as M
from pbem.host.common import HostError, iso, parse_time

NOTIFY_NAME = "notify.json"
FORMATS = ("json", "discord", "slack")
BACKOFF = [timedelta(minutes=m) for m in (1, 5, 15, 60, 180, 360, 720, 1440)]   # then it is set aside
TIMEOUT = 10.0


def check_target(value: str) -> str:
    """'[json:|discord:|slack:]URL', checked: https, or http to a loopback address; HostError if not."""
    fmt, url = split_target(value)
    u = urlsplit(url)
    if len(url) > 2000 or any(c.isspace() or ord(c) < 32 for c in url):
        raise HostError(f"{url[:80]!r} is not a webhook address")
    host = (u.hostname or "").lower()
    if u.scheme == "http" and host not in M.LOOPBACK:
        raise HostError(f"webhook {shown(url)}: http would send the ping unencrypted; use https (http is for "
                        "loopback only)")
    if u.scheme not in ("https", "http") or not host:
        raise HostError(f"{shown(url)} is not a webhook address; write https://... (discord:https://..., "
                        "slack:https://... for those services)")
    if u.username or u.password:
        raise HostError(f"webhook {shown(url)}: no user or password in the address, please")
    return f"{fmt}:{url}" if fmt != "json" else url


def split_target(value: str) -> tuple[str, str]:
    value = value.strip()
    head, sep, rest = value.partition(":")
    if sep and head.lower() in FORMATS and not rest.startswith("//"):
        return head.lower(), rest.strip()
    return "json", value


def shown(url: str) -> str:
    """A webhook as the host shows it: scheme, host and port; the path (where services such
    as Discord keep their token) left out."""
    u = urlsplit(url)
    return f"{u.scheme}://{u.netloc}/..." if u.scheme and u.netloc else "(not an address)"


def hooks_of(game) -> dict[str, str]:
    try:
        data = json.loads(game.store.read(NOTIFY_NAME) or b"{}")
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in (data.get("hooks") or {}).items() if isinstance(v, str)} if isinstance(data, dict) else {}


def set_hooks(game, hooks: dict[str, str]) -> None:
    data = {"hooks": {**hooks_of(game), **{s: check_target(u) for s, u in hooks.items()}}}
    game.store.write(NOTIFY_NAME, json.dumps(data, indent=1, sort_keys=True).encode())


def payload(fmt: str, doc: dict) -> dict:
    """What is posted: the document itself, or a Discord / Slack message saying the same."""
    if fmt == "json":
        return doc
    due = f" Due by {doc['due']}." if doc.get("due") else ""
    text = (f"pbem {doc['game']}: {doc['side_name']}, it is your turn ({doc['step']}).{due} "
            f"Head {doc['head'][:12]}.")
    if fmt == "discord":
        return {"content": text, "allowed_mentions": {"parse": []}}
    return {"text": text}


def post(url: str, body: bytes) -> str:
    """POST ``body`` (JSON) to ``url``: '' when the server took it (2xx), else why not, with
    'permanent: ' in front when trying again cannot help (a 4xx answer but 408 and 429)."""
    import urllib.error
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **kw):
            return None                             # a webhook that moves is a failure to see, not to follow
    handlers = [NoRedirect()]
    if (urlsplit(url).hostname or "") in M.LOOPBACK:
        handlers.append(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers={"Content-Type": "application/json", "User-Agent": "pbem-host"})
    try:
        with urllib.request.build_opener(*handlers).open(req, timeout=TIMEOUT) as r:
            r.read(4096)
            return "" if 200 <= r.status < 300 else f"HTTP {r.status}"
    except urllib.error.HTTPError as e:
        code = e.code
        return ("permanent: " if 400 <= code < 500 and code not in (408, 429) else "") + f"HTTP {code} {e.reason}"
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        return f"{type(reason).__name__}: {reason}"[:300]


@contextlib.contextmanager
def _taken(path):
    """Whether this process holds the pending ping ``path`` (an exclusive flock, not waited
    for): several workers of one machine share state/notify/, and only one posts a ping.
    A ping another worker sent (removed) or replaced meanwhile is read again by its name."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield path.exists()
    finally:
        os.close(fd)


class NotifyMixin:
    """The Host's webhooks.  Uses the Host's ``cfg``, ``state_dir``, ``now`` and ``log``;
    the deadlines call ``_your_turn`` when a game starts to wait for a side."""

    @property
    def _ping_dir(self):
        return self.state_dir / "notify"

    def hook_of(self, game, side: str, hooks: dict[str, str] | None = None) -> str:
        """``side``'s webhook: its own, else the host's template (``{game}``, ``{side}``);
        ``hooks``: ``hooks_of(game)``, when the caller read it."""
        own = (hooks_of(game) if hooks is None else hooks).get(side, "")
        if own:
            return own
        tpl = self.cfg.notify_url
        if not tpl:
            return ""
        url = tpl.replace("{game}", game.game_id).replace("{side}", side)
        return url if self.cfg.notify_format == "json" else f"{self.cfg.notify_format}:{url}"

    def _your_turn(self, game, dl: dict, st, sides) -> None:
        from pbem.host.letters import _when
        from pbem.views import turn_of
        hooks = hooks_of(game)                      # read once for every side
        targets = {side: t for side in sides for t in [self.hook_of(game, side, hooks)] if t}
        if not targets:
            return                                  # nobody to ping: the state is not read
        head = game.head()[1]
        st = game.state() if st is None else st
        sc = game.scenario
        turn = turn_of(game, st)
        step = _when(game, st)
        for side, target in targets.items():
            fmt, url = split_target(target)
            dues = [w["due"] for w in dl.get("waits", {}).values() if w["side"] == side]
            doc = {"game": game.game_id, "side": side, "side_name": sc.side_name(side), "step": step,
                   "step_id": turn.step_id, "waiting_for": [w.kind for w in turn.waits_for(side) if w.side == side],
                   "due": min(dues) if dues else None, "head": head, "seq": st.seq}
            key = f"{game.game_id}:{side}:{head}"
            path = self._ping_dir / "pending" / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")
            if path.exists() or (self._ping_dir / "failed" / path.name).exists():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            rec = {"game": game.game_id, "side": side, "url": url, "format": fmt,
                   "body": payload(fmt, doc), "made": iso(self.now()), "tries": 0, "next": iso(self.now())}
            M.write_atomic(path, json.dumps(rec, sort_keys=True).encode(), 0o600)

    def flush(self) -> int:
        sent = super().flush()
        self.ping()
        return sent

    def ping(self) -> int:
        """Post every ping that is due; a failure waits its back-off, the last one is set aside."""
        pending = self._ping_dir / "pending"
        if not pending.is_dir():
            return 0
        now = self.now()
        done = 0
        for path in sorted(pending.glob("*.json")):
            with _taken(path) as mine:
                if mine:
                    done += self._ping_one(path, now)
        return done

    def _ping_one(self, path, now) -> int:
        """One pending ping, held by this process (``_taken``): 1 when the server took it."""
        try:
            rec = json.loads(path.read_text())        # by its name: another worker may have replaced it
            if parse_time(rec["next"]) > now:
                return 0
        except (OSError, ValueError, KeyError, HostError):
            return 0
        why = post(rec["url"], json.dumps(rec["body"]).encode())
        where = f"webhook {shown(rec['url'])} for {rec['game']}/{rec['side']}"
        if not why:
            path.unlink(missing_ok=True)
            self.log(f"pinged {where}")
            return 1
        rec["tries"] += 1
        rec["error"], rec["last"] = why.removeprefix("permanent: "), iso(now)
        give_up = why.startswith("permanent: ") or rec["tries"] > len(BACKOFF)
        if give_up:
            (self._ping_dir / "failed").mkdir(parents=True, exist_ok=True)
            M.write_atomic(self._ping_dir / "failed" / path.name, json.dumps(rec, sort_keys=True).encode(), 0o600)
            path.unlink(missing_ok=True)
            self.flush_problems.append(f"{where} failed {rec['tries']} time(s), set aside: {rec['error']}")
        else:
            rec["next"] = iso(now + BACKOFF[rec["tries"] - 1])
            M.write_atomic(path, json.dumps(rec, sort_keys=True).encode(), 0o600)
            self.flush_problems.append(f"{where} failed ({rec['error']}); next try at {rec['next']}")
        self.log(self.flush_problems[-1])
        return 0

    def ping_failures(self) -> list[dict]:
        """Pings that failed at least once: waiting for their next try, or set aside."""
        out = []
        for state in ("pending", "failed"):
            d = self._ping_dir / state
            if not d.is_dir():
                continue
            for path in sorted(d.glob("*.json")):
                with contextlib.suppress(OSError, ValueError):
                    rec = json.loads(path.read_text())
                    if rec.get("tries"):
                        out.append({"game": rec.get("game", ""), "side": rec.get("side", ""),
                                    "webhook": shown(rec.get("url", "")), "tries": rec["tries"],
                                    "error": rec.get("error", ""), "last_try": rec.get("last", ""),
                                    "next_try": rec.get("next", "") if state == "pending" else "",
                                    "state": "retrying" if state == "pending" else "set aside"})
        return out
