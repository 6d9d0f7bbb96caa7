"""The data and cache directories are where platformdirs puts them, with or without importing it."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from tools import user_dirs

_CASES = {
    "XDG unset": {},
    "XDG empty": {"XDG_DATA_HOME": "", "XDG_CACHE_HOME": ""},
    "XDG absolute": {"XDG_DATA_HOME": "/srv/data", "XDG_CACHE_HOME": "/srv/cache/"},
    "XDG relative": {"XDG_DATA_HOME": "data", "XDG_CACHE_HOME": "cache"},
    "XDG blank": {"XDG_DATA_HOME": "  ", "XDG_CACHE_HOME": "  "},
    "home is root": {"HOME": "/"},
    "home relative": {"HOME": "home"},
    "home with a trailing slash": {"HOME": "/home/someone/"},
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_each_directory_is_the_one_platformdirs_names(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    for variable in ("XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in _CASES[case].items():
        monkeypatch.setenv(variable, value)
    assert user_dirs.user_data_dir() == Path(platformdirs.user_data_dir("gpu-advisor", appauthor=False))
    assert user_dirs.user_cache_dir() == Path(platformdirs.user_cache_dir("gpu-advisor", appauthor=False))


@pytest.mark.skipif(sys.platform != "linux", reason="the shortcut is Linux's XDG layout")
def test_the_plain_linux_case_is_answered_without_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.setenv("XDG_CACHE_HOME", "/srv/cache")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert user_dirs._xdg_dir("XDG_CACHE_HOME", "~/.cache") == "/srv/cache/gpu-advisor"
    assert user_dirs._xdg_dir("XDG_DATA_HOME", "~/.local/share") == "/home/someone/.local/share/gpu-advisor"
    monkeypatch.setenv("XDG_DATA_HOME", "relative")  # versions of platformdirs disagree here: it decides
    assert user_dirs._xdg_dir("XDG_DATA_HOME", "~/.local/share") is None
