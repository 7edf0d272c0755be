"""`pbem replay` (issue 15): one self-contained HTML page to step through a game.

The page works from a mail attachment (no server, no network), shows the map
after every order, the step's events and explanation and the head hash after
it, and a side's page is built from that side's view only (design.md
"Decisions and secrets"): another side's sealed secrets and Dunkerque's
hidden draw (3.0(4), 10.0(2)) are not in the file at all, not merely hidden.

The browser test drives Debian's Chromium with Playwright (no `playwright
install`: the system browser).  Without Chromium or Playwright it is skipped
with the reason, unless PBEM_REQUIRE_BROWSER is set (CI sets it, see .ci/run):
then it fails.  PBEM_UPDATE_SCREENSHOTS=1 also writes its screenshots to
examples/replay-screenshots/ (for the README).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.core import events as E
from pbem.engine import Game
from pbem.referee.replay_page import replay_html

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCREENSHOTS = EXAMPLES / "replay-screenshots"
CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
CLOCK = "2026-01-01T00:00:00Z"


def run(*args) -> tuple[int, str]:
    r = CliRunner().invoke(main, [str(a) for a in args])
    return r.exit_code, r.output


def start_example(name: str, into: Path, steps: int, extra: dict[int, tuple[str, str]] | None = None) -> Game:
    """The first ``steps`` message files of an example (with its seed); ``extra``
    adds (side, orders) messages before the step of that index."""
    book = tomllib.loads((EXAMPLES / name / "playbook.toml").read_text())
    g = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book["seed"], game_id=book["id"],
                    at=CLOCK)
    for i, step in enumerate(book["steps"][:steps]):
        msgs = [extra[i]] if extra and i in extra else []
        side = next(s for s in g.scenario.side_ids() if Path(step).stem.endswith("-" + s))
        for who, text in msgs + [(side, (EXAMPLES / name / step).read_text())]:
            sub = g.submit(who, text, at=CLOCK)
            assert sub.refused is None, sub.refused
    return g


def sealed_game(tmp_path: Path) -> Game:
    """El Alamein's first moves and attacks with a sealed note from each side."""
    return start_example("el-alamein", tmp_path / "sealed", 2, extra={
        0: ("axis", "secret plan Rommel strikes 0913 at dawn"),
        1: ("british", "secret reserve 7Arm waits behind Alam Halfa")})


def dunkerque_draw(into: Path) -> Game:
    """Dunkerque after its first order, which draws the face-down reinforcements (3.0(4), 10.0(2))."""
    g = start_example("dunkerque", into, 0)
    first = next(ln for ln in (EXAMPLES / "dunkerque" / "01-german.txt").read_text().splitlines()
                 if ln.strip() and not ln.startswith("#"))
    assert g.submit("german", first, at=CLOCK).refused is None
    assert any(en.kind == "HiddenDraw" for en in g.entries())
    return g


def secrets_of(g: Game, side: str) -> list[str]:
    """Every text of ``side``'s (or the referee's) sealed secrets that never were unveiled."""
    opened = {(en.event.side, en.event.name) for en in g.entries() if isinstance(en.event, E.SecretRevealed)}
    out = []
    for en in g.entries():
        ev = en.event
        if isinstance(ev, E.SecretRecorded) and ev.side == side and (ev.side, ev.name) not in opened:
            out += [ev.salt, ev.payload]
    return out


def draw_secrets(g: Game) -> list[str]:
    """Dunkerque's hidden draw: the units in their drawn order, and the slot secrets."""
    draw = next(en.event for en in g.entries() if en.kind == "HiddenDraw")
    return list(draw.units) + secrets_of(g, "referee")


def found(words: list[str], *texts: str) -> set[str]:
    """Which of ``words`` occur in the texts as whole words (unit ids, salts, sealed notes)."""
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, words)) + r")(?![\w-])")
    return {m.group(1) for text in texts for m in pattern.finditer(text)}


def data_of(html: str) -> dict:
    return json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S)[1])


