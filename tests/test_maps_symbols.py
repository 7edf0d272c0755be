"""Unit symbols (issue 16): every unit type of every shipped scenario gets an
APP-6 style icon made of roles it knows (no empty frame, no unknown word),
and the roles are the right ones for the types the games use."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import tomllib

import pytest

from pbem.core.scenario import ROOT
from pbem.report.symbols import roles, symbol

SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios").glob("*.toml"))


def _types() -> set[str]:
    # read as data: the symbols depend on the type words only, not on the games' rules
    return {u["type"] for name in SCENARIOS
            for u in tomllib.loads((ROOT / "scenarios" / f"{name}.toml").read_text())["units"]}


def test_every_shipped_unit_type_has_a_known_symbol():
    types = _types()
    assert len(types) > 10
    for t in sorted(types):
        main, mods, unknown = roles(t)
        assert main and not unknown, (t, main, mods, unknown)
        svg = "".join(symbol(t, 20, 20, 20, 12))
        el = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{svg}</svg>')
        drawn = [e for e in el.iter() if e.tag.split("}")[1] in ("path", "ellipse", "circle", "text", "polygon")]
        assert drawn, f"{t}: an empty frame"


@pytest.mark.parametrize("utype, main, mods", [
    ("infantry", ["infantry"], []),
    ("armour", ["armour"], []),
    ("motorized", ["motorised"], []),
    ("motorized infantry", ["motorised"], []),
    ("mechanized", ["mechanised"], []),
    ("armored infantry", ["mechanised"], []),
    ("parachute", ["infantry"], ["parachute"]),
    ("airborne", ["infantry"], ["parachute"]),
    ("parachute infantry", ["infantry"], ["parachute"]),
    ("glider infantry", ["infantry"], ["glider"]),
    ("mountain", ["infantry"], ["mountain"]),
    ("airborne anti-tank", ["antitank"], ["parachute"]),
    ("anti-tank", ["antitank"], []),
    ("airborne artillery", ["artillery"], ["parachute"]),
    ("rocket artillery", ["rocket"], []),
    ("armored reconnaissance", ["armour", "recon"], []),
    ("flak", ["antiair"], []),
    ("sappers", ["engineer"], []),
    ("HQ", ["hq"], []),
    ("armoured-car", ["armour", "recon"], []),
    ("mot-infantry", ["motorised"], []),
    ("recce", ["recon"], []),
    ("casemate", ["casemate"], []),
    ("cupola", ["cupola"], []),
])
def test_roles_of_a_type(utype, main, mods):
    assert roles(utype)[:2] == (main, mods)


def test_an_unknown_type_shows_its_initials_not_an_empty_box():
    svg = "".join(symbol("horse marines", 20, 20, 20, 12))
    assert ">HM<" in svg or ">H<" in svg
    assert ">?<" in "".join(symbol("", 20, 20, 20, 12))
