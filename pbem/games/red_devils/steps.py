"""Red Devils' turn as steps (3.0; core/turn.py): the phases' orders and the answers the
game waits for.  The kernel's handle gates every order through them; the rows of
``awaiting`` and the deadline defaults (``RedDevils.defaults_help``) are theirs.

An answer (opportunity fire 5.0, the bridge 11.0, recovery 8.5, retreat or disrupt 7.6-7.8,
advance 7.8) is an interrupt read from the core ``GameState.decision``; the air landing
(9.0, 9.7) interrupts the British movement while ``RedDevilsState.landing`` is set.  A paused
move or landing resumes from ``RedDevilsState.pending`` (answers.py)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.forms import Form, core
from pbem.core.turn import Step, phase_steps
from pbem.games.red_devils import airborne, terms, terrain
from pbem.games.red_devils.airborne import POLISH_SECRET
from pbem.games.red_devils.answers import answer
from pbem.games.red_devils.combat import attack
from pbem.games.red_devils.movement import mode_order, move_order
from pbem.games.red_devils.state import RedDevilsState


def _next(ctx: Ctx, order: O.Order) -> None:
    terms.next_phase(ctx)


def _args(run):
    return lambda ctx, order: run(ctx, order.args)


def _setup_end(ctx: Ctx, order: O.Order) -> None:
    st, sc = ctx.state, ctx.sc
    if terrain.gd(sc).get("polish_units") and f"british:{POLISH_SECRET}" not in st.secrets:
        raise OrderError(f"record the Polish drop zones first: secret {POLISH_SECRET} HEX HEX", "9.7")
    terms.next_phase(ctx)


def _setup_default(st: RedDevilsState, sc: Scenario, side: str) -> list[O.Order]:
    """9.7: the two lowest-numbered hexes with room for the four Poles, unless sealed; then end."""
    out: list[O.Order] = []
    if f"british:{POLISH_SECRET}" not in st.secrets:
        good = [h for h in sc.board.grid.all_hexes()
                if len(airborne.landing_hexes(sc, h, ignore_units=True)) >= 4][:2]
        out.append(O.Secret(name=POLISH_SECRET, payload=" ".join(good)))
    return out + [O.End()]


# --- the air landing (9.0-9.9), the Polish zones unveiled first (9.7) -----------------------------

def _reveal(st: RedDevilsState) -> bool:
    return st.landing.polish and not st.polish_dz


def _landing_rows(st: RedDevilsState, sc: Scenario) -> list[dict]:
    if _reveal(st):
        return [{"side": "british", "kind": "reveal Polish drop zones", "rule": "9.7",
                 "order": f"unveil {POLISH_SECRET}"}]
    left = [u for u in st.landing.units if u not in st.landing.placed]
    item = {"side": "british", "kind": "air landing", "units": left, "rule": "9.0",
            "order": "land UNIT HEX (each unit, within three hexes of its drop zone)"}
    stuck = [u for u in left if not airborne.legal_hexes(st, sc, u)]
    if stuck:      # our ruling: lost in the drop, it may neither wait (9.8) nor share a hex (9.2)
        item["rule"] = "9.0, 9.2, 9.8"
        item["order"] += (f"; no legal hex is left for {', '.join(stuck)}: land UNIT {airborne.LOST} "
                          "- the unit is eliminated, lost in the drop (it may not be delayed, 9.8, "
                          "nor share a hex, 9.2)")
    return [item]


def _landing_default(st: RedDevilsState, sc: Scenario, side: str) -> list[O.Order]:
    if _reveal(st):
        return [O.Unveil(name=POLISH_SECRET)]
    left = [u for u in st.landing.units if u not in st.landing.placed]
    return list(airborne.default_landings(st, sc, left))


LANDING = Step("air landing", rule="9.0, 9.8", waits=_landing_rows, default=_landing_default,
               side=lambda st, sc: "british",
               sides=lambda st, sc: ("british",),      # the gate: the rows (each unit's legal hexes) only when named
               pending=lambda st, sc: (st.landing is not None and sc.sequence[st.phase].name == "movement"
                                       and sc.sequence[st.phase].side == "british"),
               verbs={"land": _args(airborne.land)}, choices=("land",),
               offered=lambda st, sc, side: ("unveil",) if _reveal(st) else ("land",))   # unveil: a core verb


# --- the answers (st.decision) ----------------------------------------------------------------------

def _decided(*kinds: str):
    return lambda st, sc: st.decision is not None and st.decision.kind in kinds


def _who(st, sc) -> str:
    return st.decision.side


def _fire_rows(st: RedDevilsState, sc: Scenario) -> list[dict]:
    d, p = st.decision, st.pending
    return [{"side": d.side, "kind": "opportunity-fire", "units": d.units, "rule": "5.0",
             "options": [f"{o[0]} (range {terrain.rng(sc, o[0])})" for o in d.options],
             "order": f"fire UNIT ... (some of: {' '.join(o[0] for o in d.options)}) | pass"
                      + (f"  [target in {p.hex}]" if p else "")}]


def _retreat_rows(st: RedDevilsState, sc: Scenario) -> list[dict]:
    d = st.decision
    a = st.attacks[d.combat]
    return [{"side": d.side, "kind": "retreat", "units": d.units, "combat": a.target, "rule": d.rule,
             "distance": 2, "options": [" ".join(o) for o in d.options],
             "order": "retreat UNIT HEX HEX" + (" | disrupt UNIT" if d.distance == 0 else "")}]


def _retreat_default(st: RedDevilsState, sc: Scenario, side: str) -> list[O.Order]:
    d = st.decision
    if d.distance == 0:
        return [O.GameVerb(word="disrupt", args=[d.units[0]])]
    return [O.Retreat(unit=d.units[0], path=list(d.options[0]))]


def _ad_rows(st: RedDevilsState, sc: Scenario) -> list[dict]:
    d = st.decision
    return [{"side": d.side, "kind": "attacker retreat (Ad)", "units": d.units, "combat": st.attacks[d.combat].target,
             "rule": "7.6", "options": [" ".join(o) for o in d.options],
             "order": "retreat UNIT HEX HEX (for each unit) | disrupt"}]


def _ad_default(st: RedDevilsState, sc: Scenario, side: str) -> list[O.Order]:
    d = st.decision
    if st.attacks[d.combat].stage == "attacker":
        return [O.GameVerb(word="disrupt")]
    return [O.Retreat(unit=d.options[0][0], path=list(d.options[0][1:]))]


def _advance_rows(st: RedDevilsState, sc: Scenario) -> list[dict]:
    d = st.decision
    return [{"side": d.side, "kind": d.kind, "units": d.units, "combat": st.attacks[d.combat].target, "rule": d.rule,
             "options": [" ".join(o) for o in d.options], "order": "advance UNIT [HEX ...] | no-advance"}]


INTERRUPTS = (
    Step("opportunity-fire", rule="5.0", pending=_decided("opportunity-fire"), side=_who, waits=_fire_rows,
         verbs={"fire": answer, "pass": answer}, default=lambda st, sc, side: [O.GameVerb(word="pass")]),
    Step("bridge", rule="11.0", pending=_decided("bridge"), side=_who,
         waits=lambda st, sc: [{"side": st.decision.side, "kind": "bridge demolition", "units": st.decision.units,
                                "rule": "11.0", "order": "demolish (roll: 1-5 destroys) | spare"}],
         verbs={"demolish": answer, "spare": answer}, default=lambda st, sc, side: [O.GameVerb(word="spare")]),
    Step("retreat", rule="7.7", pending=_decided("retreat"), side=_who, waits=_retreat_rows,
         verbs={"retreat": answer, "disrupt": answer}, default=_retreat_default,
         offered=lambda st, sc, side: ("retreat", "disrupt") if st.decision.distance == 0 else ("retreat",)),
    Step("ad", rule="7.6", pending=_decided("ad"), side=_who, waits=_ad_rows,
         verbs={"retreat": answer, "disrupt": answer}, default=_ad_default),
    Step("advance", rule="7.8", pending=_decided("advance", "defender-advance"), side=_who, waits=_advance_rows,
         verbs={"advance": answer, "no-advance": answer}, default=lambda st, sc, side: [O.Advance(unit="-")]),
    Step("recover", rule="8.5", pending=_decided("recover"), side=_who,
         waits=lambda st, sc: [{"side": st.decision.side, "kind": "recover", "units": st.decision.units,
                                "rule": "8.5", "order": f"recover UNIT ... (at most {st.decision.distance})"}],
         verbs={"recover": answer},
         default=lambda st, sc, side: [O.GameVerb(word="recover", args=sorted(st.decision.units)[:st.decision.distance])]),
    LANDING,
)

STEPS = phase_steps(
    Step("setup", kind="set-up", rule="1.2, 9.7",
         order=f"place UNIT HEX (units with two drop zones), secret {POLISH_SECRET} HEX HEX, then end",
         verbs={"place": _args(airborne.place), "end": _setup_end}, default=_setup_default,      # 1.2
         choices=("place", "secret")),
    Step("movement", rule="4.0",
         order="move UNIT HEX ... [off] (any number), mode UNIT mech|foot, doctrine ..., then end",
         verbs={"move": move_order, "mode": _args(mode_order), "end": _next}),                 # 4.0, 4.8
    Step("combat", rule="6.0, 7.0",
         order="attack HEX with UNIT ... [advance UNIT [HEX ...] | no-advance] (resolved at once), then end",
         verbs={"attack": attack, "end": _next}),                                              # 6.0, 7.0
)


# --- the order forms (HELP lists them in this order; core/forms.py) ---------------------------------

def _place_choices(st: RedDevilsState, sc: Scenario, side: str) -> list[str]:
    """1.2: each turn-1 unit printed with two drop zones and not yet placed, and its two zones."""
    out = []
    for d in sc.units:
        dzs = terrain.info(sc, d.id).get("drop_zones", [])
        if d.side == "british" and d.entry_turn == 1 and len(dzs) >= 2 and d.id not in st.dz:
            out.append(f"place {d.id} HEX: {' or '.join(dzs)}")
    return out


def _land_choices(st: RedDevilsState, sc: Scenario, side: str) -> list[str]:
    """9.0: each unit still to land and its legal hexes (none left: lost in the drop, 9.8)."""
    left = [u for u in st.landing.units if u not in st.landing.placed]
    return [f"land {u}: {' '.join(airborne.legal_hexes(st, sc, u)) or airborne.LOST}" for u in left]


BRITISH = ("british",)
FORMS = (
    Form("move", "move UNIT HEX ... [off]", "move hex by hex; the enemy may fire as you go", rule="4.0, 5.0"),
    Form("mode", "mode UNIT mech|foot", "a motorized unit's mode", rule="4.8"),
    Form("doctrine", "doctrine ...", "standing orders for opportunity fire", rule="5.0"),
    Form("fire", "fire UNIT ... | pass", "answer an opportunity to fire", rule="5.0", also=("pass",)),
    Form("attack", "attack HEX with UNIT ... [advance UNIT [HEX ...] | no-advance]", "resolved at once",
         rule="6.0, 7.0"),
    Form("retreat", "retreat UNIT HEX HEX | disrupt [UNIT]", "answer a Dd or Ad result", rule="7.6",
         also=("disrupt",)),
    Form("recover", "recover UNIT ...", "units to recover with command points", rule="8.5"),
    Form("place", "place UNIT HEX", "set-up: the drop zone of a unit printed with two", rule="1.2", sides=BRITISH,
         choices=_place_choices),
    Form("secret", f"secret {POLISH_SECRET} HEX HEX", "set-up: seal the two Polish drop zones", rule="9.7",
         sides=BRITISH, choices=lambda st, sc, side: [
             f"secret {POLISH_SECRET} HEX HEX: two hexes, each with room around it for the four Polish units (9.7)"]),
    Form("land", "land UNIT HEX", "air landing: within three hexes of its drop zone", rule="9.0", sides=BRITISH,
         choices=_land_choices),
    Form("demolish", "demolish | spare", "the bridge, when the game asks", rule="11.0", also=("spare",),
         sides=("german",)),
    *core("advance", "end", "secret", "unveil", "press"),
)