@pytest.fixture(scope="module")
def el_alamein_page(played_example, tmp_path_factory):
    """`pbem replay` of the El Alamein example as the British player: (game, HTML file, what pbem said)."""
    ex = played_example("el-alamein")
    out = tmp_path_factory.mktemp("replay") / "el-alamein-british.html"
    code, msg = run("replay", ex.dir, "--as", "british", "-o", out)
    assert code == 0, msg
    return ex.game(), out, msg


# --- the page, without a browser --------------------------------------------------------------

def test_page_is_one_self_contained_file(el_alamein_page):
    g, out, msg = el_alamein_page
    n_orders = sum(isinstance(en.event, E.OrderGiven) for en in g.entries())
    assert f"{n_orders + 2} steps" in msg and "as British Commonwealth" in msg
    html = out.read_text()
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    # nothing is fetched: no src/href, no stylesheet or import; the only URL is the SVG namespace
    assert not re.search(r"\b(src|href)\s*=|<link|@import|url\((?!#)", html, re.I)   # url(#arrow): in the map
    assert set(re.findall(r"https?://[^\s\"'\\]+", html)) <= {"http://www.w3.org/2000/svg"}
    assert "default-src 'none'" in html                       # and the browser is told so
    assert len(html) < 600_000, len(html)                     # 81 maps, stored as deltas


def test_steps_heads_and_maps_follow_the_log(el_alamein_page):
    g, out, _ = el_alamein_page
    entries = g.entries()
    d = data_of(out.read_text())
    steps = d["steps"]
    assert steps[0]["from"] == 0 and steps[-1]["to"] == entries[-1].seq
    for a, b in zip(steps, steps[1:]):
        assert b["from"] == a["to"] + 1
        assert isinstance(entries[b["from"]].event, (E.OrderGiven, E.SeedRevealed))
    assert all(s["head"] == entries[s["to"]].hash for s in steps)
    assert d["head"] == g.head()[1] and steps[-1]["label"].startswith("game over")
    # the first map is stored line by line, each later one as a delta against the one before
    assert all(isinstance(i, int) for i in steps[0]["svg"]) and max(steps[0]["svg"]) < len(d["lines"])
    assert all(len(s["svg"]) < 300 for s in steps[1:])


def test_a_side_page_holds_no_secret_of_another_side(tmp_path):
    g = sealed_game(tmp_path)
    axis, british = secrets_of(g, "axis"), secrets_of(g, "british")
    assert len(axis) == 2 and len(british) == 2
    pages = {side: replay_html(g, side) for side in ("axis", "british", "referee")}
    assert not any(s in pages["british"] for s in axis)
    assert not any(s in pages["axis"] for s in british)
    assert all(s in pages["referee"] for s in axis + british)
    assert "secret plan (sealed)" in pages["british"] and "secret reserve (sealed)" in pages["axis"]


def test_dunkerque_side_pages_do_not_hold_the_draw(tmp_path):
    """Dunkerque 3.0(4), 10.0(2): until a unit enters, which one is due when is the referee's."""
    g = dunkerque_draw(tmp_path / "d")
    hidden = draw_secrets(g)
    for side in g.scenario.side_ids():
        assert not found(hidden, replay_html(g, side)), side
    assert found(hidden, replay_html(g, "referee")) == set(hidden)


# --- in a real browser ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "Playwright for Python is not installed (bash tests/run.sh installs the test extras)"
    if reason is None and not os.access(CHROMIUM, os.X_OK):
        reason = f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does it)"
    if reason is not None:
        if os.environ.get("PBEM_REQUIRE_BROWSER"):
            pytest.fail(f"PBEM_REQUIRE_BROWSER is set but {reason}")
        pytest.skip(reason)
    with sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except Exception as e:                            # noqa: BLE001 - say why, then skip or fail
            if os.environ.get("PBEM_REQUIRE_BROWSER"):
                pytest.fail(f"Chromium at {CHROMIUM} does not start: {e}")
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {str(e).splitlines()[0]}")
        yield b
        b.close()


