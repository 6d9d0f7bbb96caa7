from __future__ import annotations

from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from knowledge.embeddings import HashingEmbedder
from knowledge.retrieval import FusionParams, extract_names


@pytest.mark.parametrize(
    ("text", "instances", "families", "gpus"),
    [
        ("ecs.gn8is-2x.8xlarge", {"ecs.gn8is-2x.8xlarge"}, {"gn8is"}, set()),
        ("price of gn7i-c8g1.2xlarge?", {"ecs.gn7i-c8g1.2xlarge"}, {"gn7i"}, set()),
        ("GN7I系列用 A10 还是 A100？", set(), {"gn7i"}, {"a10", "a100"}),
        ("ebmgn8v vs sccgn7ex vs gn7e", set(), {"ebmgn8v", "sccgn7ex", "gn7e"}, set()),
        ("sgn7i-vws and gn8v-tee", set(), {"sgn7i-vws", "gn8v-tee"}, set()),
        ("H20, H200, L40S, L4 and RTX 4090", set(), set(), {"h20", "h200", "l40s", "l4", "4090"}),
        ("ecs.h800-cv12xe.24xlarge", {"ecs.h800-cv12xe.24xlarge"}, set(), {"h800"}),
        ("XA10 or A10G is neither", set(), set(), set()),
        ("how much memory for 70B", set(), set(), set()),
    ],
)
def test_extract_names(text: str, instances: set[str], families: set[str], gpus: set[str]) -> None:
    names = extract_names(text)
    assert names.instance_types == instances
    assert names.families == families
    assert names.gpus == gpus


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    config = KnowledgeConfig(data_dir=tmp_path_factory.mktemp("data"), docs_dir=FIXTURE_DOCS)
    base = KnowledgeBase(config, embedder=HashingEmbedder())
    base.build_index()
    return base


def test_passages_carry_citation_fields(kb: KnowledgeBase) -> None:
    top = kb.search("preemptible spot instances", k=2, lang="en")[0]
    assert top.doc == "pricing"
    assert top.section == "Preemptible instances"
    assert top.anchor == "preemptible-instances"
    assert top.sources == [
        "https://www.alibabacloud.com/help/en/ecs/billing-overview",
        "https://www.alibabacloud.com/help/en/ecs/preemptible-instances",
    ]
    cite = top.citation()
    assert cite.path == "en/pricing.md#preemptible-instances"
    assert cite.snippet.startswith("Preemptible (spot) instances cost much less")
    assert cite.sources == top.sources


def test_results_are_sorted_and_limited(kb: KnowledgeBase) -> None:
    for mode in ("hybrid", "dense", "keyword"):
        got = kb.search("GPU memory for weights", k=4, mode=mode)
        assert 0 < len(got) <= 4
        assert [p.score for p in got] == sorted((p.score for p in got), reverse=True)
        assert len({p.chunk_id for p in got}) == len(got)


def test_exact_instance_name_lifts_the_passage_that_contains_it(tmp_path: Path) -> None:
    # Without the name bonus the wording ("how many cards") pulls other sections up; with it the
    # section naming ecs.gn8is-2x.8xlarge wins in both languages.
    config = KnowledgeConfig(data_dir=tmp_path, docs_dir=FIXTURE_DOCS)
    plain = KnowledgeBase(config, embedder=HashingEmbedder(), fusion=FusionParams(exact_weight=0.0))
    boosted = KnowledgeBase(config, embedder=HashingEmbedder())
    query = "how many cards and how much memory per card in ecs.gn8is-2x.8xlarge"
    assert {p.chunk_id for p in boosted.search(query, k=2)} == {
        "en/gpu-families#gn8is-nvidia-l20",
        "zh/gpu-families#gn8isnvidia-l20",
    }
    assert boosted.search(query, k=1)[0].score > plain.search(query, k=1)[0].score


def test_gpu_name_match_distinguishes_a10_from_l20(kb: KnowledgeBase) -> None:
    assert kb.search("L20 显卡有多少显存", k=1)[0].section.startswith("gn8is")
    assert kb.search("A10 显卡有多少显存", k=1)[0].section.startswith("gn7i")


def test_language_preference_orders_translations(kb: KnowledgeBase) -> None:
    query = "gn7i A10"
    assert kb.search(query, k=1, lang="zh")[0].lang == "zh"
    assert kb.search(query, k=1, lang="en")[0].lang == "en"


def test_keyword_mode_finds_chinese_terms(kb: KnowledgeBase) -> None:
    top = kb.search("包年包月和按量付费怎么选", k=1, mode="keyword")[0]
    assert top.chunk_id == "zh/pricing#按量付费与包年包月"


def test_query_with_no_matching_words_still_returns_dense_results(kb: KnowledgeBase) -> None:
    assert kb.search("zzzz qqqq", k=3, mode="keyword") == []
    assert len(kb.search("zzzz qqqq", k=3)) == 3


def test_langs_restricts_every_signal(kb: KnowledgeBase) -> None:
    for mode in ("hybrid", "dense", "keyword"):
        got = kb.search("gn7i A10 抢占式实例 preemptible", k=10, mode=mode, langs=["en"])
        assert got and {p.lang for p in got} == {"en"}
    assert {p.lang for p in kb.search("gn7i A10", k=20, langs=["zh"])} == {"zh"}
