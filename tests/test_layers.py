"""The layers hold even inside a function (issue 26 item 6).  Every module of pbem is read
with ``ast`` and every import statement counted, at any depth (a function's, a class's,
an ``if TYPE_CHECKING`` block's):

- ``pbem/core`` imports nothing of pbem outside ``pbem/core``, but ``pbem.log``, the
  file-level event store below it in the layer table (README, Layers).  What the core
  needs from above (the game registry) is handed to it: ``pbem.games`` sets
  ``events.load_games`` and ``scenario.schema_of``;
- ``pbem/engine.py`` and ``pbem/report/`` never import ``pbem.host`` (the parts of a
  mail they use are ``pbem/report/mailparts.py``);
- in a game package (``pbem/games/``) an import inside a function carries a comment on
  its line or the line above saying why it is there (a cycle it breaks, a module it
  defers); one that needs no reason belongs at the top of the module;
- Advanced Tobruk's modules import each other without a cycle, counting the imports inside
  functions (issue 26 item 6): the shared lookups lie below the rules that read them, and a
  follow-up a lower module would trigger is handed to it by its caller.  So none of its
  function-level imports breaks a cycle (the map's code is only deferred).  Its sub-packages
  stand in layers (``TOBRUK_LAYERS``), each importing only those below it; the modules at the
  package's top (the entry points, the state and the events) may import any."""
from __future__ import annotations

import ast
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"


