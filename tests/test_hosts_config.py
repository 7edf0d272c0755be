"""The host configuration's schema (issue 16): every misspelt key or section,
wrong type or unit is one line naming the key and what it accepts, through
the command a host runs; nothing is silently ignored."""
from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner

import pbem.host as H
from mail_helpers import make_host
from pbem.cli import main


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("PBEM_CLOCK", "2026-01-01T00:00:00Z")
    monkeypatch.delenv("PBEM_HOST", raising=False)


def _edit(root, old: str, new: str) -> None:
    p = root / "pbem-host.toml"
    text = p.read_text()
    assert old in text, old
    p.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("old, new, line", [
    ("max_message_bytes = 1000000", 'max_message_bytes = "1 mega"',
     "max_message_bytes: '1 mega' is not a size; accepted: a number of bytes (1000000) or a size in quotes"),
    ("map_png = false", "mapp_png = false", "mapp_png: unknown key (did you mean 'map_png'?); known: address,"),
    ("[deadlines]", "[deadline]", "deadline: unknown key (did you mean 'deadlines'?)"),
    ("[serve]", "[server]", "server: unknown key (did you mean 'serve'?)"),
    ("interval = 60", 'intervall = 60', "serve.intervall: unknown key (did you mean 'interval'?); known: interval"),
    # msgspec's own words between the key and pbem's "accepted: ..." may change with its version
    ("map_png = false", 'map_png = "yes"', ("map_png: ", "; accepted: true or false")),
    ('map_svg = "final"', 'map_svg = "sometimes"', "map_svg: "),
    ("map_width = 1400", "map_width = 100", ("map_width: ", "320", "accepted: a whole number of pixels from 320 to 4000")),
    ('mode = "immediate"', 'mode = "later"', ("orders.mode: ", "'later'", '; accepted: "immediate", "staged"')),
    ('absence = "14d"', 'absence = "two weeks"', "deadlines.absence: 'two weeks' is not a duration"),
    ("interval = 60", 'interval = "often"', "serve.interval: 'often' is not a duration"),
])
def test_a_bad_key_or_value_is_one_line_naming_key_and_forms(tmp_path, old, new, line):
    root = tmp_path / "h"
    make_host(root)
    _edit(root, old, new)
    r = CliRunner().invoke(main, ["host", "status", "--host", str(root)])
    assert r.exit_code == 1, r.output
    out = r.output.strip()
    assert len(out.splitlines()) == 1 and "Traceback" not in out, out
    assert all(part in out for part in ((line,) if isinstance(line, str) else line)), out
    assert out.startswith(f"pbem: {root / 'pbem-host.toml'}: ")


def test_a_wrong_map_svg_value_lists_what_is_accepted(tmp_path):
    root = tmp_path / "h"
    make_host(root)
    _edit(root, 'map_svg = "final"', 'map_svg = "sometimes"')
    with pytest.raises(H.HostError) as e:
        H.load_config(root)
    assert "map_svg" in str(e.value) and 'true, false or "final"' in str(e.value)


def test_units_and_new_keys_are_read(tmp_path):
    root = tmp_path / "h"
    make_host(root)
    _edit(root, "max_message_bytes = 1000000", 'max_message_bytes = "2MB"')
    _edit(root, "interval = 60", 'interval = "5m"')
    _edit(root, 'mode = "immediate"', 'mode = "staged"')
    _edit(root, 'absence = "14d"', 'absence = "off"')
    cfg = H.load_config(root)
    assert cfg.max_bytes == 2_000_000 and cfg.interval == 300
    assert cfg.orders_mode == "staged" and cfg.absence is None
    assert cfg.map_svg == "final" and cfg.map_width == 1400 and cfg.map_png is False


def test_defaults_of_a_new_host(tmp_path):
    cfg = H.load_config(make_host(tmp_path / "h").cfg.root)
    assert cfg.orders_mode == "immediate" and cfg.absence == timedelta(days=14)
    assert H.load_config(tmp_path / "h").max_bytes == 1_000_000
    # a config written before these keys existed still loads, with the same defaults
    old = tmp_path / "old"
    old.mkdir()
    (old / "pbem-host.toml").write_text('address = "a@b.example"\nmap_svg = true\n')
    cfg = H.load_config(old)
    assert cfg.map_svg is True and cfg.orders_mode == "immediate" and cfg.absence == timedelta(days=14)


def test_host_show_tells_the_new_settings(tmp_path):
    root = tmp_path / "h"
    make_host(root)
    _edit(root, 'mode = "immediate"', 'mode = "staged"')
    r = CliRunner().invoke(main, ["host", "show", "--host", str(root)])
    assert r.exit_code == 0, r.output
    assert "absences up to 14d" in r.output
    assert "maps: PNG off; SVG the final report only" in r.output          # make_host switches the PNG off
    assert "orders by mail: staged; messages up to 1,000,000 bytes" in r.output
