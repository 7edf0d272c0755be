"""pbem: a play-by-email adjudicator for hex-and-counter wargames."""
from pbem.core.events import ENGINE_VERSION as __version__  # noqa: F401
