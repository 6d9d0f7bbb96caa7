"""The in-memory snapshot of the embedded index: same results as Chroma, used only when it matches."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from knowledge.snapshot import snapshot_path
from knowledge.store import StoreError

QUERIES = [
    ("preemptible instances for training", {}),
    ("抢占式实例适合做训练吗", {"lang": "zh"}),
    ("gn7i A10 memory", {"mode": "dense"}),
    ("KV cache", {"mode": "keyword", "langs": ["en"]}),
]

# Searches the same data dir in a fresh interpreter that cannot import chromadb at all.
_WITHOUT_CHROMA = """
import importlib.abc, json, sys
class _NoChroma(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "chromadb":
            raise ModuleNotFoundError("chromadb blocked by the test", name=name)
sys.meta_path.insert(0, _NoChroma())
from pathlib import Path
from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
data, docs, queries = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
kb = KnowledgeBase(KnowledgeConfig(data_dir=data, docs_dir=docs, embedding="hashing"))
print(json.dumps([[p.chunk_id for p in kb.search(q, k=4, **kw)] for q, kw in queries]))
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    target = tmp_path / "docs"
    shutil.copytree(FIXTURE_DOCS, target)
    return target


def _kb(data: Path, docs: Path) -> KnowledgeBase:
    return KnowledgeBase(KnowledgeConfig(data_dir=data, docs_dir=docs, embedding="hashing"))


def _ids(kb: KnowledgeBase) -> list[list[str]]:
    return [[p.chunk_id for p in kb.search(q, k=4, **kw)] for q, kw in QUERIES]  # type: ignore[arg-type]


def test_a_later_start_searches_the_snapshot_without_chroma_and_finds_the_same(tmp_path: Path, docs: Path) -> None:
    data = tmp_path / "data"
    from_chroma = _ids(_kb(data, docs))
    assert snapshot_path(data, "hashing-256").is_file()
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_CHROMA, str(data), str(docs), json.dumps(QUERIES)],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == from_chroma
    # jieba's dictionary cache lives under the data dir, not the system temp dir.
    assert (data / "cache" / "jieba.cache").is_file()


def test_edited_docs_are_searched_from_the_store_not_the_stale_snapshot(tmp_path: Path, docs: Path) -> None:
    data = tmp_path / "data"
    _ids(_kb(data, docs))
    pricing = docs / "en" / "pricing.md"
    pricing.write_text(pricing.read_text(encoding="utf-8") + "\n## Savings plans\n\nCommit to spend.\n", "utf-8")
    kb = _kb(data, docs)
    report = kb.ensure_index()
    assert (report.added, report.unchanged) == (1, report.chunks - 1)
    assert kb.search("savings plans commit to spend", k=1)[0].chunk_id == "en/pricing#savings-plans"


def test_a_damaged_snapshot_falls_back_to_the_store(tmp_path: Path, docs: Path) -> None:
    data = tmp_path / "data"
    expected = _ids(_kb(data, docs))
    snapshot_path(data, "hashing-256").write_bytes(b"not a numpy file")
    assert _ids(_kb(data, docs)) == expected


def test_a_chroma_server_config_never_reads_a_snapshot(tmp_path: Path, docs: Path) -> None:
    data = tmp_path / "data"
    _ids(_kb(data, docs))
    config = KnowledgeConfig(data_dir=data, docs_dir=docs, embedding="hashing", chroma_host="127.0.0.1", chroma_port=9)
    with pytest.raises(StoreError, match="unset CHROMA_HOST"):
        KnowledgeBase(config).search("KV cache")
