"""Fails when a lock file and pyproject.toml disagree.

    python .ci/lockcheck.py requirements-test.lock

Every dependency of pyproject.toml (with the test extras for the test lock) must
be pinned in the lock at a version its specifier allows, and every pin the lock
holds for pbem itself must still be asked for by pyproject.toml. (`pip check`,
run after the install, checks the rest: the pins' own dependencies.)
"""
from __future__ import annotations

import re
import sys
import tomllib

try:
    from packaging.requirements import Requirement
except ImportError:                      # the runtime lock has no packaging; pip carries one
    from pip._vendor.packaging.requirements import Requirement


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def main(lock: str) -> int:
    project = tomllib.load(open("pyproject.toml", "rb"))["project"]
    wanted = list(project["dependencies"])
    if "test" in lock:
        wanted += project["optional-dependencies"]["test"]
    text = open(lock, encoding="utf-8").read()
    pins = {canon(m[1]): m[2] for m in re.finditer(r"(?m)^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", text)}
    # A pin's "# via" block names who asked for it; "pbem (pyproject.toml)" is pbem itself.
    direct = {canon(m[1]) for m in re.finditer(r"(?ms)^([A-Za-z0-9][A-Za-z0-9._-]*)==.*?(?=^\S|\Z)", text)
              if re.search(r"#\s+(via\s+)?pbem \(pyproject\.toml\)\s*$", m[0], re.M)}
    problems = []
    names = set()
    for r in map(Requirement, wanted):
        n = canon(r.name)
        names.add(n)
        if n not in pins:
            problems.append(f"{r.name}: asked for by pyproject.toml, not pinned in {lock}")
        elif not r.specifier.contains(pins[n], prereleases=True):
            problems.append(f"{r.name}: {lock} pins {pins[n]}, pyproject.toml asks {r.specifier}")
    problems += [f"{n}: pinned in {lock} for pbem, no longer asked for by pyproject.toml" for n in sorted(direct - names)]
    for p in problems:
        print(f"lock: {p}", file=sys.stderr)
    if problems:
        print("lock: regenerate the lock files (bash .ci/lock) and commit them", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
