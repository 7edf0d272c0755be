"""Formation Series combat (Mirages '40 '41, 7.4) on a board: the Combat
Sequence Example of the rulebook played through the combat orders with
scripted dice and chits, and the decisions around it.

The game is built on a small test scenario; the orders go through the combat
module's handlers with the Formation Series reducer (the engine's routing is
the Ruleset's)."""
from __future__ import annotations

import copy

import pytest

from pbem.core import orders as O
from pbem.core.dice import ScriptedDice
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, Ruleset
from pbem.core.scenario import loads
from pbem.core.state import UnitState
from pbem.games.formation import bonus, combat, combat_events as CE, combat_words, crt, reducer
from pbem.games.formation import events as E
from pbem.games.formation.state import Activation, Formation, FormationState

T, A = "0404", "0405"            # the defending (Blue = Axis) and attacking (Red = Allied) hexes


def scenario_text(units: list[tuple], *, extra: str = "") -> str:
    """A Mirages-rules scenario on an 8 x 8 clear map. ``units``: (id, side, hex, sp, ma, row)."""
    lines, data = [], []
    support = {"BHQ": 4, "RHQ": 6}                  # an HQ's strength is its formation's support (3.3 g)
    for uid, side, h, sp, ma, row in units:
        where = f', hex = "{h}"' if h else ""
        kind = row["category"] if row is not None else "hq"
        sp = support.get(uid, sp)
        lines.append(f'  {{ id = "{uid}", side = "{side}", nationality = "x", type = "{kind}", strength = {sp}, '
                     f'ma = {ma}{where} }},')
        if row is not None:
            data.append(f"[game_data.units.{uid}]\n" + "\n".join(
                f"{k} = {v!r}".replace("'", '"').replace("True", "true").replace("False", "false")
                for k, v in row.items()))
    rows = "\n".join(f'"{r}" = {crt.DEFAULT_ROWS[str(r)]!r}'.replace("'", '"') for r in range(1, 21))
    return f"""id = "test-formation-combat"
title = "combat test"
game = "mirages"
family = "formation"
turns = 2
die = 10
sides = [{{ id = "axis", name = "Axis" }}, {{ id = "allied", name = "Commonwealth" }}]
sequence = [{{ side = "axis", name = "admin" }}, {{ side = "axis", name = "ops" }},
            {{ side = "axis", name = "end-of-turn" }}]
turn_track = [{{ turn = 1, label = "1" }}, {{ turn = 2, label = "2" }}]
units = [
{chr(10).join(lines)}
]
[map]
first_col = 1
last_col = 8
first_row = 1
last_row = 8
legend = {{ "." = "clear" }}
rows = {["........"] * 8!r}
[terrain.clear]
move_cost = 1
[crt]
columns = ["A", "B", "C", "D", "E", "F", "G", "H"]
max_roll = 20
reconstructed = true
[crt.rows]
{rows}
[victory]
hexes = [{{ hex = "0808", name = "Objective", in_command = 1 }}]
ranges = {{ gt1 = [0, 9], gt2 = [0, 9] }}
[game_data]
schwerpunkt_drm = 2
friendly_edges = {{ axis = "west", allied = "east" }}
scorer = "allied"
max_initiatives_in_row = 2
max_transfers_in_row = 2
first_initiative = "allied"
turn1_initiative_drm = 0
initiative_ties = [{{ from_turn = 1, to_turn = 2, side = "allied" }}]
crt_odds = {{ clear = "1:2" }}
initiative_track = [2, 3, 4]
action_costs = {{ move = 1, refit = 1, improve = 1, hasty = 1, regular = 2, prepared = 3, seize = 1 }}
supply_sources = {{ axis = ["0101"], allied = ["0808"] }}
[game_data.stacking]
allied = {{ total = 2, leg = 1 }}
axis = {{ inf = 1, other = 2 }}
[game_data.ap_table]
black = {{ "1" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "2" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "3" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "4" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "5" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] }}
red = {{ "1" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "2" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "3" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "4" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "5" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] }}
[game_data.road]
leg = "1/2"
mot = "1/2"
hq = "1/2"
[game_data.trail]
leg = "1/2"
mot = "1/2"
hq = "1/2"
[game_data.tec.clear]
leg = "1"
mot = "1"
hq = "1"
[game_data.formations.E]
side = "axis"
hq = "BHQ"
command_range = 6
support = 4
reaction = 5
recovery = 1
max_level = 5
start_level = 3
[game_data.formations.R]
side = "allied"
hq = "RHQ"
command_range = 4
support = 6
reaction = 5
recovery = 1
max_level = 5
start_level = 3
{chr(10).join(data)}
{extra}
""".replace("'", '"')


