"""A per-user cache of the validated catalogs, so a new process skips parsing and validating data files.

Reading ``models.yaml``, ``gpus.yaml``, ``instances.csv``, ``prices.csv`` and ``media_models.yaml`` and
validating every row takes about 0.1 s, a fifth of a cold ``gpu-advisor plan``. The validated objects are
pickled under the user's cache directory (:mod:`tools.user_dirs`) and read back in a few milliseconds.

A cache file is used only when its key matches: a hash of the data files' sizes, modification times and
contents (CRC-32), of the size and modification time of every module under ``tools/`` (the validators and
the classes of the cached objects, so an upgrade or an edit invalidates it) and of the Python and pydantic
versions. Files are written to a temporary name and renamed, so a reader sees a whole file or none; a file
that cannot be read back (truncated, damaged, from another version) is ignored and rewritten. A cache
directory that cannot be written only costs the speed.

The directory belongs to the user running the tools (as their site-packages do): a cache file is trusted
like code, and created readable by its owner only.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar, cast

_T = TypeVar("_T")
_FORMAT = b"gpu-advisor catalog cache 1\n"
_TOOLS_DIR = Path(__file__).parent
_UNSET = object()
_cache_dir: object = _UNSET


def set_cache_dir(path: Path | None) -> None:
    """Keep cache files in ``path`` (created on first write); None turns the cache off."""
    global _cache_dir
    _cache_dir = path


def cache_dir() -> Path | None:
    """Return the directory in use: the one set with :func:`set_cache_dir`, else the user's cache directory."""
    if _cache_dir is _UNSET:
        from tools.user_dirs import user_cache_dir

        return user_cache_dir() / "catalogs"
    return _cache_dir if isinstance(_cache_dir, Path) else None


def cached(name: str, sources: Sequence[Path], build: Callable[[], _T]) -> _T:
    """Return ``build()``, read from the cache file ``name`` when it was built from the same ``sources``.

    Args:
        name: file name of this entry (one per catalog), e.g. ``"instances"``.
        sources: the data files ``build`` reads; any change to their contents rebuilds the entry.
        build: reads and validates the files; its errors (a malformed data file) propagate unchanged.
    """
    folder = cache_dir()
    if folder is None:
        return build()
    try:
        key = _key(sources)
    except OSError:  # a missing data file: let build() raise its own, specific error
        return build()
    path = folder / f"{name}-{_install_id()}.pickle"
    found = _read(path, key)
    if found is not None:
        return cast(_T, found[0])
    value = build()
    _write(path, key, value)
    return value


def _key(sources: Sequence[Path]) -> bytes:
    digest = hashlib.blake2b(_code_digest(), digest_size=20)
    for source in sources:
        # Size and modification time catch every edit in practice; the CRC of the contents also catches
        # one that kept both. A CRC reads prices.csv (0.5 MB) in a third of a hash's time.
        data = source.read_bytes()
        digest.update(f"{source.name} {len(data)} {source.stat().st_mtime_ns} {zlib.crc32(data)}\n".encode())
    return digest.hexdigest().encode()


@functools.cache
def _install_id() -> str:
    # One file per installation: two checkouts or virtual environments of different versions used in
    # turn would otherwise overwrite each other's file on every start.
    return hashlib.blake2b(str(_TOOLS_DIR.resolve()).encode(), digest_size=6).hexdigest()


@functools.cache
def _code_digest() -> bytes:
    import pydantic

    digest = hashlib.blake2b(digest_size=20)
    digest.update(f"{sys.version_info[:3]} pydantic {pydantic.VERSION}\n".encode())
    # os.scandir, not Path.glob: the same names, without a Path and a pattern match each (~0.3% of a cold plan).
    with os.scandir(_TOOLS_DIR) as entries:
        modules = sorted((entry.name, entry) for entry in entries if entry.name.endswith(".py"))
    for name, entry in modules:
        # Size and modification time: any edit, checkout or upgrade changes them, and a stat costs less
        # than reading 400 kB of source on every start.
        info = entry.stat()
        digest.update(f"{name} {info.st_size} {info.st_mtime_ns}\n".encode())
    return digest.digest()


def _debug(message: str, *args: object) -> None:
    # Imported only with something to say: a start that reads its caches logs nothing (logging is ~1% of it).
    import logging

    logging.getLogger(__name__).debug(message, *args)


def _read(path: Path, key: bytes) -> tuple[object] | None:
    """Return the cached value in a one-item tuple (a cached value may itself be None); None on any miss."""
    try:
        with path.open("rb") as fh:
            if fh.readline() != _FORMAT or fh.readline().rstrip(b"\n") != key:
                return None
            return (pickle.load(fh),)
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - damaged or foreign file: rebuild it
        _debug("ignoring unreadable cache file %s: %s", path, exc)
        return None


def _write(path: Path, key: bytes, value: object) -> None:
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_FORMAT + key + b"\n")
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        tmp = None
    except Exception as exc:  # noqa: BLE001 - a read-only or full disk only costs the speed-up
        _debug("cannot write cache file %s: %s", path, exc)
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
