"""Rendering: pure functions of tool results and passages, numbers exactly as the tools gave them."""

from __future__ import annotations

import functools

import pytest

from assistant import render, render_tables
from assistant.guards import Evidence, ungrounded_numbers
from assistant.toolbox import gpu_specs, plan_gpu_deployment
from knowledge.models import Passage
from tools.plan import Plan


@functools.cache
def _plan() -> Plan:
    return plan_gpu_deployment("Qwen2.5-7B-Instruct", concurrency=8)


def _passage(text: str, lang: str = "en") -> Passage:
    return Passage(
        text=text,
        doc="memory-sizing",
        doc_title="GPU memory sizing",
        section="Weights",
        anchor="weights",
        lang=lang,
        sources=["https://example.org/a"],
        last_verified="2026-11-30",
        score=1.0,
        chunk_id=f"{lang}/memory-sizing#weights",
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [(16676.0, "16,676"), (9.53, "9.53"), (4575.66, "4575.66"), (48, "48"), (133408.0, "133,408"), (None, "n/a")],
)
def test_num_keeps_the_tools_precision(value: float | None, shown: str) -> None:
    assert render.num(value) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (19.958, "19.96"),
        (9.53, "9.53"),
        (4575.66, "4575.66"),
        (233118.64, "233,118.64"),
        (16676.0, "16,676"),
        (40.0, "40"),
        (0.004, "0.004"),
        (None, "n/a"),
    ],
)
def test_fig_shows_at_most_two_decimals(value: float | None, shown: str) -> None:
    assert render.fig(value) == shown
    if value is not None:  # still grounded in the tool's own value at the displayed precision
        assert ungrounded_numbers(shown, Evidence(payloads=[{"v": value}])) == []


def test_nothing_fits_on_a_requested_gpu_names_that_gpu() -> None:
    plan = _plan()
    restricted = plan.model_copy(update={"options": [], "workload": plan.workload.model_copy(update={"gpu": "A10"})})
    assert "No A10 instance type fits" in render.plan_markdown(restricted, "en")
    assert "没有能放下的 A10 规格" in render.plan_markdown(restricted, "zh")


@pytest.mark.parametrize(
    ("basis", "zh", "en"),
    [
        ("monthly subscription", "包月价", "monthly subscription"),
        ("pay-as-you-go x 730 h/month", "按量价 × 730 小时/月，非包月价", "730 h of pay-as-you-go, not a subscription"),
    ],
)
def test_price_basis_is_translated_in_chinese(basis: str, zh: str, en: str) -> None:
    assert render.basis_label(basis, "zh") == zh and render.basis_label(basis, "en") == en


def test_price_source_prefix_is_translated_in_chinese() -> None:
    source = "cn-shanghai list price, CNY, as of 2023-06: https://example.org/p"
    link = "[example.org](https://example.org/p)"
    assert render.source_label(source, "zh") == f"cn-shanghai 目录价，CNY，截至 2023-06：{link}"
    assert render.source_label(source, "en") == f"cn-shanghai list price, CNY, as of 2023-06: {link}"


def test_a_url_becomes_a_link_that_stops_at_cjk_punctuation() -> None:
    assert render.link_urls("见 https://a.org/x，然后") == "见 [a.org](https://a.org/x)，然后"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_plan_markdown_is_grounded_in_the_plan(lang: str) -> None:
    plan = _plan()
    text = render.plan_markdown(plan, lang)  # type: ignore[arg-type]
    assert ungrounded_numbers(text, Evidence(payloads=[plan.model_dump(mode="json")])) == []
    assert text.count("\n| ") == len(plan.options) + 1  # header + one row per option
    assert f"`{plan.options[0].instance_type}`" in text


def test_tight_fits_are_flagged_in_the_table() -> None:
    plan = _plan()
    tight = plan.model_copy(update={"options": [plan.options[0].model_copy(update={"tight_fit": True})]})
    assert "⚠ tight" in render.options_table(tight, "en")
    assert "⚠ 偏紧" in render.options_table(tight, "zh")
    assert "tight fit" in render.plan_summary(tight, "en")


