"""Hybrid retrieval: dense vectors and BM25 fused by reciprocal rank, plus exact-name matching.

A small multilingual embedder blurs names that matter here (``gn7i`` vs ``gn7e``, ``A10`` vs ``A100``), so
three signals are combined:

* dense: cosine similarity of e5 vectors (meaning, across languages);
* keyword: BM25 over jieba/lower-cased tokens (the words actually used);
* exact names: instance types (``ecs.gn8is-2x.8xlarge``), families (``gn7i``, ``ebmgn8v``) and GPU names
  (``L20``, ``H800``) found in the query lift the passages that contain them.

Reciprocal rank fusion (RRF) adds ``weight / (k + rank)`` per ranked list; the name and language bonuses
are expressed in the same unit (a fraction of a first place) so one set of weights works for any corpus.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from knowledge.chunking import Chunk
from knowledge.documents import LANGS, Lang
from knowledge.embeddings import Embedder
from knowledge.keyword import BM25Index, tokenize
from knowledge.models import Passage

SearchMode = Literal["hybrid", "dense", "keyword"]

MAX_EMBED_QUERY_CHARS = 512
"""Longest query text given to the embedder: e5 reads at most 512 tokens anyway, and embedding time
grows with length, so a long question costs no more than a short one."""
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

# GPU names Alibaba Cloud GPU instances carry (see the catalogue), longest first so the alternation
# prefers "A100" over "A10"; the look-arounds stop "A10" matching inside "A100" or "GA10".
GPU_NAMES = tuple("4090 A100 A800 H100 H200 H800 B200 V100 P100 L40S A10 A30 A16 L20 L40 H20 M40 T4 L4 P4".split())
_GPU_RE = re.compile(r"(?<![a-z0-9])(" + "|".join(n.lower() for n in GPU_NAMES) + r")(?![a-z0-9])")
_FAMILY = r"(?:ebm|scc|s|v)?g[ani]\d+[a-z]*(?:-(?:vws|tee))?"
_FAMILY_RE = re.compile(r"(?<![a-z0-9])(" + _FAMILY + r")(?![a-z0-9])")
_INSTANCE_RE = re.compile(
    r"(?<![a-z0-9.])(?:ecs\.([a-z0-9-]+\.\d*x?large)|(" + _FAMILY + r"(?:-[a-z0-9]+)*\.\d*x?large))(?![a-z0-9])"
)


@dataclass(frozen=True)
class Names:
    """Instance types, families and GPU names mentioned in a text (all lower case)."""

    instance_types: frozenset[str]
    families: frozenset[str]
    gpus: frozenset[str]

    def keys(self) -> frozenset[str]:
        """All names, tagged by kind so ``gn7i`` the family never equals a GPU name."""
        return frozenset(
            [f"i:{n}" for n in self.instance_types] + [f"f:{n}" for n in self.families] + [f"g:{n}" for n in self.gpus]
        )


def extract_names(text: str) -> Names:
    """Find instance types, families and GPU names in text.

    An instance type also counts as a mention of its family: ``ecs.gn7i-c8g1.2xlarge`` yields the family
    ``gn7i``. Instance types written without ``ecs.`` are normalised to carry it.
    """
    low = text.lower()
    instances = frozenset("ecs." + (m.group(1) or m.group(2)) for m in _INSTANCE_RE.finditer(low))
    families = {m.group(1) for m in _FAMILY_RE.finditer(low)}
    for instance in instances:
        families.update(m.group(1) for m in _FAMILY_RE.finditer(instance))
    return Names(instances, frozenset(families), frozenset(m.group(1) for m in _GPU_RE.finditer(low)))


class FusionParams(BaseModel):
    """Weights of the hybrid ranking.

    Attributes:
        rrf_k: RRF constant; smaller values favour the first places of each list more.
        dense_weight: Weight of the dense ranking.
        keyword_weight: Weight of the BM25 ranking.
        exact_weight: Bonus, in first places, for a passage that contains every name in the query (scaled
            by the share of names it contains).
        lang_weight: Bonus, in first places, for a passage in the preferred language.
        candidates: How many results each ranker contributes before fusion.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    rrf_k: float = Field(default=20.0, gt=0)
    dense_weight: float = Field(default=1.0, ge=0)
    keyword_weight: float = Field(default=1.0, ge=0)
    exact_weight: float = Field(default=1.0, ge=0)
    lang_weight: float = Field(default=0.5, ge=0)
    candidates: int = Field(default=50, ge=1)