class Page:
    """A replay page open in the browser, with what it complained of and what it fetched."""

    def __init__(self, browser, path: Path):
        self.page = browser.new_page(viewport={"width": 1200, "height": 760})
        self.errors: list[str] = []
        self.fetched: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("request", lambda r: self.fetched.append(r.url))
        self.page.goto(path.as_uri())

    def text(self, sel: str) -> str:
        return self.page.inner_text(sel)

    def step(self) -> int:
        return int(self.page.get_attribute("body", "data-step"))

    def map_title(self) -> str:
        return self.page.text_content("#map svg title")

    def shot(self, tmp: Path, name: str) -> Path:
        path = tmp / name
        self.page.screenshot(path=str(path))
        if os.environ.get("PBEM_UPDATE_SCREENSHOTS"):
            SCREENSHOTS.mkdir(exist_ok=True)
            shutil.copyfile(path, SCREENSHOTS / name)
        return path


def test_replay_page_in_chromium(browser, el_alamein_page, tmp_path):
    g, out, _ = el_alamein_page
    p = Page(browser, out)
    steps = json.loads(p.page.text_content("#replay-data"))["steps"]
    combat = next(i for i, s in enumerate(steps) if any(k == "UnitRetreated" for _, k, _ in s["events"]))
    n = len(steps)
    assert p.step() == 0 and p.text("#position") == f"step 1 of {n}"
    assert p.page.is_disabled("#prev") and p.page.is_disabled("#first")
    shots = [p.shot(tmp_path, "el-alamein-british-1-start.png")]
    title, head = p.map_title(), p.text("#head")
    assert head == steps[0]["head"] and "The game begins." in p.text("#what")

    p.page.keyboard.press("ArrowLeft")                     # nothing before the first step
    assert p.step() == 0
    p.page.keyboard.press("ArrowRight")                    # keyboard: one step on
    assert p.step() == 1 and p.text("#position") == f"step 2 of {n}"
    assert p.map_title() != title and p.text("#head") == steps[1]["head"] != head
    assert steps[1]["what"] in p.text("#what") and "UnitMoved" in p.text("#events")
    assert p.page.locator("#map .move").count() == 1       # the arrow of this step's move
    p.page.click("#next")                                  # buttons
    assert p.step() == 2
    p.page.click("#prev")
    assert p.step() == 1
    p.page.locator("#slider").fill(str(combat))            # the slider
    assert p.step() == combat and p.text("#head") == steps[combat]["head"]
    explain = p.text("#explain")
    assert "HMAC-SHA256(seed" in explain and "mod 6 + 1" in explain and "matches the log" in explain
    assert "retreat" in p.page.inner_html("#map")
    shots.append(p.shot(tmp_path, "el-alamein-british-2-combat.png"))
    p.page.keyboard.press("End")
    assert p.step() == n - 1 and p.text("#head") == g.head()[1]
    assert "game over" in p.text("#label") and p.page.is_disabled("#next")
    shots.append(p.shot(tmp_path, "el-alamein-british-3-end.png"))
    p.page.keyboard.press("Home")
    assert p.step() == 0 and p.map_title() == title
    p.page.locator("#steps li").nth(combat).click()        # the list of steps
    assert p.step() == combat
    assert p.errors == [] and p.fetched == [out.as_uri()]
    assert all(0 < s.stat().st_size < 400_000 for s in shots)

    # side pages: what the other side sealed, and Dunkerque's draw, are nowhere in the page
    g = sealed_game(tmp_path)
    dun = dunkerque_draw(tmp_path / "d")
    for game, side, secret in ((g, "british", secrets_of(g, "axis")), (dun, "allied", draw_secrets(dun))):
        out = tmp_path / f"{game.game_id}-{side}.html"
        assert run("replay", game.dir, "--as", side, "-o", out)[0] == 0
        p = Page(browser, out)
        seen = [out.read_text()]
        for key in ("End", "Home", "ArrowRight", "ArrowRight"):
            p.page.keyboard.press(key)
            seen.append(p.page.content())
        seen.append(p.page.evaluate("document.body.innerText"))
        assert not found(secret, *seen), (game.game_id, side)
        assert p.errors == []
    assert json.loads(p.page.text_content("#replay-data"))["viewer"] == "allied"


