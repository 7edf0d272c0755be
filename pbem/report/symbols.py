"""Unit symbols in the style of NATO APP-6 (the land unit icons inside a
counter's frame), made from the words of a unit's type.

A type such as "airborne anti-tank" or "armored reconnaissance" is read
word by word: each word names a role (the main icon) or a modifier drawn
with it (parachute and glider under the frame, mountain peak, wheels...).
Roles: infantry (X), armour (oval), mechanised infantry (X and oval),
motorised infantry (X and a centre line), reconnaissance, recce, motorcycle
and armoured cars (one diagonal, with the oval when armoured), artillery (a
dot), rocket artillery (dot and arrow), anti-tank (an upward chevron),
anti-aircraft / flak (a dome), engineers / sappers / pioneers (the bridge
sign), headquarters (HQ), machine guns (an upward arrow), fortifications
(casemate: a crenellated block; cupola: a dome on a base).  Static infantry,
squads and crews count as infantry, leaders as HQ, tank models such as
"pz3g" or "a13" as armour, anti-tank rifles and guns ("boys", "2pdr") as
anti-tank, light machine guns ("bren") as machine guns; a nationality prefix
("ger-squad") is skipped.
A word this module does not know is shown as the type's initials, never an
empty frame.
"""
from __future__ import annotations

import re

__all__ = ["symbol", "roles", "KNOWN_WORDS"]

INK = "#1a1a1a"

# word -> role or modifier
_WORDS: dict[str, str] = {
    "infantry": "infantry", "rifle": "infantry", "rifles": "infantry", "grenadier": "infantry",
    "jager": "infantry", "jaeger": "infantry", "guards": "infantry", "marine": "infantry", "militia": "infantry",
    "armour": "armour", "armor": "armour", "armoured": "armour", "armored": "armour", "tank": "armour",
    "tanks": "armour", "panzer": "armour",
    "mechanized": "mechanised", "mechanised": "mechanised", "panzergrenadier": "mechanised",
    "motorized": "motorised", "motorised": "motorised", "motor": "motorised",
    "reconnaissance": "recon", "recon": "recon", "cavalry": "recon", "reconnaisance": "recon", "recce": "recon",
    "car": "recon", "motorcycle": "recon", "mot": "motorised", "static": "infantry",
    "squad": "infantry", "section": "infantry", "crew": "infantry", "leader": "hq", "officer": "hq",
    "boys": "antitank", "pdr": "antitank", "bren": "mg", "lmg": "mg", "hmg": "mg",
    "artillery": "artillery", "field": "artillery", "howitzer": "artillery", "gun": "artillery",
    "rocket": "rocket", "nebelwerfer": "rocket",
    "anti-tank": "antitank", "antitank": "antitank", "at": "antitank", "tank-destroyer": "antitank",
    "flak": "antiair", "anti-aircraft": "antiair", "antiaircraft": "antiair", "aa": "antiair",
    "engineer": "engineer", "engineers": "engineer", "sappers": "engineer", "sapper": "engineer",
    "pioneer": "engineer", "pioneers": "engineer",
    "hq": "hq", "headquarters": "hq", "command": "hq",
    "mg": "mg", "machine-gun": "mg", "machinegun": "mg",
    "mortar": "artillery", "fo": "artillery", "observer": "artillery", "matilda": "armour",
    "casemate": "casemate", "bunker": "casemate", "fort": "casemate",
    "cupola": "cupola", "turret": "cupola",
    # modifiers
    "parachute": "parachute", "airborne": "parachute", "para": "parachute", "fallschirm": "parachute",
    "glider": "glider", "airlanding": "glider", "air-landing": "glider",
    "mountain": "mountain", "gebirgs": "mountain", "alpine": "mountain",
}
KNOWN_WORDS = frozenset(_WORDS)
# tank models (Pz IIc, A13) are armour; nationality prefixes (aus-, ger-) say nothing of the type
_MODEL = re.compile(r"(pz|pzkpfw|a|m)\d+[a-z]?")
_NATION = frozenset({"aus", "ger", "brit", "br", "ita", "it", "us", "nz", "pol", "fr", "sov", "ind", "sa"})
_MODIFIERS = {"parachute", "glider", "mountain"}


