"""Evening out the workers' work on a database (``PgStore.affinity``): each job's CPU
is added to its game's recent cost (pbem_costs, the older part halved every hour);
now and then a worker reads the costs and, when a move is worth it
(``Affinity.rebalanced``), writes a placement of the games for every worker
(pbem_meta's 'placement', compare and set on the text it read)."""
from __future__ import annotations

import json

from pbem.store import pg_schema as S
from pbem.store.affinity import Affinity

__all__ = ["EVERY", "HOLD", "NOTE_COST", "owners", "rebalance"]

EVERY = 5.0                # s between a worker's looks at the costs
# s after a placement before the next: the games it moved are drawn cold on their new
# worker at first, which a look soon after would count against it and move them again
# (seen in issue 29's benchmark: runs writing three placements in under a minute spread
# 27-29 of the 50 games over both workers, runs writing one or none 5-17)
HOLD = 60.0
MIN_MAILS = 20             # mails measured before the costs are gone by (and half the games)

# (a hosted game's only: a refused mail may name any game)
NOTE_COST = ("INSERT INTO pbem_costs (game, cpu, mails) SELECT game, %s, 1 FROM pbem_heads WHERE game = %s "
             "ON CONFLICT (game) DO UPDATE SET "
             "cpu = pbem_costs.cpu * 0.5 ^ (extract(epoch FROM now() - pbem_costs.at) / %s) + EXCLUDED.cpu, "
             "mails = pbem_costs.mails + 1, at = now()")


def owners(placed: str) -> dict[str, str] | None:
    """The placement's owners (game -> worker) from its text; None for none, or for a text
    that is not one (edited by hand): the games are then shared out as without one."""
    return _read(placed)[1]


def _read(placed: str) -> tuple[int, dict[str, str] | None]:
    """(epoch, owners) of a placement's text; (0, None) for none or one that is not one."""
    try:
        doc = json.loads(placed) if placed else {}
        got = doc.get("owners")
        return int(doc.get("epoch", 0)), got if isinstance(got, dict) else None
    except (ValueError, TypeError, AttributeError):
        return 0, None


def rebalance(store, aff: Affinity, placed: str) -> tuple[str, Affinity] | None:
    """A placement that evens out what the games' mails cost lately, written when it is
    worth a move and no other worker wrote one since ``placed`` (the placement's text
    as read, "" for none) was read: (its text, the new Affinity), or None."""
    rows = store._all("SELECT game, cpu * 0.5 ^ (extract(epoch FROM now() - at) / %s), mails FROM pbem_costs",
                      (S.COST_HALF_LIFE,))
    hosted = set(aff.games)
    seen = [(g, float(c), int(n)) for g, c, n in rows if g in hosted]
    if 2 * len(seen) < len(hosted) or sum(n for _g, _c, n in seen) < MIN_MAILS:
        return None                                 # too little to go by yet
    owners = aff.rebalanced({g: c for g, c, _n in seen})
    if owners is None:
        return None
    text = json.dumps({"epoch": _read(placed)[0] + 1, "owners": owners}, sort_keys=True)
    if placed:
        done = store._run("UPDATE pbem_meta SET value = %s WHERE key = 'placement' AND value = %s", (text, placed))
    else:
        done = store._run("INSERT INTO pbem_meta VALUES ('placement', %s) ON CONFLICT (key) DO NOTHING", (text,))
    if not done:
        return None                                 # another worker placed them first: read at its next look
    return text, Affinity(aff.me, aff.live, aff.games, aff.groups, owners)
