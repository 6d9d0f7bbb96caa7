"""Guidance, catalog and comparison questions, and the original article's errors corrected with citations."""

from __future__ import annotations

import pytest
from engine_helpers import shared_engine, ungrounded

from assistant.answer import Answer


def _docs(answer: Answer) -> set[str]:
    return {c.doc for c in answer.citations}


def _called(answer: Answer) -> list[tuple[str, dict[str, object]]]:
    return [(c.name, c.args) for c in answer.tool_calls]


@pytest.mark.parametrize(
    ("question", "must_say", "lang"),
    [
        ("gn7i 是 A100 吗", ["**不是。**", "A10"], "zh"),
        ("Is gn7i an A100 family?", ["**No.**", "A10", "gn7e"], "en"),
        ("gn7e 是 A10 吗", ["**不是。**", "A100-80GB"], "zh"),
    ],
)
def test_family_gpu_claims_are_checked_against_the_catalog(question: str, must_say: list[str], lang: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.language == lang
    for phrase in must_say:
        assert phrase in answer.text
    assert any(name == "find_instance_types" and "family" in args for name, args in _called(answer))
    assert _docs(answer) & {"original-article-corrections", "instance-families"}
    assert ungrounded(answer, question) == []


def test_a_true_claim_is_confirmed() -> None:
    answer = shared_engine().answer("gn8is 是 L20 吗")
    assert "**是的。**" in answer.text


def test_h800_is_not_slower_than_a100() -> None:
    question = "H800 比 A100 慢吗"
    answer = shared_engine().answer(question)
    assert [n for n, _ in _called(answer)].count("gpu_specs") >= 2
    assert "**H800 更高**" in answer.text and "989.5" in answer.text and "312" in answer.text
    assert "A100-80GB" in " ".join(answer.warnings)  # the ambiguous "A100" is resolved, and that is said
    assert _docs(answer) & {"gpu-specs-comparison", "original-article-corrections"}
    assert ungrounded(answer, question) == []


def test_comparison_in_english() -> None:
    answer = shared_engine().answer("H20 vs L20 for LLM serving")
    assert answer.language == "en" and "| H20 | L20 |" in answer.text
    assert "Memory bandwidth (decode speed): **H20 is higher**" in answer.text


@pytest.mark.parametrize(
    ("question", "real"),
    [
        ("ecs.gn7e-c32g1.8xlarge 是 A10 实例吗", "ecs.gn7i-c32g1.8xlarge"),
        ("Is ecs.ebmgn7i.24xlarge an A100 80G instance?", "ecs.ebmgn7i.32xlarge"),
        ("ecs.l20-c32g1.8xlarge 是什么", "ecs.gn8is"),
    ],
)
def test_made_up_instance_types_are_called_out_with_the_real_ones(question: str, real: str) -> None:
    answer = shared_engine().answer(question)
    assert "不存在" in answer.text or "does not exist" in answer.text
    assert real in answer.text
    assert "original-article-corrections" in _docs(answer)
    assert ungrounded(answer, question) == []


def test_no_ecs_type_has_an_h800() -> None:
    answer = shared_engine().answer("ecs.h800-cv12xe.24xlarge 存在吗")
    assert "目录中没有任何 ECS 规格使用 H800" in answer.text


def test_an_existing_instance_type_is_described() -> None:
    answer = shared_engine().answer("Tell me about ecs.gn8is-2x.8xlarge instance type")
    assert "`ecs.gn8is-2x.8xlarge` exists: 2 × L20" in answer.text


def test_avx512_is_a_cpu_feature() -> None:
    answer = shared_engine().answer("A10 支持 AVX512 吗")
    assert "CPU" in answer.text and answer.citations
    assert ungrounded(answer, "A10 支持 AVX512 吗") == []


def test_a100_312_tflops_needs_the_dense_qualifier() -> None:
    answer = shared_engine().answer("A100 FP16 312 TFLOPS 对吗")
    assert "312" in answer.text and ("稠密" in answer.text or "DENSE" in answer.text)


def test_what_is_a_family_quotes_the_guidance_and_lists_its_types() -> None:
    question = "what is gn7i?"
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and "A10" in answer.text and "`ecs.gn7i-c8g1.2xlarge`" in answer.text
    assert "[1]" in answer.text and answer.citations[0].doc in {"instance-families", "original-article-corrections"}
    assert ungrounded(answer, question) == []


def test_guidance_quotes_carry_our_citation_numbers_not_the_documents() -> None:
    answer = shared_engine().answer("AWQ 和 GPTQ 有什么区别")
    quotes = [line for line in answer.text.splitlines() if line.startswith("> ")]
    assert quotes and all(line.rstrip().endswith(("[1]", "[2]")) for line in quotes)
    assert len(answer.citations) == len(quotes)


def test_instances_by_gpu() -> None:
    answer = shared_engine().answer("L20 有哪些实例")
    assert ("find_instance_types", {"gpu": "L20"}) in _called(answer)
    assert "`ecs.gn8is-2x.8xlarge`" in answer.text


def test_gpu_specs_table() -> None:
    answer = shared_engine().answer("What are the specs of the L20?")
    assert ("gpu_specs", {"name": "L20"}) in _called(answer)
    assert "| memory (GB) | 48 |" in answer.text


def test_two_families_are_compared_through_their_gpus() -> None:
    answer = shared_engine().answer("gn7i 和 gn7e 有什么区别")
    assert "gn7i → A10" in answer.text and "| A10 | A100-80GB |" in answer.text
    assert "显存带宽（解码速度）：**A100-80GB 更高**" in answer.text


def test_precision_support_is_answered_from_the_spec_row() -> None:
    answer = shared_engine().answer("V100 能跑 bf16 吗")
    assert answer.text.startswith("**不支持。**") and "V100-16GB" in answer.text


def test_a_gpu_no_instance_has_is_said_plainly() -> None:
    answer = shared_engine().answer("RTX 4090 能跑 Qwen2.5-32B 吗")
    assert "目录中没有带 RTX-4090 的阿里云实例规格" in answer.text and "not the requested" not in answer.text
    # planned on what the catalog offers
    assert any(c.name == "plan_gpu_deployment" and "gpu" not in c.args for c in answer.tool_calls)