class VectorIndex(Protocol):
    """Nearest chunks by vector: the Chroma store, or its in-memory snapshot."""

    def query(self, vector: np.ndarray, n: int, langs: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Return the ``n`` nearest chunks as ``(chunk_id, cosine similarity)``, best first."""
        ...


class HybridRetriever:
    """Searches a fixed set of chunks; the BM25 index and name sets live in memory."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        store: VectorIndex,
        embedder: Embedder,
        params: FusionParams | None = None,
        tokens: Sequence[list[str]] | None = None,
    ) -> None:
        """Index ``chunks`` for keywords and names; dense vectors come from ``store``.

        Args:
            chunks: The chunks to search.
            store: Their vectors.
            embedder: Embeds queries in the store's vector space.
            params: Fusion weights.
            tokens: ``tokenize(chunk.embed_text)`` of each chunk, when already known (a snapshot).
        """
        self.chunks = list(chunks)
        self.params = params or FusionParams()
        self._store = store
        self._embedder = embedder
        self._by_id = {c.chunk_id: i for i, c in enumerate(self.chunks)}
        self.tokens = list(tokens) if tokens is not None else [tokenize(c.embed_text) for c in self.chunks]
        self._bm25 = BM25Index(self.tokens)
        self._names = [extract_names(c.embed_text).keys() for c in self.chunks]
        self._langs = {lang: np.array([c.lang == lang for c in self.chunks], dtype=bool) for lang in LANGS}

    def term_shares(self, text: str) -> dict[str, float]:
        """Return each search token of ``text`` with the share of chunks that contain it (0.0: none do)."""
        size = max(1, self._bm25.size)
        return {term: self._bm25.document_count(term) / size for term in tokenize(text)}

    def search(
        self,
        query: str,
        k: int = 5,
        lang: Lang | None = None,
        mode: SearchMode = "hybrid",
        langs: Sequence[Lang] | None = None,
    ) -> list[Passage]:
        """Return the ``k`` best passages for ``query``.

        Args:
            query: Question or keywords, Chinese or English.
            k: Number of passages to return.
            lang: Preferred language; passages in it get a bonus but others are not excluded.
            mode: ``hybrid`` (all signals), ``dense`` (vectors only) or ``keyword`` (BM25 only).
            langs: Search only passages in these languages (``None``: all).
        """
        allowed = np.logical_or.reduce([self._langs[x] for x in set(langs)]) if langs else None
        scores = self._fused(query, mode, langs, allowed)
        if lang is not None:
            bonus = self.params.lang_weight / (self.params.rrf_k + 1)
            for index in scores:
                if self.chunks[index].lang == lang:
                    scores[index] += bonus
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [_passage(self.chunks[i], score) for i, score in best]

    def _fused(
        self, query: str, mode: SearchMode, langs: Sequence[Lang] | None, allowed: np.ndarray | None
    ) -> dict[int, float]:
        # RRF over the rankings the mode uses; a single-signal mode is the same formula with one list.
        p = self.params
        scores: dict[int, float] = {}

        def add(ranked: Sequence[int], weight: float) -> None:
            for rank, index in enumerate(ranked, start=1):
                scores[index] = scores.get(index, 0.0) + weight / (p.rrf_k + rank)

        if mode in ("hybrid", "dense"):
            add(self._dense(query, langs), p.dense_weight if mode == "hybrid" else 1.0)
        if mode in ("hybrid", "keyword"):
            ranked = [i for i, _ in self._bm25.top(tokenize(query), p.candidates, allowed)]
            add(ranked, p.keyword_weight if mode == "hybrid" else 1.0)
        if mode == "hybrid":
            first = 1.0 / (p.rrf_k + 1)
            for index, coverage in self._name_matches(query).items():
                if allowed is None or allowed[index]:
                    scores[index] = scores.get(index, 0.0) + p.exact_weight * coverage * first
        return scores

    def _dense(self, query: str, langs: Sequence[Lang] | None) -> list[int]:
        hits = self._store.query(self._embedder.embed_query(embeddable_query(query)), self.params.candidates, langs)
        return [self._by_id[cid] for cid, _ in hits if cid in self._by_id]

    def _name_matches(self, query: str) -> dict[int, float]:
        wanted = extract_names(query).keys()
        if not wanted:
            return {}
        matches: dict[int, float] = {}
        for index, names in enumerate(self._names):
            shared = len(wanted & names)
            if shared:
                matches[index] = shared / len(wanted)
        return matches


def embeddable_query(query: str) -> str:
    """Return the part of ``query`` the embedder sees: lone surrogates replaced, at most ``MAX_EMBED_QUERY_CHARS``."""
    return _LONE_SURROGATE.sub("\ufffd", query[:MAX_EMBED_QUERY_CHARS])


def _passage(chunk: Chunk, score: float) -> Passage:
    return Passage(
        text=chunk.text,
        doc=chunk.doc,
        doc_title=chunk.doc_title,
        section=chunk.section,
        anchor=chunk.anchor,
        lang=chunk.lang,
        sources=list(chunk.sources),
        last_verified=chunk.last_verified,
        score=round(score, 6),
        chunk_id=chunk.chunk_id,
    )
