"""Trust nobody has to take on faith: SSH signatures of orders (``sshsig``), the
orders a signature covers (``signed``), the host's signed receipts (``receipt``),
and the findings verify, audit and explain report about signatures (``findings``).

Nothing here knows a game; the engine, the referee tools and the host call it."""