def unit(formation, er, cat, *, tank=0, at=0, mot=True, er_d=0):
    row = {"formation": formation, "er": er, "er_disrupted": er_d or max(1, er - 2), "category": cat,
           "movement": "mot" if mot else "leg"}
    if tank:
        row["tank"] = tank
    if at:
        row["at"] = at
    return row


def example_units(blue_disrupted: tuple[str, ...] = ()) -> list[tuple]:
    return [
        ("11", "axis", T, 5, 6, unit("E", 6, "tank", tank=3, er_d=4)),
        ("7", "axis", T, 3, 8, unit("E", 7, "armoured-car", at=1, er_d=5)),
        ("S", "axis", "0506", 3, 4, unit("E", 5, "infantry", mot=False)),     # Blue's supporting unit
        ("BHQ", "axis", "0403", 0, 6, None),
        ("16", "allied", A, 6, 6, unit("R", 5, "tank", tank=3, er_d=3)),
        ("13", "allied", A, 5, 6, unit("R", 5, "mot-infantry", er_d=3)),
        ("D", "allied", "0304", 3, 4, unit("R", 5, "infantry", mot=False)),   # adjacent, disrupted
        ("RHQ", "allied", "0407", 0, 6, None),
    ]


class Stub(Ruleset):
    """The Formation Series reducer behind a bare Ruleset (the engine's part)."""
    game = "mirages"
    state_type = FormationState

    def reduce(self, st, ev, sc):
        reducer.reduce(self.game, st, ev, sc)


class Board:
    def __init__(self, units, dice, *, ap=3, schwerpunkt="E", disrupted=("D",)):
        self.sc = loads(scenario_text(units).encode())
        st = FormationState(game_id="g", scenario_id=self.sc.id, game="mirages")
        for u in self.sc.units:
            st.units[u.id] = UnitState(id=u.id, side=u.side, hex=u.hex, strength=u.strength, ma=u.ma,
                                       disrupted=u.id in disrupted)
        for f, row in self.sc.game_data["formations"].items():
            st.fm.formations[f] = Formation(side=row["side"], level=3, support=row["support"])
        st.fm.active = Activation(formation="R", side="allied", ap=ap)
        st.fm.step = "actions"
        st.fm.schwerpunkt = schwerpunkt
        self.st = st
        self.dice = ScriptedDice(list(dice))
        self.rules = Stub()
        self.events: list = []

    def order(self, side: str, order) -> list:
        ctx = Ctx(self.rules, self.st, self.sc, side, self.dice)
        if self.st.fm.combat is None and isinstance(order, O.GameVerb) and order.word == "bonus":
            bonus.answer(ctx, list(order.args))              # a winning defender's bonus (7.4.3)
        elif self.st.fm.combat is None:
            combat.handle_attack(ctx, order)
        else:
            combat.handle_combat(ctx, order)
        self.events += ctx.events
        return ctx.events

    def of(self, t):
        return [e for e in self.events if isinstance(e, t)]


def verb(word, *args):
    return O.GameVerb(word=word, args=list(args))


