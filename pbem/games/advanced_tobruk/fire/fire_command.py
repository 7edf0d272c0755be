"""APCR and HEAT rounds and armour command control in fire (17.23-17.25, 24): the rounds a
unit has left, the command tank's limits and the AFV Bail Out Chart's number (13.81) with the
command tank's loss (24.05).  fire_ap.py re-exports these names; the Alternate Ammunition
table's modifier is notes.py's (the pre-game roll it changes)."""
from __future__ import annotations

from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.tables import fire_ap_tables as T
from pbem.games.advanced_tobruk.state import TobrukState, tk

COMMAND_LOST_DRM = 1                   # 24.05


def ammo_left(p, kind: str) -> int | None:
    """17.25: the APCR/HEAT rounds a unit has left (None: it was allotted none)."""
    got = [n for k, n in p.ammo.items() if k.upper() == kind.upper()]
    return got[0] if got else None


def is_command(st: TobrukState, sc: Scenario, uid: str) -> bool:
    """24.01: the unit is its side's command tank (armour command control in force)."""
    side = st.units[uid].side
    return side in data.gd(sc).command_control and notes.notes_of(st, side).command == uid


def command_refusal(st: TobrukState, sc: Scenario, uid: str, by: str) -> str:
    """24.03: the command tank may not initiate fire; fired upon, it may only gun-duel back."""
    if by == "duel" or not is_command(st, sc, uid):
        return ""
    return (f"{uid} is the command tank: it may not initiate fire; fired upon, it may only answer with a "
            "gun duel (24.03)")


def command_lost(st: TobrukState, sc: Scenario, side: str) -> str:
    """24.05: the side's command tank if it is K- or M-KILLed ('' otherwise)."""
    if side not in data.gd(sc).command_control:
        return ""
    cmd = notes.notes_of(st, side).command
    p = st.pieces.get(cmd)
    return cmd if p is not None and (p.wreck or p.m_kill) else ""


def bail_out(ctx: Ctx, uid: str, kind: str) -> tuple[int, list[str], str | None]:
    """The AFV Bail Out Chart's number for ``kind`` (M-KILL | F-KILL | M+F, 13.81) with its DRMs,
    and the note the check opens.  24.05 adds 1 to the roll 'making bailing out more likely'; on
    our reconstructed chart (bail out on a roll at or under the number) that is 1 more on the number.
    Armour command control's group is every AFV of the side (24.02: one company in our scenarios)."""
    st = tk(ctx.state)
    number, drms, note = T.BAIL_OUT[kind], [], None
    side = st.units[uid].side
    cmd = command_lost(st, ctx.sc, side)
    if cmd and cmd != uid:
        number += COMMAND_LOST_DRM
        drms.append(f"command tank {cmd} lost +{COMMAND_LOST_DRM} (24.05)")
        note = "command"
    return number, drms, note
