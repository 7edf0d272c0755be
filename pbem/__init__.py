"""pbem: a play-by-email adjudicator for hex-and-counter wargames."""


def __getattr__(name: str):
    # The version lives with the events (ENGINE_VERSION); importing them (and msgspec)
    # only when asked keeps `import pbem` -- every command's first step -- cheap.
    if name == "__version__":
        from pbem.core.events import ENGINE_VERSION
        return ENGINE_VERSION
    raise AttributeError(f"module 'pbem' has no attribute {name!r}")