def test_combat_sequence_example_number_for_number():
    # Dice: RbC Red 7, Blue 3; chits: Red chit 1, Blue chit 2; combat die 2; ECs: Blue 11 passes (3),
    # 7 fails (9); Red 16 fails (8), 13 passes (2); Blue's bonus refit of 7 passes (4).
    b = Board(example_units(), [7, 3, 1, 2, 2, 3, 9, 8, 2, 4])
    # A. Red declares a hasty attack (1 AP); the defender is asked about retreat before combat
    b.order("allied", O.Attack(target=T, attackers=["16", "13"]))
    assert b.st.fm.active.ap == 2
    assert combat.combat_awaiting(b.st, b.sc)[0]["kind"] == "retreat before combat"
    # 5.3.4: the defender does not see the attacking units yet
    decl = b.of(CE.CombatDeclared)[0]
    assert combat_words.redact(decl, "axis").attackers == [] and combat_words.redact(decl, "allied").attackers
    # B. Blue tries: 7 against 3 + 4 (armoured car 7, half its rating rounded up): fails
    b.order("axis", verb("rbc", "0403"))
    r = b.of(CE.RbCRolled)[0]
    assert (r.att_roll, r.def_roll, r.att_drm, r.def_drm, r.def_unit, r.success) == (7, 3, 0, 4, "7", False)
    assert combat.combat_awaiting(b.st, b.sc)[0]["kind"] == "attack escalation"
    # C. Red escalates to a Regular Attack (+1 AP)
    b.order("allied", verb("escalate", "regular"))
    assert b.st.fm.interrupted[-1].ap == 1              # (Blue won the battle below: its bonus actions now)
    # D-G
    res = b.of(CE.CombatResolved)[0]
    assert (res.attack_strength, res.defence_strength, res.odds) == (22, 16, "1:1")
    assert res.att_detail == ["16 6x2=12", "13 5x2=10"] and res.def_detail == ["11 5x2=10", "7 3x2=6"]
    assert res.shifts == ["both sides have combined arms: no shift (7.4.1.3)"]
    assert res.drm == 2 and res.rolls == [2] and res.modified == 4 and res.result == "2*/1*"
    assert any("-1" in d and "defender's combat support" in d for d in res.drms)
    assert any("+3" in d and "HQ attack support" in d for d in res.drms)
    assert any("-2" in d and "Schwerpunkt" in d for d in res.drms)
    assert any("+2" in d and "failed retreat" in d for d in res.drms)
    assert (res.att_as, res.def_as) == ("16", "11")
    # H. Blue: 11 loses the first SP (5 -> 4); ECs: 7 fails and is disrupted; nothing else
    lost = [(e.unit, e.strength) for e in b.of(CE.StepLost)]
    assert lost == [("11", 4), ("16", 5)]
    ecs = [(e.unit, e.passed) for e in b.of(E.ECRolled)]
    assert ecs[:4] == [("11", True), ("7", False), ("16", False), ("13", True)]
    assert b.st.units["11"].hex == T and b.st.units["7"].hex == T and b.st.units["7"].disrupted
    # Red: 16 loses the first SP (6 -> 5), fails its EC; the whole stack retreats one hex (the 2nd hit)
    ret = b.of(CE.CombatRetreated)
    assert [(x.units, x.forced, x.owed, x.ezoc, x.blocked) for x in ret] == [(["16", "13"], True, 1, 0, 0)]
    assert b.st.units["16"].hex == b.st.units["13"].hex == ret[0].path[0] != A
    assert b.st.units["16"].strength == 5 and b.st.units["13"].strength == 5
    # Battle Victory: Blue had fewer hits; its formation has the Schwerpunkt: two bonus APs
    end = b.of(CE.CombatEnded)[0]
    assert (end.winner, end.bonus, sorted(end.units)) == ("axis", 2, ["11", "7"])
    assert bonus.awaiting(b.st)[0]["kind"] == "battle victory bonus" and b.st.fm.combat is None
    assert b.st.fm.active.defender and b.st.fm.interrupted[-1].formation == "R"
    b.order("axis", verb("bonus", "refit", "7"))
    assert not b.st.units["7"].disrupted
    b.order("axis", verb("bonus", "improve"))
    assert T in b.st.fm.improved
    assert [(e.action, e.ap, e.bonus) for e in b.of(E.APSpent)][-2:] == [("refit", 1, 1), ("improved defense", 1, 1)]
    assert b.st.fm.active.bonus == 0 and b.dice.position == 10


def test_rbc_success_moves_the_stack_and_ends_the_combat():
    b = Board(example_units(), [2, 5])
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "prepared"]))
    b.order("axis", verb("rbc", "0403"))
    assert b.of(CE.RbCRolled)[0].success
    assert b.st.units["11"].hex == "0403" and b.st.units["7"].hex == "0403"
    assert b.st.fm.combat is None and b.of(CE.CombatEnded)[0].retreated
    assert b.st.fm.active.ap == 2                  # 7.4.1.1: the hasty attack's AP is lost, no escalation


def test_rbc_may_not_end_next_to_the_attacker_and_doctrine_never():
    b = Board(example_units(), [1, 1, 5])
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "hasty"]))
    with pytest.raises(OrderError, match="next to the attacking stack"):
        b.order("axis", verb("rbc", "0505"))
    # a standing order answers instead: no attempt; the inline "hasty" answers the escalation
    b2 = Board(example_units(), [1, 2, 5])
    b2.st.fm.doctrines["axis"] = {"rbc": "never", "combat": "hold bonus pass"}
    b2.order("allied", O.Attack(target=T, attackers=["16", "13", "hasty"]))
    assert [(d.attempt, d.by) for d in b2.of(CE.RbCDecided)] == [(False, "doctrine")]
    assert [e.by for e in b2.of(CE.CombatEscalated)] == ["order"]
    res = b2.of(CE.CombatResolved)[0]
    # hasty 22 against 16, 1:1; DRM -3 (support -1, Schwerpunkt -2); 5 -> 2: "2/0"
    assert (res.odds, res.drm, res.modified, res.result) == ("1:1", -3, 2, "2/0")
    # two black hits on the attacker: the first on 16, the second a voluntary retreat (withdraw)
    assert [(e.unit, e.strength) for e in b2.of(CE.StepLost)] == [("16", 5)]
    assert [(r.forced, r.owed) for r in b2.of(CE.CombatRetreated)] == [(False, 1)]
    # the defender wins; its doctrine passes the bonus (7.4.3); the attacker's activation goes on
    assert [(e.winner, e.bonus) for e in b2.of(CE.CombatEnded)] == [("axis", 2)]
    assert [(e.side, e.lost, e.reason) for e in b2.of(CE.BonusActionsEnded)] == [("axis", 2, "standing order")]
    assert b2.st.fm.combat is None and b2.st.fm.active.formation == "R" and b2.dice.position == 3


