"""Pure rendering for the web chat: citations, steps, history, chart and table, without any server."""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest

from assistant.answer import Answer, ToolCall
from assistant.render import sources_markdown
from assistant.toolbox import estimate_gpu_memory, plan_gpu_deployment
from knowledge.models import Citation
from tools.catalog import get_gpu
from ui import render_visuals as rv
from ui import render_web as rw


def _cite(n: int, *sources: str) -> Citation:
    return Citation(
        doc=f"doc-{n}",
        doc_title=f"Doc {n}",
        section=f"Section {n}",
        anchor=f"section-{n}",
        lang="en",
        sources=list(sources),
        snippet="...",
    )


CITES = [
    _cite(1, "https://help.aliyun.com/zh/ecs/user-guide/a (b)", "https://www.nvidia.com/en-us/data-center/a100/"),
    _cite(2, "https://docs.vllm.ai/en/latest/"),
]


@functools.cache
def _plan_call() -> ToolCall:
    plan = plan_gpu_deployment(model="Qwen2.5-72B-Instruct", precision="int4", context=32768, concurrency=20)
    return ToolCall(
        name="plan_gpu_deployment", args={"model": "Qwen2.5-72B-Instruct"}, result=plan.model_dump(mode="json")
    )


@functools.cache
def _estimate_call() -> ToolCall:
    est = estimate_gpu_memory(model="Llama-3.1-8B-Instruct", task="lora")
    return ToolCall(
        name="estimate_gpu_memory", args={"model": "Llama-3.1-8B-Instruct"}, result=est.model_dump(mode="json")
    )


def _answer(text: str = "Use gn7i [1].", **kw: Any) -> Answer:
    return Answer(**{"text": text, "language": "en", "engine": "offline", **kw})


# ------------------------------------------------------------------------------------------- citations


def test_markers_become_links_to_the_first_source_with_unsafe_characters_escaped() -> None:
    out = rw.link_citations("A10 has 24 GB [1][2]; see [3].", CITES)
    assert '[[1]](https://help.aliyun.com/zh/ecs/user-guide/a%20%28b%29 "Doc 1 — Section 1 (help.aliyun.com)")' in out
    assert '[[2]](https://docs.vllm.ai/en/latest/ "Doc 2 — Section 2 (docs.vllm.ai)")' in out
    assert "[3]" in out and "[[3]]" not in out  # no such citation: left alone


def test_existing_links_and_reference_definitions_are_left_alone() -> None:
    text = "see [1](https://x.example) and\n[2]: https://y.example"
    assert rw.link_citations(text, CITES) == text


def test_answer_markdown_replaces_the_offline_source_list_with_a_linked_one() -> None:
    plain = sources_markdown(CITES, "en")
    answer = _answer(f"Use gn7i [1] or L20 [2].\n\n{plain}", citations=CITES, warnings=["LLM unavailable"])
    out = rw.answer_markdown(answer)
    assert plain not in out
    assert out.count("**Sources:**") == 1 and "<summary>Sources (2)</summary>" in out
    assert "1. [Doc 1 — Section 1](https://help.aliyun.com/zh/ecs/user-guide/a%20%28b%29 " in out
    assert "[nvidia.com/…/a100](https://www.nvidia.com/en-us/data-center/a100/)" in out
    assert "> ⚠️ **Note:** LLM unavailable" in out


def test_answer_markdown_in_chinese_uses_chinese_labels() -> None:
    answer = Answer(text="用 gn7i [1]。", language="zh", engine="offline", citations=CITES[:1], warnings=["注意"])
    out = rw.answer_markdown(answer)
    assert "**参考资料：**" in out and "**注意:**" in out


def test_plain_text_with_sources_adds_the_list_once() -> None:
    plain = sources_markdown(CITES, "en")
    without = _answer("Use gn7i [1].", citations=CITES)
    assert rw.answer_text_with_sources(without) == f"Use gn7i [1].\n\n{plain}"
    already = _answer(f"Use gn7i [1].\n\n{plain}", citations=CITES)
    assert rw.answer_text_with_sources(already).count("**Sources:**") == 1
    assert rw.answer_text_with_sources(_answer("No sources.")) == "No sources."


