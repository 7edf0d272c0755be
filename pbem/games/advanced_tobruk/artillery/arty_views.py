"""What a side sees of indirect fire: the markers on the map (CFF, FFE, barrage
limits, smoke: public, 18.21, 20.36) and the batteries' public status (located,
neutralized, counter-battery fire); a side's own FFEs left come from its own
side notes and reach only that side."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.artillery import artillery as R
from pbem.games.advanced_tobruk.notes import notes
from pbem.games.advanced_tobruk.state import TobrukState


def marks(st: TobrukState, sc: Scenario, viewer: str) -> dict:
    """{"cff": [...], "ffe": [...], "barrage": [...limit hexes], "smoke": [...]} hex lists (sorted)."""
    cff, ffe, ends = set(), set(), set()
    for b in st.batteries.values():
        if b.cff:
            (ffe if b.ffe else cff).add(b.cff)
        ends.update(b.ends)
    return {"cff": sorted(cff), "ffe": sorted(ffe), "barrage": sorted(ends), "smoke": sorted(st.smoke)}


def report_lines(st: TobrukState, sc: Scenario, viewer: str) -> list[str]:
    """One line per battery: its marker, located/neutralized/counter-battery state; own FFEs left."""
    out: list[str] = []
    for bid, spec in sorted(R.ssr(sc).items()):
        b = R.battery(st, bid)
        side = str(spec.get("side", ""))
        bits = [f"{bid} ({sc.side_name(side)}, {spec.get('battery', '')})"]
        if b.cff:
            kind = b.kind if b.kind in ("barrage", "rolling") else "FFE" if b.ffe else "CFF"
            bits.append(f"{kind} in {sc.board.label(b.cff)}")
        if b.located:
            bits.append("located (18.1151)")
        q = R.neutralized(st, bid)
        if q:
            bits.append(f"neutralized through turn {q} (18.1153)")
        if b.cb:
            bits.append(f"counter-battery fire on {b.cb} since turn {b.cb_from} (18.1152)")
        if b.no_fire:
            bits.append(f"NO FIRE +{b.no_fire} (18.222)")
        if viewer == side:
            allot = notes.notes_of(st, side).ffe.get(bid)
            if allot is not None:
                bits.append(f"{max(0, allot - b.used)} of {allot} FFEs left (your side note, 18.12)")
        out.append(", ".join(bits))
    if st.smoke:
        out.append("Smoke: " + ", ".join(f"{sc.board.label(h)} '{v}'" for h, v in sorted(st.smoke.items()))
                   + " (20.36)")
    return out