def test_disrupted_defender_may_not_retreat_before_combat():
    b = Board(example_units(), [1, 1, 5, 1, 1, 1, 1], disrupted=("D", "7"))
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "hasty"]))
    d = b.of(CE.RbCDecided)[0]
    assert not d.attempt and d.by == "rules" and "disrupted" in d.reason
    assert b.of(CE.CombatResolved)


def test_attack_refusals():
    b = Board(example_units(), [], ap=1)
    with pytest.raises(OrderError, match="needs 2"):
        b.order("allied", O.Attack(target=T, attackers=["16", "regular"]))
    with pytest.raises(OrderError, match="disrupted"):
        b.order("allied", O.Attack(target=T, attackers=["D"]))
    with pytest.raises(OrderError, match="not next to"):
        b.order("allied", O.Attack(target=T, attackers=["RHQ"]))
    assert b.events == []


def test_hasty_has_no_support_and_no_hq_drm():
    # Blue declines; a hasty attack: no attacker support nor HQ support; the rest as before
    b = Board(example_units(), [1, 2, 5] + [1] * 6)
    b.st.fm.doctrines["axis"] = {"rbc": "never"}
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "hasty"]))
    res = b.of(CE.CombatResolved)[0]
    assert not any("HQ attack support" in d for d in res.drms)
    assert res.drm == -3                             # support -1, Schwerpunkt -2


def test_deadline_defaults_and_words():
    b = Board(example_units(), [])
    b.order("allied", O.Attack(target=T, attackers=["16", "13"]))
    assert combat.combat_defaults(b.st, b.sc, "axis") == ["rbc no"]
    assert combat.combat_defaults(b.st, b.sc, "allied") == []
    text = combat_words.describe(b.of(CE.CombatDeclared)[0], b.sc)
    assert "hasty attack" in text and "7.4.1 A" in text


def test_doctrine_parsing():
    assert combat.parse_doctrine("rbc", "always") == {"rbc": "always"}
    assert combat.parse_doctrine("combat", "withdraw armour at bonus refit") == \
        {"hits": "withdraw", "armour": "at", "bonus": "refit"}
    with pytest.raises(OrderError):
        combat.parse_doctrine("combat", "sometimes")


# --- retreats on the board (7.4.2.2, 7.4.2.3, 5.3.2, 5.3.3, 13.2.4.1) -------------------------------

def retreat_board(extra_units: list[tuple], blue=("X", "axis", T, 3, 4, None), disrupted=()) -> Board:
    x = blue if blue[5] is not None else blue[:5] + (unit("E", 5, "infantry", mot=False),)
    return Board([x, ("BHQ", "axis", "0101", 0, 6, None), ("RHQ", "allied", "0808", 0, 6, None),
                  ("16", "allied", A, 6, 6, unit("R", 5, "tank", tank=3))] + extra_units, [], disrupted=disrupted)


def ctx_of(b: Board, side: str = "allied") -> Ctx:
    return Ctx(b.rules, b.st, b.sc, side, b.dice)


def red(uid, h):
    return (uid, "allied", h, 3, 4, unit("R", 5, "infantry", mot=False))


def test_forced_retreat_into_an_ezoc_costs_one_sp_each():
    # 7.4.2.3 / the retreat captions: the only way out is an EZOC hex: +1 SP per unit
    from pbem.games.formation.retreats import retreat
    b = retreat_board([red("r1", "0303"), red("r2", "0503")])
    ctx = ctx_of(b)
    retreat(ctx, ["X"], A, 1, forced=True)
    ev = [e for e in ctx.events if isinstance(e, CE.CombatRetreated)][0]
    assert ev.ezoc == 1 and ev.blocked == 0 and len(ev.path) == 1
    assert b.st.units["X"].strength == 2 and b.st.units["X"].hex == ev.path[0]


def test_voluntary_retreat_never_enters_an_ezoc():
    from pbem.games.formation.retreats import retreat
    b = retreat_board([red("r1", "0303"), red("r2", "0503")])
    gone, short = retreat(ctx_of(b), ["X"], A, 1, forced=False)
    assert short == 1 and b.st.units["X"].hex == T and b.st.units["X"].strength == 3


