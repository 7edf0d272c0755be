"""The Belgian secrets: two dummy cupolas (9.5) and, in 12.2, the minefield hexes (11.0).

They are sealed before play with the generic ``secret`` order, one hex per
secret (names ``dummy-1``, ``dummy-2``, ``mine-01`` .. ``mine-15``; the text
is the hex).  The German side sees only their commitments.  The rules read
the payloads from the host's copy of the log (``Ctx.secret_records``), never
from the state, and open a secret with ``SecretRevealed`` exactly when 9.5 (a
dummy destroyed by demolition) or 11.2 (a minefield attack, or a single-hex
move into a minefield) says the German player learns it.  The core reducer
checks every opening against its commitment.
"""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.games.eben_emael import events as E
from pbem.games.eben_emael.board import BELGIAN, forts, gd

DUMMIES = ("dummy-1", "dummy-2")                         # 9.5


def sealed(ctx: Ctx, prefix: str) -> dict[str, str]:
    """hex -> secret name, for the Belgian secrets whose name starts with prefix."""
    out = {}
    for key, rec in sorted(ctx.secret_records.items()):
        side, name = key.split(":", 1)
        if side == BELGIAN and name.startswith(prefix):
            out[rec.payload.strip()] = name
    return out


def dummies(ctx: Ctx) -> dict[str, str]:
    """hex -> name of the dummy cupolas (9.5)."""
    return sealed(ctx, "dummy-")


def minefields(ctx: Ctx) -> dict[str, str]:
    """hex -> name of the minefields (11.0)."""
    return sealed(ctx, "mine-")


def open_secret(ctx: Ctx, name: str) -> None:
    """The German player learns a sealed hex (9.5, 11.2): open it, once."""
    key = f"{BELGIAN}:{name}"
    rec = ctx.secret_records.get(key)
    if rec is not None and key in ctx.state.secrets:
        ctx.emit(E.SecretRevealed(side=BELGIAN, name=name, salt=rec.salt, payload=rec.payload))


def check_sealed(ctx: Ctx, order: O.Order) -> None:
    """9.5, 11.0: what the Belgian may seal, and when."""
    if not isinstance(order, O.Secret):
        return
    name = order.name
    if not (name.startswith("dummy-") or name.startswith("mine-")):
        return                                         # a free note: any side, any time
    st, sc = ctx.state, ctx.sc
    ph = sc.sequence[st.phase]
    if ctx.side != BELGIAN or ph.name != "setup-belgian":
        raise OrderError("dummy cupolas and minefields are chosen by the Belgian player before play", "9.5, 11.0")
    h = order.payload.strip()
    if not sc.board.grid.contains(h):
        raise OrderError(f"the text of {name} must be one hex of the map, e.g. 'secret {name} 0611'")
    if name.startswith("dummy-"):
        if name not in DUMMIES:
            raise OrderError("there are two dummy cupolas: name them dummy-1 and dummy-2", "9.5")
        fid = forts(sc).get(h)
        if fid is None or sc.unit_defs[fid].type != "cupola":
            raise OrderError(f"{h} is not a cupola", "9.5")
        if h in gd(sc).get("never_dummy", []):
            raise OrderError(f"the cupola in {h} may not be a dummy", "9.5")
        if h in dummies(ctx):
            raise OrderError(f"{h} is already a dummy", "9.5")
    else:
        count = int(gd(sc).get("minefields", 0))
        names = {f"mine-{i:02d}" for i in range(1, count + 1)}
        if name not in names:
            if not count:
                raise OrderError("this scenario has no minefields", "12.2")
            raise OrderError(f"minefields are named mine-01 .. mine-{count:02d} ({count} hexes)", "12.2")
        if h in forts(sc):
            raise OrderError(f"{h} is a fortification hex and may not be a minefield", "11.6")
        if h in minefields(ctx):
            raise OrderError(f"{h} is already a minefield", "11.0")
