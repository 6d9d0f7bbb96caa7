"""The on-disk jieba dictionary index segments exactly like the full dictionary (tokens are ranked by BM25,
so any difference would change search results)."""

from __future__ import annotations

import re
from pathlib import Path

from knowledge.documents import load_documents
from knowledge.jieba_index import small_tokenizer, write_index
from knowledge.keyword import _jieba

_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
QUESTIONS = Path(__file__).parent / "evals" / "assistant_questions.yaml"


def _runs() -> list[str]:
    texts = [d.body for d in load_documents() if d.lang == "zh"] + [QUESTIONS.read_text(encoding="utf-8")]
    return sorted({run for text in texts for run in _RUN.findall(text)})


def test_small_tokenizer_segments_like_the_full_dictionary(tmp_path: Path) -> None:
    full = _jieba()
    index = tmp_path / "jieba.sqlite3"
    write_index(full, index)
    runs = _runs()
    assert len(runs) > 500
    small = small_tokenizer(index, runs)  # one tokenizer for many runs, as a query with several runs gets
    assert small is not None and small.total == full.total
    for run in runs:
        assert list(small.cut_for_search(run)) == list(full.cut_for_search(run)), run
        assert list(small.cut(run)) == list(full.cut(run)), run
    for run in runs[:200]:  # one run at a time, the usual query
        alone = small_tokenizer(index, [run])
        assert alone is not None and list(alone.cut_for_search(run)) == list(full.cut_for_search(run)), run


def test_a_missing_or_damaged_index_is_not_used(tmp_path: Path) -> None:
    assert small_tokenizer(tmp_path / "absent.sqlite3", ["显存"]) is None
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"not sqlite")
    assert small_tokenizer(damaged, ["显存"]) is None
