"""Readable messages for data that fails its msgspec schema (host config, scenarios)."""
from __future__ import annotations

import re
import typing

import msgspec

_AT = re.compile(r" - at `\$(.*)`$")
_FIELD = re.compile(r"^Object (missing required|contains unknown) field `([^`]*)`$")


def key_path(e: msgspec.ValidationError) -> tuple[str, str]:
    """(key path like ``outgoing.security``, msgspec's message without the path)."""
    text = str(e)
    m = _AT.search(text)
    if not m:
        return "", text
    return m.group(1).lstrip("."), text[:m.start()]


def _type_at(root: type, path: str):
    """The annotated type at a dotted key path of nested Structs (None when unknown)."""
    tp = root
    for part in filter(None, re.sub(r"\[[^]]*\]", "", path).split(".")):
        hints = typing.get_type_hints(tp) if isinstance(tp, type) and issubclass(tp, msgspec.Struct) else {}
        if part not in hints:
            return None
        tp = hints[part]
    return tp


def schema_error(e: msgspec.ValidationError, root: type | None = None) -> str:
    """``key.path: what is wrong``, with the accepted keys or values where there is a choice."""
    path, msg = key_path(e)
    m = _FIELD.match(msg)
    if m:
        path = f"{path}.{m.group(2)}" if path else m.group(2)
        if m.group(1) == "missing required":
            return f"{path}: missing (it is required)"
        parent = _type_at(root, path.rpartition(".")[0]) if root is not None else None
        known = ", ".join(parent.__struct_fields__) if isinstance(parent, type) and \
            issubclass(parent, msgspec.Struct) else ""
        return f"{path}: unknown key" + (f" (known: {known})" if known else "")
    tp = _type_at(root, path) if root is not None and path else None
    if tp is not None and typing.get_origin(tp) is typing.Literal:
        msg += "; accepted: " + ", ".join(f'"{v}"' for v in typing.get_args(tp))
    return f"{path}: {msg}" if path else msg