def test_blocked_forced_retreat_costs_two_sp_per_hex():
    # 7.4.2.3: each hex a unit must but cannot enter costs it two SP
    from pbem.games.formation.retreats import retreat
    b = retreat_board([red("r1", "0403"), red("r2", "0504"), red("r3", "0304")],
                      blue=("X", "axis", T, 5, 4, None))
    retreat(ctx_of(b), ["X"], A, 2, forced=True)
    assert b.st.units["X"].strength == 1 and b.st.units["X"].hex == T and not b.st.units["X"].eliminated


def test_overstacked_retreat_disrupts_and_the_opponent_displaces():
    # 7.4.2.2 / 5.3.2: X retreats into 0304 onto Y (two Axis infantry: overstacked): both
    # disrupt, X loses a SP and the Commonwealth player displaces it to an adjacent hex
    from pbem.games.formation.retreats import retreat
    y = ("Y", "axis", "0304", 3, 4, unit("E", 5, "infantry", mot=False))
    b = retreat_board([red("r1", "0403"), red("r2", "0504"), y], disrupted=("r1", "r2"))   # no ZOC
    ctx = ctx_of(b)
    retreat(ctx, ["X"], A, 1, forced=False)
    dis = [e for e in ctx.events if isinstance(e, CE.OverstackDisrupted)][0]
    assert sorted(dis.units) == ["X", "Y"]
    assert b.st.units["X"].strength == 2 and b.st.units["Y"].strength == 3
    moved = [e for e in ctx.events if isinstance(e, CE.UnitDisplaced)]
    assert [(e.unit, e.frm, e.by) for e in moved] == [("X", "0304", "allied")]
    assert b.sc.board.grid.adjacent(b.st.units["X"].hex, "0304") and b.st.units["Y"].hex == "0304"


def test_hq_left_alone_is_displaced():
    # 7.4 / 5.3.3: the HQ goes to its formation's nearest unit, loses a support point and a level
    from pbem.games.formation.retreats import hq_alone, retreat
    b = retreat_board([("BHQ2", "axis", T, 0, 6, None)])
    b.sc = copy.deepcopy(b.sc)           # loads() shares one parsed scenario per text: never edit that one
    b.sc.tables.data.formations["E"].hq = "BHQ2"
    ctx = ctx_of(b)
    retreat(ctx, ["X"], A, 1, forced=False)
    hq_alone(ctx, [T])
    d = [e for e in ctx.events if isinstance(e, E.HQDisplaced)][0]
    assert d.hq == "BHQ2" and d.to == b.st.units["X"].hex and d.support == 3 and d.level == 2


def test_retreat_into_the_friendly_off_board_area():
    # 13.2.4.1: from its map edge the stack leaves the map; no hex is owed any more
    from pbem.games.formation.retreats import retreat
    g = Board(example_units(), []).sc.board.grid
    edge_hex, att = "0104", "0105"
    blocks = [n for n in g.neighbours(edge_hex) if g.distance(n, att) == 2]
    b = Board([("X", "axis", edge_hex, 3, 4, unit("E", 5, "infantry", mot=False)),
               ("BHQ", "axis", "0808", 0, 6, None), ("RHQ", "allied", "0508", 0, 6, None),
               ("16", "allied", att, 6, 6, unit("R", 5, "tank", tank=3))]
              + [red(f"r{i}", h) for i, h in enumerate(blocks)], [], disrupted=())
    b.st.turn = 1
    ctx = ctx_of(b)
    retreat(ctx, ["X"], att, 2, forced=True)
    ev = [e for e in ctx.events if isinstance(e, CE.CombatRetreated)][0]
    assert ev.off and b.st.units["X"].hex is None and b.st.fm.off_map == {"X": 2}
    assert b.st.units["X"].strength == 3


# --- through the engine: Game.submit with scripted dice ------------------------------------------------

def game_scenario() -> str:
    """The example's board without the disrupted Red unit (a game starts undisrupted), with
    roads for supply and the Schwerpunkt on Blue's formation E."""
    units = [u for u in example_units() if u[0] != "D"]
    roads = ", ".join(f'"{c:02d}01", "{c:02d}08"' for c in range(1, 9))
    extra = f'[game_data.schwerpunkt]\nsetup = "E"\n[map.features.road]\nhexes = [{roads}]\n'
    text = scenario_text(units, extra=extra)
    levels = ", ".join(f'"{i}" = [3, 3, 3, 3, 3, 3, 3, 3, 3, 3]' for i in range(8))
    ones = ", ".join(f'"{i}" = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]' for i in range(1, 6))
    return text.replace("black = { " + ones + " }", "black = { " + levels + " }")


