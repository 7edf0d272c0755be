"""Standing answers to a Ca (10.5): a side may answer the Ca choices in advance
(``doctrine ca ...`` for the original defender's force, ``doctrine re-roll ...``
for the original attacker's after a counterattack); each one applied is logged
and reported, and one that cannot be applied leaves the choice to the player."""
from __future__ import annotations

from pbem.core import orders as O
from pbem.core.orders import OrderError
from pbem.core.ruleset import Ctx, find_unit
from pbem.core.scenario import Scenario
from pbem.core.state import UnitState
from pbem.games.crete import events as E
from pbem.games.crete.board import alive, enemies, hex_arg, land
from pbem.games.crete.odds import TABLES, column, strengths
from pbem.games.crete.state import CreteState, Fight

# Standing answers to a Ca (10.5): "ca" for the original defender's force (retreat or counterattack
# a hex), "re-roll" for the original attacker's force after a counterattack (roll again or retreat).
STANDING_TOPICS = {"ca": "ca", "re-roll": "re-roll", "reroll": "re-roll"}
STANDING_WORDS = {"retreat", "counterattack", "ask", "default"} | set(TABLES)
STANDING_USAGE = ("doctrine ca [UNIT|HEX] retreat | counterattack all-out|limited | ask; "
                  "doctrine re-roll [UNIT|HEX] all-out|limited | retreat | ask; doctrine ca|re-roll UNIT|HEX default")
# A guard against an endless exchange of Ca results answered by standing orders (a table with a
# column of nothing but Ca): after this many automatic answers in one fight the next Ca is asked.
AUTO_LIMIT = 12


def doctrine(ctx: Ctx, args: list[str]) -> None:
    """doctrine ca|re-roll [UNIT|HEX] ANSWER: a standing answer to the Ca choices of 10.5, for
    every unit of the side, or an exception for one unit or for the units in one hex."""
    st, sc = ctx.state, ctx.sc
    if not args or args[0].lower() not in STANDING_TOPICS:
        raise OrderError(f"a Crete standing order is: {STANDING_USAGE}", "10.5")
    topic = STANDING_TOPICS[args[0].lower()]
    rest = list(args[1:])
    scope = ""
    if rest and rest[0].lower() not in STANDING_WORDS:
        if O.HEX_RE.match(rest[0]):
            scope = hex_arg(ctx, rest[0])
            if not land(sc, scope):
                raise OrderError(f"{scope} is not a land hex of the three maps", "10.5")
        else:
            scope = find_unit(ctx, rest[0], ctx.side).id
        rest = rest[1:]
    words = [TABLES.get(w.lower(), w.lower()) for w in rest]
    if topic == "ca":
        ok = words in (["retreat"], ["ask"], ["counterattack", "all-out"], ["counterattack", "limited"])
    else:
        ok = words in (["retreat"], ["ask"], ["all-out"], ["limited"])
    if words == ["default"] and scope:
        if scope not in st.crete.standing.get(f"{ctx.side}:{topic}", {}):
            raise OrderError(f"{scope} has no standing {topic} exception to clear", "10.5")
        ok = True
    if not ok:
        raise OrderError(f"write: {STANDING_USAGE}", "10.5")
    ctx.emit(E.StandingOrderSet(side=ctx.side, topic=topic, answer=" ".join(words), scope=scope))


def standing_answer(st: CreteState, sc: Scenario, f: Fight, force: list[UnitState],
                    opts: list[list[str]]) -> tuple[list[str], list[str] | None, str]:
    """What the standing orders answer to the Ca choice of ``force`` (10.5): the standing orders
    that speak for it (as written), the option they pick (None: ask the player) and, when they
    say something but cannot be applied, why.  Each unit follows its own exception, else the
    one for its hex, else the side's; the force must agree.  A counterattack of the original
    defender goes against the hex that gives the best odds (on equal odds the lowest hex number)."""
    side = force[0].side
    topic = "re-roll" if side == f.side else "ca"
    table = st.crete.standing.get(f"{side}:{topic}", {})
    if not table:
        return [], None, ""
    orders: list[str] = []
    says: dict[str, str] = {}
    for u in force:
        scope = u.id if u.id in table else (u.hex if u.hex in table else ("" if "" in table else None))
        if scope is None:
            says[u.id] = "ask"
            continue
        says[u.id] = table[scope]
        text = " ".join(["doctrine", topic] + ([scope] if scope else []) + [table[scope]])
        if text not in orders:
            orders.append(text)
    answers = set(says.values())
    if answers == {"ask"}:
        return [], None, ""
    if len(answers) > 1:
        return orders, None, "the standing orders differ within the force (" + \
            "; ".join(f"{u} {a}" for u, a in says.items()) + ")"
    ans = answers.pop()
    if f.auto >= AUTO_LIMIT:
        return orders, None, f"{AUTO_LIMIT} Ca results of this fight were already answered by standing order"
    if ans == "retreat":
        if ["retreat"] in opts:
            return orders, ["retreat"], ""
        why = "no unit of the force has a safe hex (10.6)" if f.kind != "scatter" else \
            "the German unit of a scatter fight may not retreat (5.2)"
        return orders, None, why
    tab = ans.split()[-1]
    cands = [o for o in opts if o[0] == "counterattack" and o[-1] == tab]
    if not cands:
        if f.kind == "scatter" and tab == "limited":
            return orders, None, "a scatter fight uses the All Out table only (5.2)"
        return orders, None, f"no counterattack of at least 1:3 is possible on the {tab} table (9.4)"
    if topic == "re-roll":
        return orders, cands[0], ""
    own = alive(st, f.defenders)

    def odds(o: list[str]) -> int:
        att, dfn, _ = strengths(st, sc, own, enemies(st, o[1], side), [], terrain=f.kind != "scatter")
        return sc.crt.columns.index(column(att, dfn) or sc.crt.columns[0])
    return orders, max(cands, key=odds), ""