def test_replay_map_zooms_and_pans_in_chromium(browser, el_alamein_page, tmp_path):
    """Issue 27: the map zooms and pans (buttons, wheel, pinch, drag, keyboard), the view kept
    from step to step; the map's viewBox says what is shown."""
    _g, out, _ = el_alamein_page
    p = Page(browser, out)
    pg = p.page

    def box() -> list[float]:
        return [float(v) for v in pg.get_attribute("#map svg", "viewBox").split()]

    W, H = float(pg.get_attribute("#map svg", "width")), float(pg.get_attribute("#map svg", "height"))
    assert box() == [0, 0, W, H] and p.text("#zoomlevel") == "100%"
    assert pg.is_disabled("#zoom-out") and pg.is_disabled("#pan-left") and not pg.is_disabled("#zoom-in")
    pg.click("#zoom-in")                                   # buttons: about the centre
    x, y, w, h = box()
    assert abs(w - W / 1.5) < 0.1 and abs(x + w / 2 - W / 2) < 0.1 and p.text("#zoomlevel") == "150%"
    pg.click("#pan-right")
    assert box()[0] > x and box()[1] == y
    pg.click("#pan-down")
    assert box()[1] > y
    pg.keyboard.press("0")                                 # keyboard: the whole map again
    assert box() == [0, 0, W, H]
    pg.keyboard.press("+")
    pg.keyboard.press("+")
    assert abs(box()[2] - W / 2.25) < 0.1 and p.step() == 0
    pg.keyboard.press("Shift+ArrowLeft")                   # Shift+arrows pan, plain arrows still step
    x1 = box()[0]
    assert x1 < (W - W / 2.25) / 2 and p.step() == 0
    pg.keyboard.press("ArrowRight")
    assert p.step() == 1 and box()[0] == x1                # the next step's map keeps the view
    pg.keyboard.press("-")
    pg.keyboard.press("-")
    assert box() == [0, 0, W, H]

    # the wheel zooms about the pointer: the map point under it stays under it
    r = pg.eval_on_selector("#map svg", "e => { const b = e.getBoundingClientRect(); "
                                        "return [b.left, b.top, b.width, b.height]; }")
    mx, my = r[0] + r[2] * 0.3, r[1] + r[3] * 0.25
    pg.mouse.move(mx, my)
    pg.mouse.wheel(0, -400)
    pg.wait_for_function("Number(document.body.dataset.zoom) > 1")
    x, y, w, h = box()
    assert w < W
    assert abs(x + 0.3 * w - 0.3 * W) < 1 and abs(y + 0.25 * h - 0.25 * H) < 1
    # drag: the map follows the mouse
    pg.mouse.move(mx, my)
    pg.mouse.down()
    pg.mouse.move(mx + 100, my + 40, steps=4)
    pg.mouse.up()
    x2, y2, _, _ = box()
    k = w / r[2]
    assert abs((x - x2) - 100 * k) < 1 and abs((y - y2) - 40 * k) < 1
    # pinch: two touch pointers moving apart zoom in about their middle
    z = float(pg.get_attribute("body", "data-zoom"))
    pg.evaluate("""([x, y]) => {
        const m = document.getElementById("map");
        const ev = (t, id, px) => m.dispatchEvent(new PointerEvent(t, {pointerId: id, pointerType: "touch",
            clientX: px, clientY: y, bubbles: true, cancelable: true, isPrimary: id === 1}));
        ev("pointerdown", 1, x - 20); ev("pointerdown", 2, x + 20);
        ev("pointermove", 1, x - 40); ev("pointermove", 2, x + 40);
        ev("pointerup", 1, x - 40); ev("pointerup", 2, x + 40);
    }""", [mx, my])
    assert float(pg.get_attribute("body", "data-zoom")) > z * 1.5
    p.shot(tmp_path, "el-alamein-british-4-zoomed.png")
    assert p.errors == [] and p.fetched == [out.as_uri()]