def test_combat_example_through_the_engine(tmp_path, monkeypatch):
    from pbem.engine import Game
    from pbem.views import log_view
    monkeypatch.setenv("PBEM_CLOCK", "2024-01-01T00:00:00Z")
    path = tmp_path / "sc.toml"
    path.write_text(game_scenario(), encoding="utf-8")
    # activation 5 (3 AP); RbC 7 / 3; chits 1, 2; die 2; ECs 3, 9, 8, 2; bonus refit 4
    g = Game.create(tmp_path / "g", str(path), {"axis": "", "allied": ""},
                    dice=[5, 7, 3, 1, 2, 2, 3, 9, 8, 2, 4])

    def ok(side, text):
        sub = g.submit(side, text)
        assert sub.refused is None, sub.refused

    ok("allied", "activate R")
    ok("allied", "attack 0404 with 16 13")
    # 5.3.4: before its retreat-before-combat decision the defender sees no attacking unit
    seen = log_view(g.entries(), "axis", g.rules)
    text = str([e["body"] for e in seen if e["kind"] in ("CombatDeclared", "OrderGiven")])
    assert "'16'" not in text and " 13" not in text and "'13'" not in text
    assert [a["kind"] for a in g.rules.awaiting(g.state(), g.scenario)] == ["retreat before combat"]
    ok("axis", "rbc 0403")
    ok("allied", "escalate regular")
    ok("axis", "bonus refit 7")
    ok("axis", "bonus improve")
    st = g.state()
    assert st.fm.combat is None and st.fm.active.formation == "R" and st.fm.active.ap == 1
    assert (st.units["11"].strength, st.units["16"].strength, st.units["13"].strength) == (4, 5, 5)
    assert st.units["16"].disrupted and not st.units["7"].disrupted and "0404" in st.fm.improved
    res = [en.event for en in g.entries() if isinstance(en.event, CE.CombatResolved)][0]
    assert (res.attack_strength, res.defence_strength, res.odds, res.drm, res.modified, res.result) == \
        (22, 16, "1:1", 2, 4, "2*/1*")
    words = g.rules.describe_event(res, g.scenario)
    assert "22" in words and "1:1" in words and "2 red/1 red" in words
    assert g.verify().ok


def test_static_defender_forced_to_retreat_is_eliminated():
    # 3.2.1: a static unit never retreats; a forced retreat eliminates it; it may not retreat
    # before combat.  Hasty 22 against 2 (6:1), DRM +3 (16's 3 TP, no AT), 5 -> 8: "0/3*";
    # the first hit 2 -> 1, the EC (10) fails: case B, a forced retreat: eliminated.
    z = ("Z", "axis", T, 2, 0, {"formation": "", "static": True, "er": 3, "er_disrupted": 2,
                                 "category": "infantry", "movement": "leg"})
    units = [z] + [u for u in example_units() if u[0] not in ("11", "7", "D")]
    b = Board(units, [1, 1, 5, 10], disrupted=())
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "hasty"]))
    assert "a defender is a static unit" in b.of(CE.RbCDecided)[0].reason
    res = b.of(CE.CombatResolved)[0]
    assert (res.attack_strength, res.defence_strength, res.odds, res.drm, res.result) == (22, 2, "6:1", 3, "0/3*")
    assert b.st.units["Z"].eliminated and not b.of(CE.CombatRetreated)
    assert [e.reason for e in b.of(E.UnitEliminated)] == ["static unit forced to retreat"]
    # 7.4.3: Red took fewer hits: one bonus AP for the attacking units, on the AP track's side
    end = b.of(CE.CombatEnded)[0]
    assert (end.winner, end.bonus, sorted(end.units)) == ("allied", 1, ["13", "16"])
    assert b.st.fm.active.bonus == 1 and b.st.fm.combat is None


@pytest.mark.parametrize("name", ["mirages-compass", "mirages-brevity", "mirages-skorpion", "mirages-battleaxe"])
def test_shipped_scenarios_carry_our_crt(name):
    # the reconstructed CRT lives in each scenario file; it must be the one the tests check
    from pbem.core.scenario import load
    sc = load(name)
    assert sc.crt.reconstructed and sc.crt.rows == crt.DEFAULT_ROWS
    for terrain, heads in sc.game_data.get("crt_odds", {}).items():
        assert heads == crt.DEFAULT_ODDS[terrain]
    assert sc.crt.rows["4"][crt.odds_row(sc, "clear").index("1:1")] == "2*/1*"     # the printed datum


def test_out_of_command_attack_costs_two_and_stays_hasty():
    # 5.8.3: out-of-command units attack hasty only, at double cost; no escalation is asked
    units = [u for u in example_units() if u[0] != "RHQ"] + [("RHQ", "allied", "0808", 0, 6, None)]
    b = Board(units, [1, 2, 5] + [1] * 4)
    b.st.fm.doctrines["axis"] = {"rbc": "never"}
    with pytest.raises(OrderError, match="hasty"):
        b.order("allied", O.Attack(target=T, attackers=["16", "13", "regular"]))
    b.order("allied", O.Attack(target=T, attackers=["16", "13"]))
    assert b.of(CE.CombatDeclared)[0].ooc_cost == 2
    assert b.st.fm.active.defender and b.st.fm.interrupted[-1].ap == 1       # Blue won: its bonus waits
    assert [(e.attack, e.by) for e in b.of(CE.CombatEscalated)] == [("hasty", "rules")]


