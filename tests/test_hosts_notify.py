"""'Your turn' beyond mail (issue 28): a webhook per player, or the host's template,
posting a small JSON document (no secret) when the game waits for that player;
Discord/Slack payloads; retried with back-off; failures in `host status`.  Against
a real HTTP server on loopback; time through PBEM_CLOCK."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from mail_helpers import AXIS, BRITISH, CLOCK, deliver, make_host, message, secret
from pbem.cli import main
from pbem.engine import Game
from pbem.host import Host, HostError
from pbem.host import notify as N


class Hooks:
    """An HTTP server on 127.0.0.1 that keeps every POST and answers with the next status
    of ``answers`` (then 204)."""

    def __init__(self):
        self.posts: list[tuple[str, dict]] = []
        self.answers: list[int] = []
        self.delay = 0.0                              # seconds each answer takes
        hooks = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hooks.posts.append((self.path, json.loads(body)))
                time.sleep(hooks.delay)
                code = hooks.answers.pop(0) if hooks.answers else 204
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def env(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", CLOCK)
    monkeypatch.delenv("PBEM_HOST", raising=False)


@pytest.fixture
def hooks(store_kind):
    """The webhook server of a host test: each of them runs on both stores (conftest)."""
    with Hooks() as h:
        yield h


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def new(host, *extra):
    r = run("new", host.cfg.games_dir / "g1", "--scenario", "el-alamein", "--id", "g1", "--dice", "3,4,5,1,2,6",
            "--player", f"axis={AXIS}", "--player", f"british={BRITISH}", *extra)
    assert r.exit_code == 0, r.output
    return Game(host.games()["g1"])                   # games/g1, or game g1 in the host's database


def test_a_player_webhook_gets_a_your_turn_document_without_a_secret(tmp_path, hooks, monkeypatch):
    host = make_host(tmp_path / "h", period="72h")
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    g = new(host, "--notify", f"axis={hooks.url}/axis-hook", "--notify", f"british=slack:{hooks.url}/b")
    [(path, doc)] = hooks.posts                       # the game waits for axis first: one ping
    assert path == "/axis-hook"
    head = g.head()[1]
    assert doc == {"game": "g1", "side": "axis", "side_name": "German-Italian",
                   "step": "turn 1, German-Italian movement (seq 1)", "step_id": "t1.p0",
                   "waiting_for": ["movement"], "due": "2026-01-04T00:00:00Z", "head": head, "seq": 1}
    text = json.dumps(doc)
    for s in (secret(g, "axis"), secret(g, "british"), AXIS, BRITISH):
        assert s not in text
    # axis ends its movement by mail: the game waits for axis (combat); then for the British
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nend\n"))
    run("mail", "poll")
    assert [p for p, _ in hooks.posts] == ["/axis-hook", "/axis-hook"]
    deliver(host, message(AXIS, f"Token: {secret(g, 'axis')}\nend\n", mid="m2@example.org"))
    run("mail", "poll")
    path, doc = hooks.posts[-1]
    assert path == "/b" and set(doc) == {"text"} and "British Commonwealth, it is your turn" in doc["text"]
    # nothing twice: another poll posts nothing
    n = len(hooks.posts)
    run("mail", "poll")
    assert len(hooks.posts) == n


def test_the_hosts_template_pings_every_player_in_discords_words(tmp_path, hooks, monkeypatch):
    host = make_host(tmp_path / "h", period="72h")
    cfg = host.cfg.root / "pbem-host.toml"
    cfg.write_text(cfg.read_text().replace('url = ""', f'url = "{hooks.url}/pbem/{{game}}/{{side}}"')
                   .replace('format = "json"', 'format = "discord"'))
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    new(host)
    [(path, doc)] = hooks.posts
    assert path == "/pbem/g1/axis"
    assert doc["allowed_mentions"] == {"parse": []}
    assert doc["content"].startswith("pbem g1: German-Italian, it is your turn (turn 1, German-Italian movement")
    assert "Due by 2026-01-04T00:00:00Z" in doc["content"]


def test_a_failing_webhook_is_retried_with_back_off_and_shown_in_host_status(tmp_path, hooks, monkeypatch):
    host = make_host(tmp_path / "h", period="72h")
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    hooks.answers = [500, 503]
    new(host, "--notify", f"axis={hooks.url}/secret-token-path")
    assert len(hooks.posts) == 1
    out = run("host", "status").output
    assert "Webhooks failing (1):" in out and "axis http://127.0.0.1:" in out and "HTTP 500" in out
    assert "next try at 2026-01-01T00:01:00Z" in out and "secret-token-path" not in out
    r = run("mail", "poll")                       # before the back-off: no try
    assert r.exit_code == 0 and len(hooks.posts) == 1
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:01:00Z")
    r = run("mail", "poll")                       # the second try fails too: said, exit 1
    assert r.exit_code == 1 and "HTTP 503" in r.output and "next try at 2026-01-01T00:06:00Z" in r.output
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:06:00Z")
    r = run("mail", "poll")
    assert r.exit_code == 0 and len(hooks.posts) == 3
    assert "Webhooks failing" not in run("host", "status").output


def test_a_refused_webhook_is_set_aside_at_once(tmp_path, hooks, monkeypatch):
    host = make_host(tmp_path / "h", period="72h")
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    hooks.answers = [404]
    new(host, "--notify", f"axis={hooks.url}/gone")
    out = run("host", "status").output
    assert "HTTP 404" in out and "set aside, no more tries" in out
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-02T00:00:00Z")
    run("mail", "poll")
    assert len(hooks.posts) == 1


def test_a_webhook_must_be_https_or_loopback():
    assert N.check_target("https://discord.com/api/webhooks/1/abc") == "https://discord.com/api/webhooks/1/abc"
    assert N.check_target("discord:https://discord.com/api/webhooks/1/abc").startswith("discord:https://")
    for bad in ("http://hooks.example.org/x", "ftp://x.example/", "https://user:pw@x.example/", "not a url"):
        with pytest.raises(HostError):
            N.check_target(bad)
    assert N.shown("https://discord.com/api/webhooks/1/abc") == "https://discord.com/..."
    r = run("new", "/nonexistent/x", "--scenario", "el-alamein", "--notify", "axis=http://hooks.example.org/")
    assert r.exit_code == 2 and "unencrypted" in r.output


def test_workers_sharing_a_host_folder_post_each_ping_once(tmp_path, hooks, monkeypatch):
    # several workers of `pbem serve --workers N` on one machine share state/notify/: a
    # due ping is taken by one of them (a lock on its file), not posted by each
    host = make_host(tmp_path / "h", period="72h")
    monkeypatch.setenv("PBEM_HOST", str(host.cfg.root))
    hooks.answers = [500]
    new(host, "--notify", f"axis={hooks.url}/a")          # the first try fails: due again in a minute
    assert len(hooks.posts) == 1
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:01:00Z")
    hooks.delay = 0.5
    workers = [Host.open(host.cfg.root) for _ in range(4)]
    start = threading.Barrier(len(workers))

    def work(h):
        start.wait()
        h.ping()
    threads = [threading.Thread(target=work, args=(h,)) for h in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(hooks.posts) == 2
    assert "Webhooks failing" not in run("host", "status").output
