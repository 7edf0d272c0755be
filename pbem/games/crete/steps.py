"""Crete's turn as steps (3.0; core/turn.py): each phase's orders, and the answers to
a fight's decisions (10.3-10.7) as an interrupt read from the core ``GameState.decision``.
The kernel's handle gates every order through them; the rows of ``awaiting`` and the
deadline defaults (``Crete.defaults_help``) are theirs.  Ending a phase is
``Crete._end`` (its checks, 1.0-7.1)."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.ruleset import Ctx
from pbem.core.scenario import Scenario
from pbem.core.forms import Form, core
from pbem.core.turn import Step, phase_steps
from pbem.games.crete.airborne import air_land, drop, plan_name
from pbem.games.crete.answers import answer, decision_item, safe_hexes
from pbem.games.crete.board import enemies, friends, gd, land, map_of, stack_limit, utype
from pbem.games.crete.combat import attack
from pbem.games.crete.movement import move, owing_tracks, place, track_entries
from pbem.games.crete.standing import doctrine
from pbem.games.crete.state import CW, GERMAN, CreteState


def _end(phase: str):
    return lambda ctx, order: ctx.rules._end(ctx, phase)


def _side(st: CreteState, sc: Scenario) -> str:
    return sc.sequence[st.phase].side


# --- the phases ------------------------------------------------------------------------------------

def _plan_rows(st: CreteState, sc: Scenario) -> list[dict]:
    maps = list(gd(sc).get("maps", {}))
    return [{"side": _side(st, sc), "kind": "drop-plan", "rule": "1.0",
             "order": f"secret {plan_name(sc)} " + " ".join(f"{m}=N" for m in maps)
                      + " (at least 7 in all, 1.1), then end"}]


def _plan_default(st: CreteState, sc: Scenario, side: str) -> list[O.Order]:
    out: list[O.Order] = []
    if not st.crete.plan_sealed:
        out.append(O.Secret(name=plan_name(sc), payload=gd(sc).get("default_drops", {}).get("default_plan", "")))
    return out + [O.End()]


def _left(st: CreteState) -> list[str]:
    return [u.id for u in st.units.values() if u.side == CW and u.hex is None and not u.eliminated]


def _setup_default(st: CreteState, sc: Scenario, side: str) -> list[O.Order]:
    setup = gd(sc).get("default_setup", {})
    return [O.GameVerb(word="place", args=[u, setup[u]]) for u in _left(st) if u in setup] + [O.End()]


def _landing_rows(st: CreteState, sc: Scenario) -> list[dict]:
    cd = st.crete
    item = {"side": _side(st, sc), "kind": "air-landing", "rule": "5.0, 6.0",
            "order": "drop UNIT HEX | land UNIT HEX (any number), then end"}
    if st.turn == 1:
        if not cd.plan_open:
            item["order"] = f"unveil {plan_name(sc)} first (1.0); then " + item["order"]
        else:
            item["plan"] = {m: f"{cd.t1.get(m, 0)} of {n}" for m, n in cd.plan.items()}
    return [item]


def _landing_default(st: CreteState, sc: Scenario, side: str) -> list[O.Order]:
    """Turn 1: the plan unveiled, then its drops on the scenario's default hexes; end."""
    g, cd = gd(sc), st.crete
    out: list[O.Order] = []
    if st.turn == 1:
        if not cd.plan_open:
            return [O.Unveil(name=plan_name(sc))]      # the plan must be open before the drops can be chosen
        todo = [u.id for u in sorted(st.units.values(), key=lambda u: u.id)
                if utype(sc, u.id) == g.get("airborne_type", "airborne") and u.id not in cd.dropped and not u.eliminated]
        for m, n in cd.plan.items():
            targets = [h for h in g.get("default_drops", {}).get(m, []) if not enemies(st, h, GERMAN)]
            for i in range(n - cd.t1.get(m, 0)):
                if todo and targets:
                    out.append(O.GameVerb(word="drop", args=[todo.pop(0), targets[i % len(targets)]]))
    return out + [O.End()]