def _module(path: Path) -> str:
    parts = list(path.relative_to(PBEM.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, source: str | None = None) -> list[tuple[int, str, bool]]:
    """(line, module imported, inside a function) for every import in the file; ``from X import Y``
    gives X and X.Y (Y may be a module), relative imports resolved."""
    source = path.read_text() if source is None else source
    mod = _module(path)
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out: list[tuple[int, str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, ast.Import):
                out.extend((ch.lineno, a.name, in_function) for a in ch.names)
            elif isinstance(ch, ast.ImportFrom):
                base = ch.module or ""
                if ch.level:
                    up = pkg.split(".")[:len(pkg.split(".")) - (ch.level - 1)]
                    base = ".".join(up + ([ch.module] if ch.module else []))
                out.append((ch.lineno, base, in_function))
                out.extend((ch.lineno, f"{base}.{a.name}", in_function) for a in ch.names)
            visit(ch, in_function or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    visit(ast.parse(source), False)
    return out


def _under(name: str, pkg: str) -> bool:
    return name == pkg or name.startswith(pkg + ".")


def _files(*where: str) -> list[Path]:
    out: list[Path] = []
    for w in where:
        p = PBEM / w
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


def test_the_core_imports_nothing_above_it():
    bad = [f"{p.relative_to(PBEM.parent)}:{line}: {name}" for p in _files("core")
           for line, name, _ in imports(p)
           if _under(name, "pbem") and name != "pbem" and not _under(name, "pbem.core")
           and not _under(name, "pbem.log")]
    assert not bad, "the core imports from above it:\n" + "\n".join(bad)


def test_the_engine_and_the_report_never_import_the_host():
    bad = [f"{p.relative_to(PBEM.parent)}:{line}: {name}" for p in _files("engine.py", "report")
           for line, name, _ in imports(p) if _under(name, "pbem.host")]
    assert not bad, "the engine or the report imports the host:\n" + "\n".join(bad)


def unexplained(path: Path, source: str | None = None) -> list[str]:
    """The imports inside a function with no comment on their line(s) or the line above."""
    source = path.read_text() if source is None else source
    lines = source.splitlines()
    out = []
    tree = ast.parse(source)
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                span = lines[node.lineno - 1:node.end_lineno]
                above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                said = " ".join(ln.split("#", 1)[1] for ln in span if "#" in ln) + (above if above.startswith("#") else "")
                # a comment is a reason (a cycle, a deferred module), not a note that the import could go up
                if not said.strip(" #") or "may move to the top" in said:
                    out.append(f"{path.relative_to(PBEM.parent)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return sorted(set(out))


def test_a_game_explains_every_import_inside_a_function():
    bad = [x for p in _files("games") for x in unexplained(p)]
    assert not bad, ("an import inside a function of a game with no comment saying why (a cycle it breaks, a "
                     "module it defers); else move it to the top:\n" + "\n".join(bad))


def test_the_checks_see_an_import_at_any_depth():
    """The scanner finds an import in a nested function, a method and a TYPE_CHECKING block,
    resolves a relative one, and tells an explained function-level import from one that is not."""
    path = PBEM / "games" / "example" / "mod.py"
    src = ("from typing import TYPE_CHECKING\n"
           "if TYPE_CHECKING:\n    from pbem.host import mail\n"
           "class A:\n    def m(self):\n        def inner():\n            from ..core import events\n"
           "        # the rules import this module (a cycle)\n        from . import rules\n"
           "        return inner\n")
    got = imports(path, src)
    assert (3, "pbem.host.mail", False) in got
    assert (7, "pbem.games.core.events", True) in got
    assert (9, "pbem.games.example", True) in got and (9, "pbem.games.example.rules", True) in got
    assert unexplained(path, src) == ["pbem/games/example/mod.py:7: from ..core import events"]



TOBRUK = PBEM / "games" / "advanced_tobruk"


def import_graph(sources: dict[Path, str]) -> dict[str, set[str]]:
    """module -> the modules among ``sources`` it imports, at any depth (a function's import too).
    ``from P import M`` names M when M is one of the modules, else P; a module's own package
    (``__init__``) counts like any module."""
    mods = {_module(p): p for p in sources}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        for _, name, _ in imports(p, sources[p]):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != m:
                graph[m].add(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                part = []
                while True:
                    w = stack.pop()
                    part.append(w)
                    if w == v:
                        break
                if len(part) > 1:
                    out.append(sorted(part))
    return out


def _tobruk() -> dict[Path, str]:
    return {p: p.read_text() for p in sorted(TOBRUK.rglob("*.py"))}


def test_advanced_tobruk_imports_itself_without_a_cycle():
    """No cycle among Advanced Tobruk's modules, an import inside a function included: a cycle held
    apart by a function-level import is still one (it only moves the failure to the call)."""
    found = cycles(import_graph(_tobruk()))
    assert not found, "import cycles in advanced_tobruk (imports inside functions counted):\n" + "\n".join(
        " <-> ".join(m.removeprefix("pbem.games.advanced_tobruk.") for m in c) for c in found)


# Advanced Tobruk's sub-packages, lowest first: each imports only those before it (pbem/games/README.md)
TOBRUK_LAYERS = ("tables", "board", "notes", "fog", "fire", "mines", "artillery", "turn")


def upward_imports(graph: dict[str, set[str]], package: str, layers: tuple[str, ...]) -> list[str]:
    """The imports from one sub-package of ``package`` into another that is not below it in ``layers``;
    a module at the package's top level is in no layer."""
    subs = {m.removeprefix(package + ".").split(".")[0] for m in graph
            if m.startswith(package + ".") and m.count(".") > package.count(".") + 1}

    def layer(m: str) -> str:
        head = m.removeprefix(package + ".").split(".")[0] if m.startswith(package + ".") else ""
        return head if head in subs else ""
    return sorted(f"{m} -> {t}" for m, ts in graph.items() for t in ts
                  if layer(m) and layer(t) and layer(m) != layer(t)
                  and (layer(t) not in layers or layer(m) not in layers
                       or layers.index(layer(t)) > layers.index(layer(m))))


def test_tobruk_sub_packages_import_only_downward():
    """Every sub-package of Advanced Tobruk is in the layer table, and none imports one above it (a
    function's import too): tables < board < notes < fog < fire < mines < artillery < turn."""
    subs = sorted(p.name for p in TOBRUK.iterdir() if (p / "__init__.py").exists())
    assert subs == sorted(TOBRUK_LAYERS)
    bad = upward_imports(import_graph(_tobruk()), "pbem.games.advanced_tobruk", TOBRUK_LAYERS)
    assert not bad, "a sub-package of advanced_tobruk imports one above it:\n" + "\n".join(bad)


def test_the_layer_check_sees_an_upward_import():
    pkg = PBEM / "games" / "example"
    src = {pkg / "low" / "a.py": "def f():\n    from pbem.games.example.high import b  # deferred\n",
           pkg / "high" / "b.py": "from pbem.games.example.low import a\n",
           pkg / "top.py": "from pbem.games.example.high import b\n"}
    graph = import_graph(src)
    assert upward_imports(graph, "pbem.games.example", ("low", "high")) == [
        "pbem.games.example.low.a -> pbem.games.example.high.b"]
    assert upward_imports(graph, "pbem.games.example", ("high", "low")) == [
        "pbem.games.example.high.b -> pbem.games.example.low.a"]


def test_no_tobruk_import_inside_a_function_says_it_breaks_a_cycle():
    """With no cycle left, an import inside a function of Advanced Tobruk defers a module (the map's
    code); one whose comment says it breaks a cycle is stale and belongs at the top."""
    bad = []
    for p, src in _tobruk().items():
        lines = src.splitlines()
        for line, _, in_function in imports(p, src):
            said = lines[line - 1] + " " + (lines[line - 2] if line > 1 else "")
            if in_function and ("cycle" in said or "imports this module" in said):
                bad.append(f"{p.relative_to(PBEM.parent)}:{line}: {lines[line - 1].strip()}")
    assert not bad, "function-level imports that claim to break a cycle:\n" + "\n".join(sorted(set(bad)))


def test_the_cycle_finder_counts_an_import_inside_a_function():
    """Two modules importing each other, one of them inside a function, are a cycle; a third that
    only imports them is not part of it."""
    pkg = PBEM / "games" / "example"
    src = {pkg / "a.py": "from pbem.games.example import b\n",
           pkg / "b.py": "def f():\n    from pbem.games.example.a import x  # a cycle\n    return x\n",
           pkg / "c.py": "from . import a, b\n",
           pkg / "__init__.py": ""}
    graph = import_graph(src)
    assert graph["pbem.games.example.b"] == {"pbem.games.example.a"}
    assert graph["pbem.games.example.c"] == {"pbem.games.example", "pbem.games.example.a", "pbem.games.example.b"}
    assert cycles(graph) == [["pbem.games.example.a", "pbem.games.example.b"]]
    del src[pkg / "b.py"]
    assert cycles(import_graph(src)) == []
