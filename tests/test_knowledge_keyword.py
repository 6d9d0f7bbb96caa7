from __future__ import annotations

import math

import pytest

from knowledge.keyword import BM25Index, has_cjk, tokenize


def test_english_is_lower_cased_and_stopwords_dropped() -> None:
    assert tokenize("What is the KV Cache of Qwen2.5-72B?") == [
        "kv",
        "cache",
        "qwen2.5-72b",
        "qwen2",
        "5",
        "72b",
    ]


def test_instance_type_kept_whole_and_split_into_parts() -> None:
    assert tokenize("ecs.gn7i-c8g1.2xlarge") == ["ecs.gn7i-c8g1.2xlarge", "ecs", "gn7i", "c8g1", "2xlarge"]


def test_chinese_is_segmented_with_jieba() -> None:
    tokens = tokenize("推理70B大模型需要多少显存")
    assert "推理" in tokens and "显存" in tokens and "70b" in tokens
    assert "需要" not in tokens  # stopword


def test_mixed_text() -> None:
    tokens = tokenize("gn8is 的 L20 显卡")
    assert tokens == ["gn8is", "l20", "显卡"]


def test_has_cjk() -> None:
    assert has_cjk("L20 显卡") and not has_cjk("L20 GPU")


def test_bm25_matches_hand_computed_score() -> None:
    docs = [["gpu", "memory", "memory"], ["price", "hour"], ["gpu", "price"]]
    index = BM25Index(docs, k1=1.2, b=0.75)
    avgdl = 7 / 3
    idf_memory = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    tf = 2
    expected = idf_memory * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * 3 / avgdl))
    assert index.scores(["memory"])[0] == pytest.approx(expected, rel=1e-12)
    assert index.scores(["memory"])[1:].tolist() == [0.0, 0.0]


def test_bm25_ranks_rarer_matching_terms_first_and_skips_non_matches() -> None:
    docs = [tokenize(t) for t in ["A10 GPU price", "L20 GPU memory", "GPU GPU GPU", "包年包月 价格"]]
    index = BM25Index(docs)
    top = index.top(tokenize("L20 GPU"), 10)
    assert top[0][0] == 1
    assert 3 not in [i for i, _ in top]
    assert index.top(tokenize("包年包月"), 2)[0][0] == 3


def test_bm25_empty_corpus_and_unknown_terms() -> None:
    assert BM25Index([]).top(["x"], 3) == []
    assert BM25Index([["a"]]).top(["zzz"], 3) == []