def roles(utype: str) -> tuple[list[str], list[str], list[str]]:
    """(roles, modifiers, unknown words) of a unit type."""
    t = (utype or "").lower().replace("anti tank", "anti-tank").replace("anti aircraft", "anti-aircraft")
    t = t.replace("machine gun", "machine-gun")
    main: list[str] = []
    mods: list[str] = []
    unknown: list[str] = []
    words = []
    for w in re.findall(r"[a-z0-9][a-z0-9-]*", t):
        # "anti-tank" is one word; "armoured-car" and "mot-infantry" are two
        words += [w] if (w in _WORDS or w.replace("-", "") in _WORDS) else w.split("-")
    for w in filter(None, words):
        if w in _NATION or re.fullmatch(r"\d+(mm|cm|in)", w):     # a nation or a calibre says no role
            continue
        r = _WORDS.get(w) or _WORDS.get(w.replace("-", "")) or _WORDS.get(re.sub(r"\d+", "", w))
        if r is None and _MODEL.fullmatch(w):
            r = "armour"
        if r is None:
            unknown.append(w)
        elif r in _MODIFIERS:
            if r not in mods:
                mods.append(r)
        elif r not in main:
            main.append(r)
    # armour with infantry is mechanised infantry ("armored infantry")
    if "armour" in main and "infantry" in main:
        main = [r for r in main if r not in ("armour", "infantry")] + ["mechanised"]
    if "motorised" in main or "mechanised" in main:
        main = [r for r in main if r != "infantry"]
    if "rocket" in main or "antitank" in main:
        main = [r for r in main if r != "artillery"]
    # a bare modifier ("airborne", "mountain") is infantry of that kind
    if not main and mods and not unknown:
        main = ["infantry"]
    return main, mods, unknown


