"""jieba's dictionary as an on-disk index, so a short Chinese query does not load all of it.

jieba segments a text with only the dictionary entries that are substrings of that text: building the
DAG, scoring routes, the HMM fallback and search mode's 2- and 3-grams all look up substrings, plus the
dictionary's total frequency. Loading the whole dictionary means unmarshalling half a million entries,
about a second of a two-core machine on every cold start. So once the full dictionary is loaded (the
first index build loads it), its entries and total are written to SQLite under the data dir, and a
short text is segmented by a tokenizer holding only the entries of its own substrings, with the same
total: the same tokens, in milliseconds. ``tests/test_knowledge_jieba_index.py`` checks the equality.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jieba

log = logging.getLogger(__name__)

_BATCH = 500  # host parameters per query, well under SQLite's limit


def write_index(tokenizer: jieba.Tokenizer, path: Path) -> None:
    """Write the loaded ``tokenizer``'s dictionary (entries, total, longest entry) to ``path`` atomically."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, suffix=".sqlite3")
        os.close(handle)
        with closing(sqlite3.connect(temp)) as db:
            db.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, freq INTEGER NOT NULL) WITHOUT ROWID")
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            db.executemany("INSERT INTO freq VALUES (?, ?)", tokenizer.FREQ.items())
            longest = max(map(len, tokenizer.FREQ), default=1)
            db.executemany("INSERT INTO meta VALUES (?, ?)", [("total", tokenizer.total), ("longest", longest)])
            db.commit()
        os.replace(temp, path)
    except (OSError, sqlite3.Error) as exc:  # only costs speed: queries then load the full dictionary
        log.warning("could not write the jieba dictionary index %s: %s", path, exc)


def small_tokenizer(path: Path, texts: Sequence[str]) -> jieba.Tokenizer | None:
    """Return a tokenizer that segments ``texts`` exactly like the full one; None without a readable index."""
    if not path.is_file():
        return None
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            meta = dict(db.execute("SELECT key, value FROM meta"))
            pieces = sorted(set().union(*(_substrings(t, int(meta["longest"])) for t in texts)))
            freq: dict[str, int] = {}
            for first in range(0, len(pieces), _BATCH):
                batch = pieces[first : first + _BATCH]
                marks = ",".join("?" * len(batch))
                freq.update(db.execute(f"SELECT word, freq FROM freq WHERE word IN ({marks})", batch))  # noqa: S608
    except (sqlite3.Error, KeyError, ValueError) as exc:
        log.warning("ignoring the jieba dictionary index %s: %s", path, exc)
        return None
    tokenizer = import_jieba().Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = freq, int(meta["total"]), True
    return tokenizer


def import_jieba() -> ModuleType:
    """Import jieba without pkg_resources.

    jieba reads its data files through pkg_resources when that imports, else with ``open()``; importing
    pkg_resources (setuptools) costs a quarter of a second and warns that it is deprecated. It is hidden
    for jieba's import only, unless something already loaded it.
    """
    if "jieba" in sys.modules or "pkg_resources" in sys.modules:
        import jieba

        return jieba
    sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # makes `import pkg_resources` fail
    try:
        import jieba
    finally:
        del sys.modules["pkg_resources"]
    return jieba


def _substrings(text: str, longest: int) -> set[str]:
    return {text[i : i + n] for i in range(len(text)) for n in range(1, min(longest, len(text) - i) + 1)}
