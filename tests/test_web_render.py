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
    assert "[[1]](https://help.aliyun.com/zh/ecs/user-guide/a%20%28b%29)" in out
    assert "[[2]](https://docs.vllm.ai/en/latest/)" in out
    assert "[3]" in out and "[[3]]" not in out  # no such citation: left alone


def test_existing_links_and_reference_definitions_are_left_alone() -> None:
    text = "see [1](https://x.example) and\n[2]: https://y.example"
    assert rw.link_citations(text, CITES) == text


def test_answer_markdown_replaces_the_offline_source_list_with_a_linked_one() -> None:
    plain = sources_markdown(CITES, "en")
    answer = _answer(f"Use gn7i [1] or L20 [2].\n\n{plain}", citations=CITES, warnings=["LLM unavailable"])
    out = rw.answer_markdown(answer)
    assert plain not in out
    assert out.count("**Sources:**") == 1
    assert "1. [Doc 1 — Section 1](https://help.aliyun.com/zh/ecs/user-guide/a%20%28b%29)" in out
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
    bars = rw.memory_bars(answer)
    options = call.result["options"]
    assert len(bars) == len(options)
    first, option = bars[0], options[0]
    assert first.capacity_gib == option["per_gpu_capacity_gib"]
    assert first.needed_gib == option["per_gpu_gib_needed"]
    assert {s.term: s.gib for s in first.segments} == {k: v for k, v in option["memory"].items() if v > 0}
    assert first.label.startswith(option["instance_type"])


def test_memory_bars_fall_back_to_the_estimate_without_capacity() -> None:
    bars = rw.memory_bars(_answer(tool_calls=[_estimate_call()]))
    assert len(bars) == 1 and bars[0].capacity_gib is None
    assert [s.term for s in bars[0].segments] == ["weights_gib", "activations_gib", "optimizer_gib", "overhead_gib"]


def test_chart_html_escapes_labels_and_marks_capacity() -> None:
    bar = rw.MemoryBar(
        label="<script>x</script>",
        needed_gib=30.0,
        capacity_gib=40.0,
        headroom_pct=25.0,
        segments=[rw.Segment(term="weights_gib", label="weights", gib=20.0, color="#4e79a7")],
    )
    html = rw.memory_chart_html([bar], "en")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'class="gpa-cap" style="left:100.000%"' in html
    assert "30 / 40 GiB · headroom 25%" in html
    assert rw.memory_chart_html([], "en") == ""


def test_option_rows_carry_price_date_and_source_of_the_plan() -> None:
    call = _plan_call()
    rows = rw.option_rows(_answer(tool_calls=[call]))
    first = call.result["options"][0]
    assert rows[0].instance_type == first["instance_type"]
    assert rows[0].speed == first["decode_tokens_per_s"] and rows[0].speed_kind == "decode_tokens_per_s"
    assert rows[0].price_cny_per_hour == first["price_cny_per_hour"]
    # "cn-shanghai pay-as-you-go list price, CNY, as of 2024-12-30 (...): https://github.com/cloudpilot-ai/..."
    assert rows[0].price_as_of == first["price_as_of"] == "2024-12-30"
    assert rows[0].price_url and rows[0].price_url.startswith("https://github.com/cloudpilot-ai/")


def test_options_table_has_one_row_per_option_and_dashes_for_unknown_prices() -> None:
    rows = rw.option_rows(_answer(tool_calls=[_plan_call()]))
    unknown = rows[-1].model_copy(update={"price_cny_per_hour": None, "price_as_of": None, "price_url": None})
    table = rw.options_table_markdown([*rows, unknown], "en")
    lines = table.splitlines()
    assert lines[0] == "**Options compared**"
    assert lines[2].startswith("| instance | GPU | instances × GPUs | headroom | decode tok/s |")
    assert len(lines) == 4 + len(rows) + 1
    assert f"[2024-12-30]({rows[0].price_url})" in lines[4]
    assert lines[-1].endswith("| — |")
    assert rw.options_table_markdown(rows, "zh").startswith("**方案对比**")


def test_training_plans_show_hours_instead_of_tokens() -> None:
    plan = plan_gpu_deployment(model="Llama-3.1-8B-Instruct", task="lora", train_tokens=1e8)
    call = ToolCall(name="plan_gpu_deployment", args={}, result=plan.model_dump(mode="json"))
    rows = rw.option_rows(_answer(tool_calls=[call]))
    assert rows[0].speed_kind == "training_hours" and rows[0].speed == plan.options[0].training_hours
    assert "| training (h) |" in rw.options_table_markdown(rows, "en")


def test_answers_without_plan_or_estimate_have_no_visuals() -> None:
    failed = ToolCall(name="plan_gpu_deployment", args={}, error="Unknown model")
    answer = _answer(tool_calls=[failed, ToolCall(name="gpu_specs", args={"name": "A10"}, result={"name": "A10"})])
    assert not rw.has_visuals(answer)
    assert rw.memory_bars(answer) == [] and rw.option_rows(answer) == []


def test_details_are_folded_in_the_chat_and_sections_in_plain_text() -> None:
    from assistant.answer import AnswerDetail

    answer = Answer(
        text="Yes: it fits.",
        language="en",
        engine="offline",
        details=[AnswerDetail(title="Rejected <options>", markdown="- A10: needs 40 of 22 GiB")],
    )
    chat = rw.answer_markdown(answer)
    assert chat.startswith("Yes: it fits.")
    assert "<details><summary>Rejected &lt;options&gt;</summary>\n\n- A10: needs 40 of 22 GiB\n\n</details>" in chat
    plain = rw.answer_text_with_sources(answer)
    assert "**Rejected <options>**\n\n- A10: needs 40 of 22 GiB" in plain
