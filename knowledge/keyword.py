"""Keyword search: a small BM25 over Chinese and English text.

Chinese runs are segmented with jieba (search mode); Latin text is lower-cased and split into words, and a
dotted or hyphenated name such as ``ecs.gn7i-c8g1.2xlarge`` is kept whole *and* split into its parts, so
both the exact name and its family match.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from knowledge.jieba_index import import_jieba, small_tokenizer, write_index

if TYPE_CHECKING:
    import jieba

_TOKEN_RE = re.compile(r"[a-z0-9]+(?:[._\-/][a-z0-9]+)*|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_PART_RE = re.compile(r"[._\-/]")

# Words too common to carry meaning in questions and guides; BM25's IDF discounts them too, but in a
# corpus this small they still add noise.
_STOPWORDS = frozenset(
    """a an and are as at be by can do does for from how i if in is it me my of on or should so that the
    their them then there these this to was what when which who why will with would you your
    的 了 是 吗 呢 吧 啊 和 与 及 或 在 我 我们 你 你们 要 想 请 什么 怎么 怎样 如何 哪个 哪些 多少
    一个 这个 那个 可以 能 会 就 都 也 还 对 把 被 给 用 为 为了 以及 还是 需要""".split()
)

_SMALL_TEXT_CHARS = 200  # Chinese characters up to which a text (a query) is segmented from the on-disk index

# Domain words jieba's general dictionary splits badly.
_EXTRA_WORDS = ("显存", "大模型", "裸金属", "抢占式", "卡数", "多卡", "单卡", "张量并行", "流水线并行")


# Where jieba keeps its prefix-dictionary cache (building it from the word list takes seconds; loading
# it, a fraction). Set from the knowledge config's data dir before the first Chinese text is tokenised.
_dictionary_cache: list[Path] = []


def use_dictionary_cache(directory: Path) -> None:
    """Keep jieba's dictionary cache in ``directory`` (the first call wins; later ones are ignored)."""
    if not _dictionary_cache:
        _dictionary_cache.append(directory)


@functools.cache
def tokenizer_id() -> str:
    """Return an id of the tokeniser's output: jieba's version and our rules (for caches of tokens)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        jieba_version = version("jieba")
    except PackageNotFoundError:
        jieba_version = "?"
    rules = "|".join([jieba_version, _TOKEN_RE.pattern, _PART_RE.pattern, *sorted(_STOPWORDS), *_EXTRA_WORDS])
    return hashlib.sha256(rules.encode()).hexdigest()[:16]


@functools.cache
def _jieba() -> jieba.Tokenizer:
    # Loading the dictionary takes about a second: do it once per process, on first use.
    jieba = import_jieba()
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    if _dictionary_cache:
        try:
            _dictionary_cache[0].mkdir(parents=True, exist_ok=True)
            tokenizer.tmp_dir = str(_dictionary_cache[0])
        except OSError:  # an unwritable data dir: jieba falls back to the system temp dir
            pass
    # The cached dictionary is half a million small objects: the cyclic GC would walk them again and
    # again while they load (a third of the load time) and none of them can form a cycle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        tokenizer.initialize()
    finally:
        if collecting:
            gc.enable()
    for word in _EXTRA_WORDS:
        tokenizer.add_word(word)
    index = _index_path()
    if index is not None and not index.is_file():
        write_index(tokenizer, index)
    return tokenizer


def _index_path() -> Path | None:
    return _dictionary_cache[0] / f"jieba-{tokenizer_id()}.sqlite3" if _dictionary_cache else None


def _segmenter(runs: Sequence[str]) -> jieba.Tokenizer:
    # The full dictionary once it is loaded; until then a short text (a query) uses the on-disk index,
    # which gives the same tokens without loading half a million entries.
    index = _index_path()
    if index is not None and _jieba.cache_info().currsize == 0 and sum(map(len, runs)) <= _SMALL_TEXT_CHARS:
        small = small_tokenizer(index, runs)
        if small is not None:
            return small
    return _jieba()


def has_cjk(text: str) -> bool:
    """Tell whether the text contains a CJK ideograph."""
    return any("\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff" for c in text)


def tokenize(text: str) -> list[str]:
    """Split text into lower-case search tokens, stopwords removed.

    ``"ecs.gn7i-c8g1.2xlarge 显存多少"`` gives ``["ecs.gn7i-c8g1.2xlarge", "ecs", "gn7i", "c8g1",
    "2xlarge", "显存"]``.
    """
    words = [match.group() for match in _TOKEN_RE.finditer(text.lower())]
    runs = [word for word in words if has_cjk(word[0])]
    segmenter = _segmenter(runs) if runs else None
    tokens: list[str] = []
    for word in words:
        if segmenter is not None and has_cjk(word[0]):
            tokens.extend(t for t in segmenter.cut_for_search(word) if t not in _STOPWORDS)
            continue
        if word not in _STOPWORDS:
            tokens.append(word)
        parts = _PART_RE.split(word)
        if len(parts) > 1:
            tokens.extend(p for p in parts if p and p not in _STOPWORDS)
    return tokens


class BM25Index:
    """Okapi BM25 over pre-tokenised documents, held in memory as postings lists.

    Uses the non-negative IDF ``ln(1 + (N - df + 0.5) / (df + 0.5))`` (as Lucene does), so a term that
    occurs in most documents still scores slightly above zero instead of below it.
    """

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        """Index tokenised documents.

        Args:
            documents: One token list per document; positions are the document indices in results.
            k1: Term-frequency saturation.
            b: Length normalisation strength (0 = none, 1 = full).
        """
        self.size = len(documents)
        lengths = np.array([len(doc) for doc in documents], dtype=np.float64)
        avg = float(lengths.mean()) if self.size and lengths.mean() > 0 else 1.0
        norm = k1 * (1.0 - b + b * lengths / avg)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for index, doc in enumerate(documents):
            for term, tf in Counter(doc).items():
                docs, weights = postings.setdefault(term, ([], []))
                docs.append(index)
                weights.append(tf * (k1 + 1.0) / (tf + norm[index]))
        # Arrays are made per term on first use: a query touches a handful of the corpus's thousands of
        # terms, and making them all up front was most of the cost of a cold start's first search.
        self._lists = postings
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def document_count(self, term: str) -> int:
        """Return how many documents contain ``term`` (0: the corpus never uses it)."""
        return len(self._lists[term][0]) if term in self._lists else 0

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query tokens (each distinct token counted once)."""
        out = np.zeros(self.size, dtype=np.float64)
        for term in set(query):
            posting = self._posting(term)
            if posting is not None:
                out[posting[0]] += posting[1]
        return out

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        posting = self._postings.get(term)
        if posting is None and term in self._lists:
            docs, weights = self._lists[term]
            idf = math.log(1.0 + (self.size - len(docs) + 0.5) / (len(docs) + 0.5))
            posting = (np.array(docs, dtype=np.int64), np.array(weights) * idf)
            self._postings[term] = posting  # same value from any thread: no lock needed
        return posting

    def top(self, query: Sequence[str], n: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Return the ``n`` best ``(document index, score)`` pairs with a positive score, best first.

        Args:
            query: Query tokens.
            n: Number of results wanted.
            allowed: Boolean mask over documents; ``False`` entries are never returned.
        """
        scores = self.scores(query)
        if allowed is not None:
            scores[~allowed] = 0.0
        order = np.argsort(-scores, kind="stable")[:n]
        return [(int(i), float(scores[i])) for i in order if scores[i] > 0]
