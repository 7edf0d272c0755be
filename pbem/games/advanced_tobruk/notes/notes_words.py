"""Side notes in words (notes.py seals and reads them): what the other side sees of them
(``redact``), a note's text in words, the report's side-notes section and the HELP lines."""
from __future__ import annotations

from pbem.core import events as CE
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.note_events import NoteRolled
from pbem.games.advanced_tobruk.notes.notes import RESERVED, SYNTAX, is_open, notes_of, reg_kind
from pbem.games.advanced_tobruk.state import TobrukState


# --- what each side sees -----------------------------------------------------------------------

def redact(ev, viewer: str):
    """The other side's secret rolls keep their existence, not their dice; its ``note`` and
    ``roll`` order lines show only the verb."""
    if isinstance(ev, NoteRolled) and ev.side != viewer:
        return NoteRolled(side=ev.side, what=ev.what.split()[0], rolls=[])
    if isinstance(ev, CE.OrderGiven) and ev.side != viewer:
        w = ev.text.split()
        if w and w[0].lower() in ("note", "roll"):
            return CE.OrderGiven(side=ev.side, text=f"{w[0].lower()} (sealed)", by=ev.by)
    return ev


WHAT = {"register": "registration", "fo": "forward observer", "op": "observer in an AFV", "crew": "crew",
        "apcr": "APCR rounds", "heat": "HEAT rounds", "command": "command tank", "elite": "elite commander",
        "hide": "hidden set-up", "dummy": "dummy counter", "mine": "minefield", "ffe": "FFE allotment",
        "ammo": "alternate ammunition"}


def meaning(text: str, sc: Scenario) -> str:
    """A note's text in words."""
    w = text.split()
    kind, a = w[0], w[1:]
    lab = sc.board.label
    match kind:
        case "register":
            if reg_kind(sc, a[0]) == "weapon":
                return f"{a[0]} registered on {lab(a[1])}: a Burst on Target there from its first shot (18.54)"
            return f"{a[0]} registered on {lab(a[1])}: +20 to its accuracy there (18.551)"
        case "fo":
            return f"{a[1]} observes for {a[0]} (18.82)"
        case "op":
            return f"{a[0]} observes from inside {a[1]} (18.91)"
        case "crew":
            return f"{a[1]} crews {a[0]} (9.12)"
        case "apcr" | "heat":
            return f"{a[0]} carries {plural(a[1], kind.upper() + ' round')} (17.25)"
        case "command":
            return f"{a[0]} is the command tank (24.01)"
        case "elite":
            return f"{a[0]} carries an elite tank commander: -1 HPN (24.07)"
        case "hide":
            arc = f", covered arc {a[2]}" if len(a) > 2 else ""
            return f"{a[0].replace('+', ', ')} set up hidden in {lab(a[1])}{arc} (32.22)"
        case "dummy":
            return f"{a[0]} is a dummy counter (32.24)"
        case "mine":
            if a[1] == "dummy":
                return f"a dummy minefield in {lab(a[0])} (31.19)"
            if len(a) > 2:
                return f"a hidden minefield of density {a[1]} in {lab(a[0])} (31.14, 31.15)"
            return f"a minefield of density {a[1]} in {lab(a[0])} (31.14)"
        case "ffe":
            return f"{a[0]} may place {plural(a[1], 'FFE')}: roll {a[3]} halved (18.12)"
        case "ammo":
            return (f"{plural(a[1], a[0] + ' round')} for the side: {a[3]} for half the capable units + "
                    f"{int(a[1]) - int(a[3])} from the Alternate Ammunition table, roll {a[5]} (17.24)")
    return text


def describe(ev, sc: Scenario) -> str | None:
    name = sc.side_name
    match ev:
        case CE.SecretRecorded() if ev.name.startswith(RESERVED) or ev.name == "command":
            if ev.payload:
                return f"{name(ev.side)} side note {ev.name} sealed: {meaning(ev.payload, sc)}."
            return f"{name(ev.side)} wrote a side note ({ev.name}, sealed; fingerprint {ev.commitment[:12]}...)."
        case CE.SecretRevealed() if ev.name.startswith(RESERVED) or ev.name == "command":
            return (f"{name(ev.side)} side note {ev.name} opened: {meaning(ev.payload, sc)}; it matches the "
                    "fingerprint sealed before play.")
        case NoteRolled():
            if ev.rolls:
                return f"{name(ev.side)} secret roll for {rolled_subject(ev.what)}: {ev.rolls[0]} (sealed in the next note)."
            return f"{name(ev.side)} made a secret roll for {rolled_subject(ev.what)}; its result is sealed in a note."
    return None