def symbol(utype: str, cx: float, cy: float, w: float, h: float, f=lambda v: f"{v:.2f}".rstrip("0").rstrip(".")) -> list[str]:
    """SVG elements of the frame and icon for ``utype``, centred at (cx, cy)."""
    x0, y0, x1, y1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
    main, mods, unknown = roles(utype)
    out = [f'<g class="symbol" data-roles="{" ".join(main + mods) or "unknown"}">',
           f'<rect x="{f(x0)}" y="{f(y0)}" width="{f(w)}" height="{f(h)}" fill="#ffffff" fill-opacity="0.35" '
           f'stroke="{INK}" stroke-width="1"/>']

    def line(*pts: tuple[float, float], width: float = 0.9) -> str:
        d = " L".join(f"{f(x)},{f(y)}" for x, y in pts)
        return f'<path d="M{d}" fill="none" stroke="{INK}" stroke-width="{f(width)}"/>'

    cross = line((x0, y0), (x1, y1)) + line((x1, y0), (x0, y1))
    oval = (f'<ellipse cx="{f(cx)}" cy="{f(cy)}" rx="{f(w * 0.33)}" ry="{f(h * 0.27)}" fill="none" '
            f'stroke="{INK}" stroke-width="1"/>')
    for r in main:
        if r == "infantry":
            out.append(cross)
        elif r == "armour":
            out.append(oval)
        elif r == "mechanised":
            out += [cross, oval]
        elif r == "motorised":
            out += [cross, line((cx, y0), (cx, y1))]
        elif r == "recon":
            out.append(line((x0, y1), (x1, y0)))
        elif r in ("artillery", "rocket"):
            out.append(f'<circle cx="{f(cx)}" cy="{f(cy)}" r="{f(h * 0.17)}" fill="{INK}"/>')
            if r == "rocket":
                out.append(line((cx, cy - h * 0.17), (cx, y0 + 1.2)) +
                           line((cx - w * 0.08, y0 + h * 0.3), (cx, y0 + 1.2), (cx + w * 0.08, y0 + h * 0.3)))
        elif r == "antitank":
            out.append(line((x0, y1), (cx, y0), (x1, y1), width=1))
        elif r == "antiair":
            out.append(f'<path d="M{f(x0 + w * 0.1)},{f(y1)} A{f(w * 0.4)},{f(h * 0.6)} 0 0 1 {f(x1 - w * 0.1)},{f(y1)}" '
                       f'fill="none" stroke="{INK}" stroke-width="1"/>')
        elif r == "engineer":
            yb, yt = cy + h * 0.18, cy - h * 0.18
            out.append(line((cx - w * 0.3, yb), (cx - w * 0.3, yt), (cx + w * 0.3, yt), (cx + w * 0.3, yb)) +
                       line((cx, yt), (cx, yb)))
        elif r == "hq":
            out.append(f'<text x="{f(cx)}" y="{f(cy + h * 0.22)}" font-size="{f(h * 0.62)}" font-weight="bold" '
                       f'text-anchor="middle" fill="{INK}">HQ</text>')
        elif r == "mg":
            out.append(line((cx, y1 - 1), (cx, y0 + 1.5)) +
                       line((cx - w * 0.1, y0 + h * 0.35), (cx, y0 + 1.5), (cx + w * 0.1, y0 + h * 0.35)))
        elif r == "casemate":
            bw, bh = w * 0.5, h * 0.36
            bx, by = cx - bw / 2, cy - bh / 2 + h * 0.08
            out.append(f'<path d="M{f(bx)},{f(by + bh)} L{f(bx)},{f(by)} l{f(bw / 5)},0 l0,{f(-h * 0.14)} '
                       f'l{f(bw / 5)},0 l0,{f(h * 0.14)} l{f(bw / 5)},0 l0,{f(-h * 0.14)} l{f(bw / 5)},0 '
                       f'l0,{f(h * 0.14)} l{f(bw / 5)},0 L{f(bx + bw)},{f(by + bh)} z" fill="{INK}"/>')
        elif r == "cupola":
            out.append(f'<path d="M{f(cx - w * 0.25)},{f(cy + h * 0.2)} A{f(w * 0.25)},{f(h * 0.42)} 0 0 1 '
                       f'{f(cx + w * 0.25)},{f(cy + h * 0.2)} z" fill="{INK}"/>' +
                       line((cx - w * 0.34, cy + h * 0.22), (cx + w * 0.34, cy + h * 0.22), width=1.2))
    for m in mods:
        if m == "parachute":
            out.append(f'<path d="M{f(cx - w * 0.22)},{f(y1)} A{f(w * 0.11)},{f(h * 0.3)} 0 0 1 {f(cx)},{f(y1)} '
                       f'A{f(w * 0.11)},{f(h * 0.3)} 0 0 1 {f(cx + w * 0.22)},{f(y1)}" fill="none" '
                       f'stroke="{INK}" stroke-width="1"/>')
        elif m == "glider":
            out.append(f'<path d="M{f(cx - w * 0.3)},{f(y1 - h * 0.08)} Q{f(cx)},{f(y1 - h * 0.38)} '
                       f'{f(cx + w * 0.3)},{f(y1 - h * 0.08)} Q{f(cx)},{f(y1 - h * 0.2)} {f(cx - w * 0.3)},'
                       f'{f(y1 - h * 0.08)} z" fill="{INK}"/>')
        elif m == "mountain":
            out.append(f'<path d="M{f(cx - w * 0.14)},{f(y1)} L{f(cx)},{f(y1 - h * 0.36)} '
                       f'L{f(cx + w * 0.14)},{f(y1)} z" fill="{INK}"/>')
    if unknown or not (main or mods):
        initials = "".join(word[0] for word in unknown).upper()[:3] or "?"
        out.append(f'<text x="{f(cx)}" y="{f(cy + h * 0.22)}" font-size="{f(h * 0.6)}" font-weight="bold" '
                   f'text-anchor="middle" fill="{INK}">{initials}</text>')
    out.append("</g>")
    return out
