"""The user's data and cache directories of gpu-advisor, where platformdirs puts them.

On Linux, platformdirs follows the XDG base directory specification: ``$XDG_DATA_HOME`` or
``$XDG_CACHE_HOME`` when it is an absolute path, else ``~/.local/share`` or ``~/.cache``, with the app's
name appended. That common case (an absolute ``$HOME``, each variable unset, empty or absolute) is answered
here without importing platformdirs, about 1% of a cold ``gpu-advisor plan``; every other case (macOS,
Windows, Android, a relative home or variable, which platformdirs versions treat differently) is left to
platformdirs itself. tests/test_user_dirs.py holds the two answers side by side.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "gpu-advisor"


def user_data_dir() -> Path:
    """Return the user's data directory of gpu-advisor (platformdirs' ``user_data_dir``)."""
    found = _xdg_dir("XDG_DATA_HOME", "~/.local/share")
    if found is None:
        from platformdirs import user_data_dir as platform_dir

        found = platform_dir(APP_NAME, appauthor=False)
    return Path(found)


def user_cache_dir() -> Path:
    """Return the user's cache directory of gpu-advisor (platformdirs' ``user_cache_dir``)."""
    found = _xdg_dir("XDG_CACHE_HOME", "~/.cache")
    if found is None:
        from platformdirs import user_cache_dir as platform_dir

        found = platform_dir(APP_NAME, appauthor=False)
    return Path(found)


def _xdg_dir(variable: str, default: str) -> str | None:
    # None: not the plain Linux case; platformdirs decides.
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ:
        return None
    if not os.path.isabs(os.environ.get("HOME", "")):
        return None
    base = os.environ.get(variable, "")
    if base and not os.path.isabs(base):
        return None
    return os.path.join(base or os.path.expanduser(default), APP_NAME)