def test_attacker_holds_and_defender_withdraws_by_doctrine():
    # 7.4.2 a/b/c.  Prepared: chit 1 gives rating 5 x1: 11 against 16, column 1:2; DRM +3
    # (HQ +6, Blue's support -1, Schwerpunkt -2).  Die 1 -> 4: "2/0": Red's inline "hold"
    # takes the second hit as a step loss (on 13: each unit one before any a second).
    b = Board(example_units(), [1, 2, 1])
    b.st.fm.doctrines["axis"] = {"rbc": "never", "combat": "withdraw bonus pass"}
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "prepared", "hold"]))
    res = b.of(CE.CombatResolved)[0]
    assert (res.attack_strength, res.defence_strength, res.odds, res.drm, res.result) == (11, 16, "1:2", 3, "2/0")
    assert [(e.unit, e.why) for e in b.of(CE.StepLost)] == [("16", "first hit"), ("13", "hit")]
    assert not b.of(CE.CombatRetreated) and b.st.units["16"].hex == A
    # Die 7 -> 10: "1/2": Blue's standing "withdraw" turns its second hit into a one-hex retreat
    b = Board(example_units(), [1, 2, 7])
    b.st.fm.doctrines["axis"] = {"rbc": "never", "combat": "withdraw bonus pass"}
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "prepared", "hold"]))
    assert b.of(CE.CombatResolved)[0].result == "1/2"
    assert [(e.unit, e.why) for e in b.of(CE.StepLost)] == [("11", "first hit"), ("16", "first hit")]
    ret = b.of(CE.CombatRetreated)
    assert [(x.units, x.owed, x.forced, x.ezoc) for x in ret] == [(["11", "7"], 1, False, 0)]
    assert b.st.units["11"].hex == ret[0].path[0] and b.sc.board.grid.distance(ret[0].path[0], A) == 2
    assert [(e.winner, e.bonus) for e in b.of(CE.CombatEnded)] == [("allied", 1)]


def test_attackers_bonus_pays_an_escalation():
    # 7.4.3: the second bonus AP may escalate a hasty attack of the winning units
    b = Board(example_units(), [1, 2, 5, 1, 2, 5] + [1] * 8, ap=1)
    b.st.fm.active.bonus, b.st.fm.active.bonus_units = 2, ["16", "13"]
    b.st.fm.doctrines["axis"] = {"rbc": "never", "combat": "bonus pass"}
    b.order("allied", O.Attack(target=T, attackers=["16", "13", "regular"]))
    spent = [e for e in b.events if isinstance(e, E.APSpent)]
    assert [(e.ap, e.bonus) for e in spent] == [(1, 1), (1, 1)] and b.st.fm.active.ap == 1


def test_rbc_doctrine_always_takes_a_one_hex_free_move():
    # `doctrine rbc always`: no pause; the free move is one hex chosen like a retreat
    # (away from the attacking stack, never next to it); 2 against 5 + 4 succeeds
    b = Board(example_units(), [2, 5])
    b.st.fm.doctrines["axis"] = {"rbc": "always"}
    b.order("allied", O.Attack(target=T, attackers=["16", "13"]))
    assert [(d.attempt, d.by) for d in b.of(CE.RbCDecided)] == [(True, "doctrine")]
    moved = b.of(CE.RbCMoved)[0]
    assert len(moved.path) == 1 and not b.sc.board.grid.adjacent(moved.path[0], A)
    assert b.st.units["11"].hex == moved.path[0] and b.st.fm.combat is None
    assert combat.combat_defaults(b.st, b.sc, "allied") == []


# --- 7.4.3: the winning defender's bonus: any Action with the units that won -------------

def _defender_won(tmp_path, monkeypatch, *extra_dice):
    """The combat example through the engine up to Blue's Battle Victory (two bonus APs for
    11 and 7, the Schwerpunkt's); the Allies react whenever they can."""
    from pbem.engine import Game
    monkeypatch.setenv("PBEM_CLOCK", "2024-01-01T00:00:00Z")
    path = tmp_path / "sc.toml"
    path.write_text(game_scenario(), encoding="utf-8")
    g = Game.create(tmp_path / "g", str(path), {"axis": "", "allied": ""},
                    dice=[5, 7, 3, 1, 2, 2, 3, 9, 8, 2, *extra_dice])
    for side, text in (("allied", "doctrine reaction always"), ("allied", "activate R"),
                       ("allied", "attack 0404 with 16 13"), ("axis", "rbc 0403"), ("allied", "escalate regular")):
        assert g.submit(side, text).refused is None, text
    return g