# ------------------------------------------------------------------------------------------- steps


def test_tool_step_is_a_collapsible_message_pending_then_done() -> None:
    call = _plan_call()
    pending = rw.tool_step(ToolCall(name=call.name, args=call.args), 0, done=False)
    assert pending["metadata"] == {
        "title": "🔧 plan_gpu_deployment(model=Qwen2.5-72B-Instruct)",
        "status": "pending",
        "id": "tool-0",
    }
    assert "**Result" not in pending["content"]
    done = rw.tool_step(call, 0, done=True, duration_s=0.01234)
    assert done["metadata"]["status"] == "done" and done["metadata"]["duration"] == 0.012
    assert re.search(r"\*\*Result:\*\* 5 option\(s\), \d+ rejected; first: `ecs\.", done["content"])
    assert "more characters)" in done["content"]  # the plan JSON is cut to MAX_RESULT_CHARS


def test_tool_step_shows_the_error_of_a_failed_call() -> None:
    call = ToolCall(name="estimate_gpu_memory", args={"model": "Qwen2.5-70B"}, error="Unknown model 'Qwen2.5-70B'")
    step = rw.tool_step(call, 3, done=True)
    assert "**Error:** Unknown model 'Qwen2.5-70B'" in step["content"]
    assert step["metadata"]["id"] == "tool-3"


def test_long_titles_are_shortened() -> None:
    call = ToolCall(name="search_guidance", args={"query": "x" * 200})
    title = rw.tool_title(call)
    assert len(title) == 90 and title.endswith("…)")


def test_estimate_summary_states_the_tool_total() -> None:
    call = _estimate_call()
    assert rw.result_summary(call) == f"{call.result['per_gpu_total_gib']} GiB per GPU over 1 GPU(s)"


# ------------------------------------------------------------------------------------------- history


GRADIO_HISTORY: list[dict[str, Any]] = [
    {
        "role": "user",
        "metadata": None,
        "content": [{"type": "text", "text": "Qwen2.5-72B, 20 users?"}],
        "options": None,
    },
    {"role": "assistant", "metadata": {"title": "🔧 plan_gpu_deployment(...)", "status": "done"}, "content": "{}"},
    {"role": "assistant", "metadata": None, "content": [{"type": "text", "text": "Use gn7e [1]."}]},
    {"role": "user", "content": "what about INT8?"},
    {"role": "assistant", "metadata": {}, "content": "Then gn8is."},
]


def test_history_drops_tool_steps_and_joins_text_blocks() -> None:
    history = rw.history_from_chat(GRADIO_HISTORY)
    assert [(m.role, m.content) for m in history] == [
        ("user", "Qwen2.5-72B, 20 users?"),
        ("assistant", "Use gn7e [1]."),
        ("user", "what about INT8?"),
        ("assistant", "Then gn8is."),
    ]


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (2, ("Qwen2.5-72B, 20 users?", "Use gn7e [1].")),
        (1, ("Qwen2.5-72B, 20 users?", "Use gn7e [1].")),  # the thumb sat on a tool step of the answer
        (4, ("what about INT8?", "Then gn8is.")),
        (0, None),  # a user message
        (9, None),
    ],
)
def test_liked_exchange_finds_question_and_answer(index: int, expected: tuple[str, str] | None) -> None:
    assert rw.liked_exchange(GRADIO_HISTORY, index) == expected


# ------------------------------------------------------------------------------------------- visuals


def test_memory_bars_follow_the_plan_options_term_by_term() -> None:
    call = _plan_call()
    answer = _answer(tool_calls=[call])
    bars = rv.memory_bars(answer)
    options = call.result["options"]
    assert len(bars) == len(options)
    first, option = bars[0], options[0]
    assert first.capacity_gib == option["per_gpu_capacity_gib"]
    assert first.needed_gib == option["per_gpu_gib_needed"]
    assert {s.term: s.gib for s in first.segments} == {k: v for k, v in option["memory"].items() if v > 0}
    assert first.label.startswith(option["instance_type"])