def _movement_rows(st: CreteState, sc: Scenario) -> list[dict]:
    item = {"side": _side(st, sc), "kind": "movement", "rule": "4.0",
            "order": "move UNIT HEX ... [off] (any number), then end"}
    owing = owing_tracks(st)
    if owing:
        item["must_leave_tracks"] = {u: track_entries(st, sc, st.units[u]) for u in owing}
    return [item]


def _movement_default(st: CreteState, sc: Scenario, side: str) -> list[O.Order]:
    """7.1: a unit in a transit track comes out at the first entry hex; end."""
    out: list[O.Order] = [O.Move(unit=u, path=[track_entries(st, sc, st.units[u])[0]])
                          for u in owing_tracks(st) if track_entries(st, sc, st.units[u])]
    return out + [O.End()]


STEPS = phase_steps(
    Step("drop-plan", rule="1.0", waits=_plan_rows, verbs={"end": _end("drop-plan")}, default=_plan_default,
         offered=lambda st, sc, side: ("secret", "end"),          # the plan is sealed (a core verb)
         choices=("secret",)),
    Step("set-up", rule="1.2", verbs={"place": place, "end": _end("set-up")}, default=_setup_default,   # 1.2
         choices=("place",),
         sides=lambda st, sc: [_side(st, sc)],
         waits=lambda st, sc: [{"side": _side(st, sc), "kind": "set-up", "rule": "1.2", "units": _left(st),
                                "order": "place UNIT HEX (every Commonwealth unit), then end"}]),
    Step("air-landing", rule="5.0, 6.0", waits=_landing_rows, default=_landing_default,
         verbs={"drop": drop, "land": air_land, "end": _end("air-landing")},                   # 5.0, 6.0
         choices=("drop", "land")),
    Step("movement", rule="4.0", waits=_movement_rows, default=_movement_default,
         sides=lambda st, sc: [_side(st, sc)],            # the track entries only when the rows are shown
         verbs={"move": move, "end": _end("movement")}),                                       # 4.0, 7.1
    Step("combat", kind="attacks", rule="8.0, 9.1", verbs={"attack": attack, "end": _end("combat")},
         order="attack HEX [plus HEX ...] with UNIT ... all-out|limited [air AIR ...] [lose UNIT ...] "
               "[advance UNIT [HEX] | no-advance] (one at a time), then end"),                 # 8.0, 9.1
)


# --- a fight's decisions (10.3-10.7) -----------------------------------------------------------------

_ANSWERS = {"ca": ("retreat", "counterattack"), "retreat": ("retreat",), "losses": ("lose",),
            "advance": ("advance", "no-advance")}


def _decision_default(st: CreteState, sc: Scenario, side: str) -> list[O.Order]:
    """The first of the options the game lists (answers.decision_item): the first safe
    retreat or counterattack of a Ca, the first retreat hex, the first set of losses; no advance."""
    d = st.decision
    if d.kind == "ca":
        for o in d.options:
            if o[0] != "retreat":
                return [O.GameVerb(word=o[0], args=list(o[1:]))]
            for uid in d.units:
                hexes = safe_hexes(st, sc, st.units[uid])
                if hexes:
                    return [O.Retreat(unit=uid, path=[hexes[0]])]
        return []
    if d.kind == "retreat":
        return [O.Retreat(unit=d.units[0], path=[d.options[0][0]])]
    if d.kind == "losses":
        return [O.GameVerb(word="lose", args=list(d.options[0]))]
    return [O.Advance(unit="-")]


ANSWER = Step("answer", rule="10.3-10.7", pending=lambda st, sc: st.decision is not None,
              side=lambda st, sc: st.decision.side, waits=lambda st, sc: [decision_item(st, sc, st.decision)],
              verbs={v: answer for v in ("retreat", "counterattack", "lose", "advance", "no-advance")},
              offered=lambda st, sc, side: _ANSWERS.get(st.decision.kind, ("advance", "no-advance")),
              default=_decision_default)
INTERRUPTS = (ANSWER,)


def doctrine_order(ctx: Ctx, order: O.Order) -> None:
    doctrine(ctx, order.args)       # a standing order (10.5): any time, by either side


# --- the order forms (HELP lists them in this order; core/forms.py) ---------------------------------

