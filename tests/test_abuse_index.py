"""A corrupt or missing index file heals itself: rebuilt in a new directory, swapped in, searches cite again."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig

pytestmark = pytest.mark.slow


def _kb(data_dir: Path) -> KnowledgeBase:
    return KnowledgeBase(KnowledgeConfig(data_dir=data_dir, embedding="hashing"))


@pytest.mark.parametrize("damage", ["garbage", "empty", "deleted"])
def test_a_damaged_index_is_rebuilt_on_open(tmp_path: Path, damage: str) -> None:
    _kb(tmp_path).ensure_index()
    database = tmp_path / "chroma" / "chroma.sqlite3"
    match damage:
        case "garbage":
            database.write_bytes(b"not a database " * 512)
        case "empty":
            database.write_bytes(b"")
        case "deleted":
            database.unlink()
    healed = _kb(tmp_path)
    assert healed.health() is None
    assert healed.search("A100 80GB", k=1)[0].sources
    # No rebuild or broken copies left (cache/ holds the search snapshot and tokenizer index of issue 14).
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["chroma"]


def test_an_index_damaged_while_serving_is_rebuilt_on_the_next_search(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    kb.ensure_index()
    (tmp_path / "chroma" / "chroma.sqlite3").write_bytes(b"")
    assert kb.search("H800 vs A100", k=1)[0].sources
    assert kb.health() is None
