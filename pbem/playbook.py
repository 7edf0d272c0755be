"""Play a scripted game: a folder of order files, applied in order.

The folder holds ``playbook.toml``::

    scenario = "SCENARIO-ID"            # see `pbem scenarios`
    seed = "64 hex digits"          # fixed so the example plays the same way every time
    dice_scheme = 1                 # the default: the seed revealed at the end (2: per-turn chains)
    players = { axis = "a@example.org", british = "b@example.org" }
    steps = ["01-axis.txt", "02-british.txt", ...]   # each file: orders of the side named after the dash

After step NN every side (and the referee) gets its report and map in
``INTO/reports/NN-SIDE.txt|svg``; at the end the host reveals the seed, the
final reports go out as e-mails too (``99-final-SIDE.eml``) and the log is
verified.  With ``maps=False`` only the text reports are written (no SVG
maps and no e-mails, whose attachment is the map): the log and the text are
the same, it is only quicker (tests that do not look at maps).
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from pbem.report import render
from pbem.engine import Game


class PlaybookError(Exception):
    pass


def _side_of(name: str, sides: list[str]) -> str:
    stem = Path(name).stem
    for s in sides:
        if stem.endswith("-" + s):
            return s
    raise PlaybookError(f"{name}: the file name must end with -SIDE.txt, SIDE one of {', '.join(sides)}")


def write_reports(game: Game, outdir: Path, tag: str, eml: bool = False, maps: bool = True) -> list[Path]:
    """Text report and SVG map (and with ``eml`` the whole e-mail) for every
    side and the referee, named TAG-SIDE.*; returns the files.  ``maps=False``:
    the text reports only (no map is rendered, so no SVG and no e-mail)."""
    outdir.mkdir(parents=True, exist_ok=True)
    entries = game.entries()
    st = game.state()
    head = entries[-1].hash
    written = []
    for side in game.scenario.side_ids() + ["referee"]:
        since = game.last_report(side)
        txt = outdir / f"{tag}-{side}.txt"
        txt.write_text(render.report_text(game, side, st, entries, since, head))
        written.append(txt)
        if maps:
            svg = outdir / f"{tag}-{side}.svg"
            svg.write_text(render.report_svg(game, side, st, entries, since, head))
            written.append(svg)
            if eml:
                mail = outdir / f"{tag}-{side}.eml"
                mail.write_bytes(bytes(render.report_eml(game, side, st, entries, since, head)))
                written.append(mail)
        game.mark_reported(side, st.seq)
    return written


def play(folder: Path, into: Path, echo=print, reveal: bool = True, maps: bool = True) -> str:
    book_path = folder / "playbook.toml"
    try:
        book = tomllib.loads(book_path.read_text())
    except FileNotFoundError:
        raise PlaybookError(f"{book_path} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise PlaybookError(f"{book_path}: {e}") from None
    if (into / "log.jsonl").exists():
        raise PlaybookError(f"{into} already holds a game; give a new directory (or delete it)")
    # The examples keep dice scheme 1 (the golden logs are theirs, byte for byte): a playbook
    # names scheme 2 (dice_scheme = 2) to play under it.
    game = Game.create(into, book["scenario"], book.get("players", {}), seed_hex=book.get("seed"),
                       dice=book.get("dice"), game_id=book.get("id"), dice_scheme=int(book.get("dice_scheme", 1)))
    reports = into / "reports"
    write_reports(game, reports, "00-start", maps=maps)
    sides = game.scenario.side_ids()
    for n, step in enumerate(book["steps"], start=1):
        side = _side_of(step, sides)
        text = (folder / step).read_text()
        sub = game.submit(side, text)
        if sub.refused is not None:
            raise PlaybookError(f"{folder / step}: {sub.refused}")
        write_reports(game, reports, f"{n:02d}", maps=maps)
        echo(f"{step:<22} {len(sub.applied):>3} orders applied, seq {sub.seq}")
    st = game.state()
    if reveal and game.created.dice_mode == "seeded":
        game.reveal()
    write_reports(game, reports, "99-final", eml=True, maps=maps)
    rep = game.verify()
    if not rep.ok:
        raise PlaybookError("verify failed: " + "; ".join(rep.problems))
    result = f"{game.scenario.side_name(st.result.winner)} wins: {st.result.reason} (rule {st.result.rule})" \
        if st.result else "the game is not finished"
    where = "reports and maps" if maps else "text reports"
    return (f"{game.scenario.title}\n{result}\n"
            f"log {into / 'log.jsonl'}: {rep.events} events, verified; head {rep.head}\n"
            f"{where} in {reports}/")
