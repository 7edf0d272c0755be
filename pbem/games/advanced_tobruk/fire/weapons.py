"""What a unit's weapons bring to fire, as the rules read it without firing (8.431, 9.16,
15.7112, 16.41-16.42, 30.02, 14.22, 31.53): a vehicle's machine-guns and their arcs, who may
fire a crew-served weapon, the gunfire lost to carried weapons and the halving at long
range.  Both the fire orders (fire_personnel.py) and the check of who could fire
(eligible.py) read them."""
from __future__ import annotations

from pbem.core.scenario import Scenario
from pbem.games.advanced_tobruk.board import bunkers
from pbem.games.advanced_tobruk import data
from pbem.games.advanced_tobruk.state import TobrukState

MG_RANGE = {"coax": 10, "aa": 10, "bow": 6}        # 16.42
GUNFIRE_OPTICS = 36                                # 14.22
GUNFIRE_SUPPRESS = 8                               # 30.02
MG_ARC = {"coax": "turret", "bow": "hull"}          # 16.41; AA machine-guns fire all round


def vehicle_mgs(sc: Scenario, uid: str) -> list[dict]:
    """16.41-16.42: a vehicle's machine-guns (coax, bow, aa) with their ranges."""
    out = []
    for m in data.utype(sc, uid).get("mgs", []):
        m = dict(m)
        rng = int(m.get("range", 0)) or MG_RANGE.get(m.get("mount", ""), 10)
        if m.get("mount") == "bow" and data.cls(sc, uid) == "apc":
            rng = 10
        m["range"] = rng
        out.append(m)
    return out


def _holder_ok(st: TobrukState, w: str, sc: Scenario | None = None) -> str:
    """The unit fit to fire weapon ``w`` ('' for none): not broken, surrendered or under cover (a
    machine-gun or ATR fires out of a bunker, 31.53, given the scenario ``sc``)."""
    h = st.pieces[w].holder
    if not h or st.units[h].eliminated:
        return ""
    q = st.pieces[h]
    if q.full and sc is not None and bunkers.weapon_fires_out(st, sc, w):
        return "" if q.broken or q.surrendered else h
    return "" if q.broken or q.surrendered or q.full else h


def _carried_penalty(st: TobrukState, sc: Scenario, uid: str) -> tuple[int, bool]:
    """8.431, 9.16: (gunfire lost to carried weapons, operates a crew-served weapon)."""
    lost, operates = 0, False
    for w, q in st.pieces.items():
        if q.holder != uid or st.units[w].eliminated:
            continue
        weight = data.utype(sc, w).get("weight", "L")
        lost += 1 if weight == "L" else 2
        if weight in ("M", "H") and data.cls(sc, uid) == "crew":
            operates = True
    return lost, operates


def _halve(gf: int, rng: int, normal: int) -> int:
    return gf // 2 if rng > normal else gf                                              # 15.7112, 2.82
