"""``make lab``'s Lab settings (issue #39): the browser test serves Lab with the very flags ``make lab`` passes, and
the settings those flags point at are valid settings of the installed JupyterLab that keep its news popup away."""

from __future__ import annotations

import json
import re
import sysconfig
from pathlib import Path

import jsonschema

from .lab import ROOT, make_lab_flags

SETTINGS_DIR = ROOT / "tools" / "jupyter" / "lab" / "settings"
SCHEMAS = Path(sysconfig.get_path("data")) / "share" / "jupyter" / "lab" / "schemas"


def lab_recipe() -> str:
    """The command lines of the Makefile's ``lab`` target."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^lab:.*\n((?:\t.*\n)+)", text, re.MULTILINE)
    assert match is not None
    return match.group(1)


def test_make_lab_passes_the_lab_flags_the_browser_test_uses():
    assert "$(LAB_FLAGS)" in lab_recipe()
    assert make_lab_flags() == [
        f"--LabApp.app_settings_dir={SETTINGS_DIR}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]


def test_the_settings_overrides_are_valid_lab_settings_that_turn_the_news_off():
    overrides = json.loads((SETTINGS_DIR / "overrides.json").read_text(encoding="utf-8"))
    for plugin, values in overrides.items():
        package, name = plugin.split(":")
        schema = json.loads((SCHEMAS / package / f"{name}.json").read_text(encoding="utf-8"))
        assert set(values) <= set(schema["properties"]), plugin
        jsonschema.validate(values, {**schema, "required": []})
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
