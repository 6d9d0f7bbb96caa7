from __future__ import annotations

from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.base import KnowledgeBase
from knowledge.chunking import chunk_documents
from knowledge.config import KnowledgeConfig
from knowledge.documents import load_documents
from knowledge.embeddings import HashingEmbedder
from knowledge.evaluation import (
    EvalQuestion,
    ExpectedSection,
    accepted_chunk_ids,
    evaluate,
    first_hit_rank,
    load_questions,
)

CHUNKS = chunk_documents(load_documents(FIXTURE_DOCS))


def _q(qid: str, lang: str, text: str, *expected: ExpectedSection) -> EvalQuestion:
    return EvalQuestion(id=qid, lang=lang, question=text, expected=list(expected))  # type: ignore[arg-type]


def test_expected_section_without_lang_accepts_its_translation() -> None:
    q = _q("a", "en", "spot?", ExpectedSection(doc="pricing", section="Preemptible instances"))
    assert accepted_chunk_ids(q, CHUNKS) == {"en/pricing#preemptible-instances", "zh/pricing#抢占式实例"}
    assert not q.cross_lingual and q.search_langs is None


def test_pinned_language_is_cross_lingual_and_searches_that_language_only() -> None:
    q = _q("b", "zh", "抢占式", ExpectedSection(doc="pricing", section="Preemptible instances", lang="en"))
    assert accepted_chunk_ids(q, CHUNKS) == {"en/pricing#preemptible-instances"}
    assert q.cross_lingual and q.search_langs == ["en"]


def test_unknown_section_is_reported() -> None:
    q = _q("c", "en", "x", ExpectedSection(doc="pricing", section="Nope"))
    with pytest.raises(ValueError, match="question c: no section 'Nope' in pricing"):
        accepted_chunk_ids(q, CHUNKS)


def test_first_hit_rank(tmp_path: Path) -> None:
    kb = KnowledgeBase(KnowledgeConfig(data_dir=tmp_path, docs_dir=FIXTURE_DOCS), embedder=HashingEmbedder())
    passages = kb.search("preemptible spot instances", k=3, lang="en")
    assert first_hit_rank({"en/pricing#preemptible-instances"}, passages) == 1
    assert first_hit_rank({"nowhere"}, passages) is None


def test_evaluate_scores_a_tiny_set(tmp_path: Path) -> None:
    kb = KnowledgeBase(KnowledgeConfig(data_dir=tmp_path, docs_dir=FIXTURE_DOCS), embedder=HashingEmbedder())
    questions = [
        _q("p", "en", "preemptible spot instances", ExpectedSection(doc="pricing", section="Preemptible instances")),
        _q("z", "en", "qqqq zzzz", ExpectedSection(doc="pricing", section="Preemptible instances")),
    ]
    scores = evaluate(kb, questions, "keyword", k=5)
    assert (scores.recall_at_1, scores.recall_at_k, scores.mrr) == (0.5, 0.5, 0.5)
    assert scores.misses == ["z"]


def test_load_questions_rejects_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    item = "  - {id: a, lang: en, question: q, expected: [{doc: d, section: s}]}\n"
    path.write_text("questions:\n" + item + item, encoding="utf-8")
    with pytest.raises(ValueError, match="duplicate question ids"):
        load_questions(path)