def test_memory_bars_fall_back_to_the_estimate_without_capacity() -> None:
    bars = rv.memory_bars(_answer(tool_calls=[_estimate_call()]))
    assert len(bars) == 1 and bars[0].capacity_gib is None
    assert [s.term for s in bars[0].segments] == ["weights_gib", "activations_gib", "optimizer_gib", "overhead_gib"]


def test_chart_html_escapes_labels_and_marks_capacity() -> None:
    bar = rv.MemoryBar(
        label="<script>x</script>",
        needed_gib=30.0,
        capacity_gib=40.0,
        headroom_pct=25.0,
        segments=[rv.Segment(term="weights_gib", label="weights", gib=20.0, color="#4e79a7")],
    )
    html = rv.memory_chart_html([bar], "en")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'class="gpa-cap" style="left:100.000%"' in html
    assert "30 / 40 GiB · headroom 25%" in html
    assert rv.memory_chart_html([], "en") == ""


def test_option_rows_carry_price_date_and_source_of_the_plan() -> None:
    call = _plan_call()
    rows = rv.option_rows(_answer(tool_calls=[call]))
    first = call.result["options"][0]
    assert rows[0].instance_type == first["instance_type"]
    assert rows[0].speed == first["decode_tokens_per_s"] and rows[0].speed_kind == "decode_tokens_per_s"
    assert rows[0].price_cny_per_hour == first["price_cny_per_hour"]
    # "cn-shanghai pay-as-you-go list price, CNY, as of 2024-12-30 (...): https://github.com/cloudpilot-ai/..."
    assert rows[0].price_as_of == first["price_as_of"] == "2024-12-30"
    assert rows[0].price_url and rows[0].price_url.startswith("https://github.com/cloudpilot-ai/")


def test_options_table_has_one_row_per_option_short_labels_and_dashes_for_unknown_prices() -> None:
    rows = rv.option_rows(_answer(tool_calls=[_plan_call()]))
    unknown = rows[-1].model_copy(update={"price_cny_per_hour": None, "price_as_of": None, "price_url": None})
    full = rv.options_table_html([*rows, unknown], "en", full=True)
    assert full.count("<tr") == 1 + len(rows) + 1 and 'class="gpa-opts gpa-sortable"' in full
    assert '<th class="gpa-num" data-sort="num" scope="col">¥/h</th>' in full  # units in the headers
    assert f'<a href="{rows[0].price_url}"' in full  # the price date links to its source
    assert full.endswith("—</td></tr></tbody></table></div>")  # no price date known
    compact = rv.options_table_html(rows, "en", full=False)
    assert "data-sort" not in compact and "¥/month" not in compact
    assert rv.options_table_html(rows, "zh", full=False).count("实例规格") == 1 + len(rows)  # header + card labels


def test_inferred_gpus_get_a_short_label_with_the_full_name_and_confidence_in_the_tooltip() -> None:
    call = _plan_call()
    inferred = next(o for o in call.result["options"] if not o["gpu_model"])
    row = next(r for r in rv.option_rows(_answer(tool_calls=[call])) if r.instance_type == inferred["instance_type"])
    assert row.gpu == inferred["gpu_model_likely"].split(" (")[0] + "?"
    assert inferred["gpu_model_likely"] in row.gpu_full and inferred["gpu_confidence"] in row.gpu_full


def test_training_plans_show_hours_instead_of_tokens() -> None:
    plan = plan_gpu_deployment(model="Llama-3.1-8B-Instruct", task="lora", train_tokens=1e8)
    call = ToolCall(name="plan_gpu_deployment", args={}, result=plan.model_dump(mode="json"))
    rows = rv.option_rows(_answer(tool_calls=[call]))
    assert rows[0].speed_kind == "training_hours" and rows[0].speed == plan.options[0].training_hours
    assert ">training h</th>" in rv.options_table_html(rows, "en", full=True)


def test_a_plan_with_options_draws_memory_cost_speed_and_the_full_table_once() -> None:
    html = rv.visuals_html(_answer(tool_calls=[_plan_call()]))
    assert html.count('class="gpa-chart"') == 1 and html.count("gpa-chart gpa-compare") == 1
    assert html.count("<table") == 1 and "Cost and speed per option" in html