def report_notes(st: TobrukState, sc: Scenario, viewer: str) -> list[tuple[str, list[str]]]:
    """The report's side-notes section: the viewer's own notes (sealed or opened) and the other
    side's opened ones; the referee reads every note."""
    out = []
    for side in sc.side_ids():
        names = notes_of(st, side).names
        if not names:
            continue
        own = viewer in (side, "referee")
        lines = []
        for nm, text in names.items():
            opened = is_open(st, side, nm)
            if own:
                lines.append(f"{nm:<9} {'opened' if opened else 'SEALED'}  {meaning(text, sc)}")
            elif opened:
                lines.append(f"{nm:<9} opened  {meaning(text, sc)}")
        if not own:
            sealed = sum(1 for nm in names if not is_open(st, side, nm))
            if sealed:
                lines.append(f"{sealed} note(s) still sealed (only their fingerprints are in the log)")
        title = (f"YOUR SIDE NOTES ({sc.side_name(side)}; the other side sees only their fingerprints "
                 "until the rules open them)") if viewer == side else f"{sc.side_name(side).upper()} SIDE NOTES"
        if lines:
            out.append((title, lines))
    return out


# --- HELP and set-up reminders (notes.py, notes_setup.py) -------------------------------------

NOTE_HELP = {"register": "a registration: an on-board weapon's in your set-up, before the opponent sets up (18.54); "
                     "a battery's or mortar's in the registration step after all set-up (18.51, 19.6)",
        "fo": "the forward observer who calls that battery (18.82)",
        "op": "the FO rides in that AFV as an observation post (18.91)",
        "crew": "the crew that serves that weapon (9.12)",
        "apcr": "APCR rounds given to that unit, out of your rolled total (17.25)",
        "heat": "HEAT rounds given to that unit, out of your rolled total (17.25)",
        "command": "your command tank (24.01)", "elite": "an AFV with an elite tank commander (24.07)",
        "hide": "units set up hidden together in HEX; SPINE: a gun's or vehicle's covered arc (32.22)",
        "dummy": "that counter is a dummy (32.24)",
        "mine": "a minefield (31.14), hidden off the enemy's map (31.15) or a dummy (31.19)"}


def plural(count: str, noun: str) -> str:
    return f"{count} {noun}" + ("" if str(count) == "1" else "s")


def rolled_subject(what: str) -> str:
    """A secret roll's subject: "ffe RHA" -> RHA's FFE allotment (18.12); "ammo APCR" -> APCR rounds (17.23)."""
    w = what.split()
    if w[:1] == ["ffe"]:
        return (f"{w[1]}'s" if len(w) > 1 else "a battery's") + " FFE allotment (18.12)"
    if w[:1] == ["ammo"]:
        return (f"{w[1]} rounds" if len(w) > 1 else "alternate ammunition") + " (17.23)"
    return what


def dummies_left(spec: dict, mine: list) -> str:
    n = int(spec.get("dummies", 0)) - sum(m.dummy for m in mine)
    return f"{n} dumm{'y' if n == 1 else 'ies'}"


def note_help_lines(syntax: dict[str, str]) -> list[str]:
    """HELP's side-note lines (notes.SYNTAX): when they are written, then each note with what it records."""
    return ["side notes: written in your set-up (registrations of batteries and mortars: in the registration step); "
            "sealed: only you read one until the rules open it, and every note is opened at the end"] + [
        f"{s}    {NOTE_HELP[k]}" for k, s in syntax.items()] + [
        "roll    first in your set-up: your side's secret pre-game rolls, FFEs per battery (18.12) and "
        "APCR/HEAT rounds (17.23), each sealed as a note"]


def help_lines() -> list[str]:
    return note_help_lines(SYNTAX)