def _columns(sc: Scenario) -> list[tuple[str, str]]:
    return [(m, f"columns {v['first_col']:02d}-{v['last_col']:02d}") for m, v in gd(sc).get("maps", {}).items()]


def _waiting(st: CreteState) -> list[str]:
    cd = st.crete
    return sorted(u.id for u in st.units.values() if u.side == GERMAN and u.hex is None and not u.eliminated
                  and u.id not in cd.dropped and u.id not in cd.landed)


def _drop_choices(st: CreteState, sc: Scenario, side: str) -> list[str]:
    """5.1: where the airborne units still to drop may drop (on turn 1, what the plan leaves)."""
    cd = st.crete
    air = [u for u in _waiting(st) if utype(sc, u) == gd(sc).get("airborne_type", "airborne")]
    if not air:
        return []
    if st.turn == 1 and cd.plan_open:
        left = ", ".join(f"{m} {cd.plan.get(m, 0) - cd.t1.get(m, 0)}" for m in gd(sc).get("maps", {}))
        out = [f"drop zones: any land hex free of Commonwealth units (5.1); the plan leaves: {left}"]
    else:
        out = ["drop zones: any land hex of the maps free of Commonwealth units (5.1)"]
    return out + [f"airborne units to drop: {' '.join(air)}"]


def _land_choices(st: CreteState, sc: Scenario, side: str) -> list[str]:
    """6.0-6.2: the captured airfields the mountain units still to land may land on."""
    if not any(utype(sc, u) == gd(sc).get("mountain_type", "mountain") for u in _waiting(st)):
        return []
    fields = [h for h in gd(sc).get("airfields", []) if h in st.crete.captured and land(sc, h) and map_of(sc, h)
              and not enemies(st, h, GERMAN) and friends(st, h, GERMAN) < 3]
    return [f"airfields open to land on (6.0-6.2): {' '.join(fields) if fields else 'none yet'}"]


def _place_choices(st: CreteState, sc: Scenario, side: str) -> list[str]:
    """1.2, 4.4: the Commonwealth set-up area and the units still to place."""
    left = sorted(_left(st))
    areas = ", ".join(f"{m} ({cols})" for m, cols in _columns(sc))
    return [f"place each unit on any land hex of the maps {areas}, at most {stack_limit(sc)} "
            "Commonwealth units a hex (1.2, 4.4)",
            f"units still to place: {' '.join(left) if left else 'none'}"]


FORMS = (
    *core("move", "end", "secret", "unveil", "press", "entropy"),
    Form("secret", lambda st, sc, side: f"secret {plan_name(sc)} " + " ".join(f"{m}=N" for m in gd(sc).get("maps", {})),
         "the drop plan: airborne units per map on Game-Turn 1", rule="1.0, 1.1", sides=(GERMAN,),
         choices=lambda st, sc, side: [f"the {m} map: {cols}" for m, cols in _columns(sc)]),
    Form("drop", "drop UNIT HEX", "an airborne unit's one airdrop; it may scatter", rule="5.0, 5.9", sides=(GERMAN,),
         choices=_drop_choices),
    Form("land", "land UNIT HEX", "a mountain unit lands on a captured airfield", rule="6.0", sides=(GERMAN,),
         choices=_land_choices),
    Form("place", "place UNIT HEX", "set-up: a unit on a land hex", rule="1.2", sides=(CW,), choices=_place_choices),
    Form("attack", "attack HEX [plus HEX ...] with UNIT ... all-out|limited [air AIR ...] [lose UNIT ...] "
         "[advance UNIT [HEX] | no-advance]", "one attack at a time", rule="8.0, 9.1"),
    Form("retreat", "retreat UNIT HEX | counterattack [HEX] TABLE", "answer a Ca result", rule="10.5",
         also=("counterattack",)),
    Form("lose", "lose UNIT ...", "answer a loss the game asks for", rule="10.3"),
    Form("advance", "advance UNIT HEX | no-advance", "answer an advance after combat, one unit an order",
         rule="10.7", also=("no-advance",)),
    Form("doctrine", "doctrine ca|re-roll [UNIT|HEX] ANSWER", "a standing answer to Ca choices", rule="10.5"),
)