def test_7_4_3_the_winning_defender_moves_with_its_bonus_and_triggers_no_reaction(tmp_path, monkeypatch):
    g = _defender_won(tmp_path, monkeypatch)
    item = g.rules.awaiting(g.state(), g.scenario)[0]
    assert (item["side"], item["kind"], sorted(item["units"]), item["bonus"]["ap"]) == \
        ("axis", "battle victory bonus", ["11", "7"], 2)
    assert "move UNIT" in item["order"] and "attack HEX" in item["order"]
    assert g.rules.default_orders(g.state(), g.scenario, "axis") == ["bonus pass"]
    assert "not your turn: the game waits for Axis (battle victory bonus, 7.4.3)" in str(g.submit("allied", "end").refused)
    assert "not of the winners" in str(g.submit("axis", "move S 0505").refused)          # S only supported
    assert "disrupted" in str(g.submit("axis", "move 7 0504").refused)                  # 5.6.3
    sub = g.submit("axis", "move 11 0504")          # next to Red's units: no reaction (7.4.3)
    assert sub.refused is None
    evs = [e for a in sub.applied for e in a.events]
    assert [(e.action, e.ap, e.bonus) for e in evs if isinstance(e, E.APSpent)] == [("move", 1, 1)]
    assert not [e for e in evs if isinstance(e, (E.ReactionPaused, E.ReactionAttempted, E.ReactionDeclined))]
    sub = g.submit("axis", "bonus pass")
    ended = [e for a in sub.applied for e in a.events if isinstance(e, CE.BonusActionsEnded)]
    assert [(e.side, e.lost, e.reason) for e in ended] == [("axis", 1, "pass")]
    st = g.state()
    assert st.fm.active.formation == "R" and not st.fm.active.defender and not st.fm.interrupted   # Red goes on
    assert g.rules.awaiting(st, g.scenario)[0]["side"] == "allied"
    assert g.verify().ok


def test_7_4_3_the_winning_defenders_second_ap_escalates_its_attack():
    # the second bonus AP "to escalate a Hasty Attack to a Regular Attack": Blue's 11 attacks the
    # disrupted Red unit D next to it (no retreat before combat for a disrupted unit)
    b = Board(example_units(), [7, 3, 1, 2, 2, 3, 9, 8, 2] + [5] * 12)
    b.order("allied", O.Attack(target=T, attackers=["16", "13"]))
    b.order("axis", verb("rbc", "0403"))
    b.order("allied", verb("escalate", "regular"))
    assert b.st.fm.active.defender and b.st.fm.active.bonus == 2
    b.order("axis", O.Attack(target="0304", attackers=["11"]))
    decl = b.of(CE.CombatDeclared)[-1]
    assert (decl.side, decl.attackers, decl.defenders) == ("axis", ["11"], ["D"])
    assert combat.combat_awaiting(b.st, b.sc)[0]["side"] == "axis"          # escalation asked: 1 bonus AP left
    b.order("axis", verb("escalate", "regular"))
    spent = [(e.action, e.ap, e.bonus) for e in b.of(E.APSpent)][-2:]
    assert spent == [("hasty attack", 1, 1), ("regular attack", 1, 1)]
    assert b.of(CE.CombatEscalated)[-1].attack == "regular"


@pytest.mark.parametrize("use, refits, improved, lost", [("refit", ["7"], True, 0), ("improve", [], False, 2),
                                                         ("pass", [], False, 2)])
def test_7_4_3_standing_orders_for_the_defenders_bonus(use, refits, improved, lost):
    # doctrine combat ... bonus refit (the disrupted winners, then dig in), improve (7 is
    # disrupted: 7.6 allows no marker, so nothing is spent and the rest is lost), pass
    b = Board(example_units(), [7, 3, 1, 2, 2, 3, 9, 8, 2, 4])
    b.st.fm.doctrines["axis"] = {"combat": f"bonus {use}"}
    b.order("allied", O.Attack(target=T, attackers=["16", "13"]))
    b.order("axis", verb("rbc", "0403"))
    b.order("allied", verb("escalate", "regular"))
    assert [e.unit for e in b.of(E.ECRolled) if e.why == "refit"] == refits
    assert (T in b.st.fm.improved) == improved
    ended = b.of(CE.BonusActionsEnded)
    assert ([(e.lost, e.reason) for e in ended] == [(lost, "standing order")]) if lost else not ended
    assert combat.parse_doctrine("combat", f"hold bonus {use}") == {"hits": "hold", "bonus": use}