def test_an_unpriced_option_says_price_unknown() -> None:
    plan = _plan()
    top = plan.options[0].model_copy(update={"price_cny_per_hour": None, "price_cny_per_month": None})
    unpriced = plan.model_copy(update={"options": [top]})
    assert "price unknown" in render.plan_summary(unpriced, "en")
    assert "价格未知" in render.plan_summary(unpriced, "zh")


def test_nothing_fits_says_so() -> None:
    plan = _plan().model_copy(update={"options": []})
    assert "Nothing fits" in render.plan_markdown(plan, "en")


def test_rejections_list_the_named_gpu_first() -> None:
    plan = plan_gpu_deployment("Qwen2.5-72B-Instruct", precision="int4", quant="awq-int4", context=32768)
    shown = {o.family for o in plan.options}
    unpublished = ("reject.gpu_count_unknown", "reject.gpu_unknown")
    last = [r.family for r in plan.rejected if r.family not in shown and r.reason.code not in unpublished][-1]
    lines = render.rejection_summary(plan, "en", prefer=[last])
    assert lines[0].startswith(f"**{last}**")


def test_gpu_specs_table_skips_rows_unknown_for_every_gpu() -> None:
    text = render_tables.gpu_specs_table([gpu_specs("A10"), gpu_specs("L20")], "en")
    assert "| memory (GB) | 24 | 48 |" in text and "FP4" not in text


def test_sentences_drop_tables_and_the_documents_own_markers() -> None:
    text = "Weights take 2 bytes per parameter [1][4]. A 7B model needs 14 GB [2].\n\n| a | b |\n|---|---|"
    assert render.sentences(text) == ["Weights take 2 bytes per parameter.", "A 7B model needs 14 GB."]


def test_chinese_sentences_split_on_full_stops() -> None:
    assert render.sentences("权重按每参数 2 字节计算 [1]。KV cache 随上下文增长。") == [
        "权重按每参数 2 字节计算。",
        "KV cache 随上下文增长。",
    ]


def test_a_corrections_claim_is_never_quoted() -> None:
    passage = _passage("**Claim in the article:** gn7i has an A100. **Correct fact:** gn7i has the A10 24 GB.")
    assert render.key_sentences(passage, "gn7i A100") == ["**Correct fact:** gn7i has the A10 24 GB."]


def test_quote_ends_with_the_answers_citation_number() -> None:
    passage = _passage("Weights take 2 bytes per parameter in BF16 [3]. Unrelated words here follow.")
    quoted = render.quote(passage, 2, "BF16 weights bytes", "en", limit=1)
    assert quoted == "> *Weights*: Weights take 2 bytes per parameter in BF16. [2]"


def test_sources_are_numbered_in_order() -> None:
    text = render.sources_markdown([_passage("x " * 10).citation(), _passage("y " * 10, "zh").citation()], "en")
    assert text.splitlines()[1].startswith("[1] GPU memory sizing — Weights (`en/memory-sizing.md#weights`)")
    assert text.splitlines()[2].startswith("[2] ")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_scope_statement_has_no_numbers(lang: str) -> None:
    assert ungrounded_numbers(render.scope_statement(lang), Evidence()) == []  # type: ignore[arg-type]


def test_the_inferred_gpu_warning_folds_when_every_row_shown_is_named() -> None:
    from assistant.render_brief import plan_brief

    plan = plan_gpu_deployment("Qwen2.5-7B-Instruct", qps=1.85)
    assert any(w.code == "plan.gpu_inferred" for w in plan.warnings)  # an H20 (gn8v) option ranks below the A10s
    assert all(o.gpu_confidence == "official" for o in plan.options[:3])
    parts, details = plan_brief(plan, "en")
    warning = "the GPU shown is inferred"
    assert not any(warning in part for part in parts)
    assert any(warning in d.markdown for d in details)  # still said, with the assumptions
    inferred = plan_gpu_deployment("Qwen2.5-7B-Instruct", qps=1.85, gpu="H20")
    assert any(warning in part for part in plan_brief(inferred, "en")[0])
