"""Retrieval evaluation: questions with the sections that must come back, and recall/MRR per mode.

Shared by the eval test (``tests/evals``) and ``benchmarks/retrieval_eval.py`` so both count the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge.base import KnowledgeBase
from knowledge.chunking import Chunk
from knowledge.documents import Lang
from knowledge.models import Passage
from knowledge.retrieval import SearchMode


class ExpectedSection(BaseModel):
    """A section that answers the question.

    With ``lang`` unset the section counts in either language: the English and Chinese documents of one
    slug have the same sections in the same order, so the section's translation is accepted too. With
    ``lang`` set only that language's version counts (used for cross-lingual questions).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: str
    section: str
    lang: Lang | None = None


class EvalQuestion(BaseModel):
    """One eval question; retrieving any of ``expected`` counts as a hit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    lang: Lang
    question: str
    expected: list[ExpectedSection] = Field(min_length=1)

    @property
    def cross_lingual(self) -> bool:
        """Whether every acceptable section is in the other language than the question."""
        return all(e.lang is not None and e.lang != self.lang for e in self.expected)

    @property
    def search_langs(self) -> list[Lang] | None:
        """Languages to search: for a cross-lingual question only the answer's language.

        Every guide exists in both languages, so a same-language translation would always be the better
        hit. Searching only the other language simulates a guide that exists in that language alone.
        """
        if not self.cross_lingual:
            return None
        return sorted({e.lang for e in self.expected if e.lang is not None})


class EvalQuestionFile(BaseModel):
    """The YAML file: a list of questions."""

    model_config = ConfigDict(extra="forbid")

    questions: list[EvalQuestion]


class ModeScores(BaseModel):
    """Scores of one search mode over the question set.

    Attributes:
        mode: Search mode.
        questions: Number of questions.
        recall_at_1: Share of questions whose first passage is an expected section.
        recall_at_k: Share with an expected section among the first ``k``.
        mrr: Mean reciprocal rank of the first expected section (0 when not in the first ``k``).
        k: Cut-off used for recall and MRR.
        misses: Ids of questions with no expected section in the first ``k``.
    """

    model_config = ConfigDict(extra="forbid")

    mode: SearchMode
    questions: int
    recall_at_1: float
    recall_at_k: float
    mrr: float
    k: int
    misses: list[str]


def load_questions(path: Path) -> list[EvalQuestion]:
    """Read and validate the question file.

    Raises:
        ValueError: The file is malformed (the message names the file) or ids repeat.
    """
    try:
        parsed = EvalQuestionFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    ids = [q.id for q in parsed.questions]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path}: duplicate question ids")
    return parsed.questions


def accepted_chunk_ids(question: EvalQuestion, chunks: Sequence[Chunk]) -> set[str]:
    """Chunk ids that count as a hit for ``question``.

    Raises:
        ValueError: An expected section does not exist in ``chunks`` (renamed heading, typo).
    """
    by_doc_lang: dict[tuple[str, str], list[Chunk]] = {}
    for chunk in chunks:
        by_doc_lang.setdefault((chunk.doc, chunk.lang), []).append(chunk)
    accepted: set[str] = set()
    for expected in question.expected:
        found = [
            (lang, position)
            for (doc, lang), doc_chunks in by_doc_lang.items()
            if doc == expected.doc
            for position, chunk in enumerate(doc_chunks)
            if chunk.section == expected.section and expected.lang in (None, lang)
        ]
        if not found:
            raise ValueError(f"question {question.id}: no section {expected.section!r} in {expected.doc}")
        for lang, position in found:
            accepted.add(by_doc_lang[(expected.doc, lang)][position].chunk_id)
            if expected.lang is None:
                other = by_doc_lang.get((expected.doc, "zh" if lang == "en" else "en"), [])
                if position < len(other):
                    accepted.add(other[position].chunk_id)
    return accepted


def first_hit_rank(accepted: set[str], passages: Sequence[Passage]) -> int | None:
    """1-based rank of the first passage whose chunk id is in ``accepted``, or ``None``."""
    for rank, passage in enumerate(passages, start=1):
        if passage.chunk_id in accepted:
            return rank
    return None


def evaluate(
    kb: KnowledgeBase,
    questions: Sequence[EvalQuestion],
    mode: SearchMode,
    k: int = 5,
    prefer_question_lang: bool = True,
) -> ModeScores:
    """Run every question through ``kb.search`` and score the ranking.

    Args:
        kb: Knowledge base to query (its index is built if needed).
        questions: The eval set.
        mode: Search mode to score.
        k: Passages retrieved per question.
        prefer_question_lang: Pass the question's language as ``lang``, as the assistant does.
    """
    ranks = [
        first_hit_rank(
            accepted_chunk_ids(q, kb.chunks),
            kb.search(
                q.question,
                k=k,
                lang=q.lang if prefer_question_lang else None,
                mode=mode,
                langs=q.search_langs,
            ),
        )
        for q in questions
    ]
    n = len(questions)
    return ModeScores(
        mode=mode,
        questions=n,
        recall_at_1=sum(r == 1 for r in ranks) / n,
        recall_at_k=sum(r is not None for r in ranks) / n,
        mrr=sum(1.0 / r for r in ranks if r is not None) / n,
        k=k,
        misses=[q.id for q, r in zip(questions, ranks, strict=True) if r is None],
    )