def test_a_refusal_draws_what_it_needs_against_what_the_gpu_offers() -> None:
    plan = plan_gpu_deployment(model="Llama-3.1-405B-Instruct", precision="bf16", gpu="A10")
    assert not plan.options
    call = ToolCall(name="plan_gpu_deployment", args={}, result=plan.model_dump(mode="json"))
    bars = rv.refusal_bars(plan)
    assert bars and all(b.needed_gib > b.capacity_gib for b in bars)
    html = rv.visuals_html(_answer(tool_calls=[call]))
    assert "Does not fit" in html and f"needs {bars[0].needed_gib:g} of {bars[0].capacity_gib:g} GiB per GPU" in html


def test_compared_gpus_draw_compute_and_bandwidth_side_by_side() -> None:
    calls = [
        ToolCall(name="gpu_specs", args={"name": n}, result=get_gpu(n).model_dump(mode="json"))
        for n in ("H800", "A100-80GB")
    ]
    answer = _answer(tool_calls=calls)
    assert rv.has_visuals(answer)
    html = rv.visuals_html(answer)
    assert "GPUs compared" in html and "989.5" in html and html.count('class="gpa-pair"') >= 4


def test_the_chat_shows_the_compact_options_table_instead_of_the_markdown_one() -> None:
    call = _plan_call()
    first = call.result["options"][0]["instance_type"]
    text = f"Use `{first}`.\n\n| instance | GPU |\n|---|---|\n| {first} | A100 |\n\nThen more."
    out = rw.answer_markdown(_answer(text, tool_calls=[call]))
    assert out.startswith(rw.ANSWER_START + "Use") and "|---|" not in out
    assert out.count("<table") == 1 and 'class="gpa-opts"' in out and "Then more." in out


def test_urls_the_tools_wrote_become_short_links_and_punctuation_stays_outside() -> None:
    call = _plan_call()
    price_url = rv.option_rows(_answer(tool_calls=[call]))[0].price_url
    assert price_url and price_url.startswith("https://github.com/")
    out = rw.answer_markdown(_answer(f"来源：{price_url}。 and [1]", tool_calls=[call], citations=CITES))
    assert f"[github.com/…/{price_url.rsplit('/', 1)[-1]}]({price_url})。" in out
    assert "%E3%80%82" not in out


def test_answers_without_plan_or_estimate_have_no_visuals() -> None:
    failed = ToolCall(name="plan_gpu_deployment", args={}, error="Unknown model")
    answer = _answer(tool_calls=[failed, ToolCall(name="gpu_specs", args={"name": "A10"}, result={"name": "A10"})])
    assert not rv.has_visuals(answer)
    assert rv.memory_bars(answer) == [] and rv.option_rows(answer) == []


def test_details_are_folded_in_the_chat_and_sections_in_plain_text() -> None:
    from assistant.answer import AnswerDetail

    answer = Answer(
        text="Yes: it fits.",
        language="en",
        engine="offline",
        details=[AnswerDetail(title="Rejected <options>", markdown="- A10: needs 40 of 22 GiB")],
    )
    chat = rw.answer_markdown(answer)
    assert chat.startswith(rw.ANSWER_START + "Yes: it fits.")
    assert rw.message_text(chat).startswith("Yes: it fits.")  # the marker never reaches the history
    assert "<details><summary>Rejected &lt;options&gt;</summary>\n\n- A10: needs 40 of 22 GiB\n\n</details>" in chat
    plain = rw.answer_text_with_sources(answer)
    assert "**Rejected <options>**\n\n- A10: needs 40 of 22 GiB" in plain


def test_cost_speed_chart_leaves_out_a_metric_no_option_has() -> None:
    rows = rv.option_rows(_answer(tool_calls=[_plan_call()]))
    unpriced = [r.model_copy(update={"price_cny_per_hour": None}) for r in rows]
    html = rv.cost_speed_chart_html(unpriced, "en")
    assert "decode tok/s" in html and "¥/h" not in html
    assert "¥/h" in rv.cost_speed_chart_html(rows, "en")
