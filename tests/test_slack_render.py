"""Answer -> Slack Block Kit, as pure functions: mrkdwn conversion, option fields, citations, limits."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.answer import Answer, Language, ToolCall
from assistant.render import plan_markdown, sources_markdown
from assistant.toolbox import plan_gpu_deployment
from knowledge.models import Citation
from tools.plan import Plan
from ui.render_slack import (
    ELLIPSIS,
    MAX_BLOCKS,
    MAX_FIELD_CHARS,
    MAX_FIELDS,
    MAX_TEXT_CHARS,
    clip,
    markdown_to_mrkdwn,
    split_mrkdwn,
    to_slack_blocks,
    to_slack_text,
)

CITATIONS = [
    Citation(
        doc="memory-sizing",
        doc_title="How much GPU memory a model needs",
        section="KV cache",
        anchor="kv-cache",
        lang="en",
        sources=["https://huggingface.co/docs/transformers/perf_infer_gpu_one"],
        snippet="The KV cache…",
    ),
    Citation(
        doc="pricing",
        doc_title="Paying for GPU instances",
        section="Pay-as-you-go",
        anchor="payg",
        lang="en",
        sources=[],
        snippet="Pay-as-you-go bills by the second.",
    ),
]


@pytest.fixture(scope="module")
def plan() -> Plan:
    return plan_gpu_deployment("Qwen2.5-72B-Instruct", concurrency=32)


def plan_answer(plan: Plan, lang: Language, **extra: Any) -> Answer:
    """An answer as the offline engine builds it: the plan's Markdown, sources, the tool call behind it."""
    text = plan_markdown(plan, lang) + "\n\n" + sources_markdown(CITATIONS, lang)
    call = ToolCall(name="plan_gpu_deployment", args={"model": plan.model}, result=plan.model_dump(mode="json"))
    values = {"text": text, "language": lang, "engine": "offline", "citations": CITATIONS, "tool_calls": [call]}
    return Answer(**(values | extra))


def all_texts(blocks: list[dict[str, Any]]) -> list[str]:
    out = []
    for block in blocks:
        if "text" in block:
            out.append(block["text"]["text"])
        out += [f["text"] for f in block.get("fields", [])]
        out += [e["text"] for e in block.get("elements", [])]
    return out


def assert_within_slack_limits(blocks: list[dict[str, Any]]) -> None:
    assert len(blocks) <= MAX_BLOCKS
    for block in blocks:
        assert block["type"] in {"section", "context", "divider"}
        if "text" in block:
            assert 0 < len(block["text"]["text"]) <= MAX_TEXT_CHARS
        assert len(block.get("fields", [])) <= MAX_FIELDS
        assert all(len(f["text"]) <= MAX_FIELD_CHARS for f in block.get("fields", []))
        assert all(len(e["text"]) <= MAX_TEXT_CHARS for e in block.get("elements", []))


# ------------------------------------------------------------------------------------------ mrkdwn


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**Recommended:** 1 × A10", "*Recommended:* 1 × A10"),
        ("see [the docs](https://x.test/a?b=1) now", "see <https://x.test/a?b=1|the docs> now"),
        ("## Memory sizing", "*Memory sizing*"),
        ("### **Bold** heading", "*Bold heading*"),
        ("*italic* and __strong__ and ~~gone~~", "_italic_ and *strong* and ~gone~"),
        ("- first\n* second", "• first\n• second"),
        ("> *KV cache*: grows [1]", "> _KV cache_: grows [1]"),
        ("a < b & c > d", "a &lt; b &amp; c &gt; d"),
        ("keep `ecs.gn7i-c8g1.2xlarge` and `a**b**<c>`", "keep `ecs.gn7i-c8g1.2xlarge` and `a**b**&lt;c&gt;`"),
        ("**`ecs.gn8v.4xlarge`** fits", "*`ecs.gn8v.4xlarge`* fits"),
        ("---", "────────"),
        # Slack shows *bold* only at a word boundary; a space keeps it bold before Chinese text.
        ("**可选方案**（Qwen2.5-7B）", "*可选方案* （Qwen2.5-7B）"),
        ("**理解的需求：** Qwen2.5-7B", "*理解的需求：* Qwen2.5-7B"),
        ("```\nif a < b: **x**\n```", "```\nif a &lt; b: **x**\n```"),
    ],
)
def test_markdown_to_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


def test_tables_become_aligned_code_blocks_with_cjk_width() -> None:
    markdown = (
        "Options:\n\n| 实例 | GPU |\n|---|---|\n| `ecs.gn7i` | **A10** |\n| [gn8v](https://x.test) | H20 |\n\nEnd."
    )
    assert markdown_to_mrkdwn(markdown) == (
        "Options:\n\n```\n实例      GPU\n--------  ---\necs.gn7i  A10\ngn8v      H20\n```\n\nEnd."
    )
    assert markdown_to_mrkdwn(markdown, tables="mark").count("\x02table\x02") == 1


def test_split_keeps_code_fenced_and_pieces_within_the_limit() -> None:
    code = "```\n" + "\n".join(f"row {i:03d} " + "x" * 40 for i in range(60)) + "\n```"
    pieces = split_mrkdwn("intro\n\n" + code + "\n\noutro", 1000)
    assert all(len(p) <= 1000 for p in pieces)
    assert len(pieces) > 2
    assert all(p.count("```") % 2 == 0 for p in pieces), "every piece closes the code block it opens"
    joined = "\n".join(pieces)
    assert [f"row {i:03d}" for i in range(60)] == [line[:7] for line in joined.split("\n") if line.startswith("row")]
    assert pieces[0].startswith("intro") and pieces[-1].endswith("outro")


def test_clip() -> None:
    assert clip("short", 10) == "short"
    assert clip("a" * 20, 10) == "a" * 9 + ELLIPSIS


# ------------------------------------------------------------------------------------------ blocks


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("en", ("*GPU*", "*Instances × GPUs*", "*Per-GPU need / usable*", "*Price*", "*Decode*")),
        ("zh", ("*GPU*", "*台数 × 卡数*", "*每卡需要 / 可用*", "*价格*", "*解码吞吐*")),
    ],
)
def test_plan_options_become_fields_in_place_of_the_table(plan: Plan, lang: Language, labels: tuple[str, ...]) -> None:
    blocks = to_slack_blocks(plan_answer(plan, lang))
    assert_within_slack_limits(blocks)
    options = [b for b in blocks if b.get("fields")]
    assert len(options) == len(plan.options)
    for option, block in zip(plan.options, options, strict=True):
        assert f"`{option.instance_type}`" in block["text"]["text"]
        assert [f["text"].split("\n")[0] for f in block["fields"]] == list(labels)
    first = plan.options[0]
    assert "★" in options[0]["text"]["text"]
    memory = options[0]["fields"][2]["text"]
    assert f"{first.per_gpu_gib_needed} / {first.per_gpu_capacity_gib} GiB" in memory
    assert f"{first.headroom_pct}%" in memory
    if first.price_cny_per_hour is not None:
        assert f"¥{first.price_cny_per_hour}" in options[0]["fields"][3]["text"]
    summary = [b["text"]["text"] for b in blocks if b["type"] == "section" and not b.get("fields")]
    assert not any("|---|" in s or "```" in s for s in summary), "the options table is replaced by fields"
    # The fields sit where the table was: after the summary's first part, before the notes.
    first_option = blocks.index(options[0])
    assert 0 < first_option and blocks[first_option - 1]["type"] == "section"


def test_citations_are_a_context_block_with_numbered_links(plan: Plan) -> None:
    blocks = to_slack_blocks(plan_answer(plan, "en"))
    context = [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    sources = next(t for t in context if t.startswith("*Sources*"))
    assert (
        "[1] <https://huggingface.co/docs/transformers/perf_infer_gpu_one|How much GPU memory a model needs — "
        "KV cache>" in sources
    )
    assert "[2] Paying for GPU instances — Pay-as-you-go" in sources  # no URL: no link
    summary = "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")
    assert "*Sources:*" not in summary, "the text's own source list is not repeated"


def test_chinese_citation_heading_and_warnings(plan: Plan) -> None:
    answer = plan_answer(plan, "zh", warnings=["大模型暂不可用（超时），本回答由离线引擎生成。", "a <b> & c"])
    blocks = to_slack_blocks(answer)
    context = [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    assert any(t.startswith("*参考资料*") for t in context)
    assert context[-1] == ":warning: 大模型暂不可用（超时），本回答由离线引擎生成。\n:warning: a &lt;b&gt; &amp; c"
    summary = "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")
    assert "*参考资料：*" not in summary


def test_answer_without_a_plan_keeps_its_table_as_code_after_the_summary() -> None:
    text = "**gn7i instance types:**\n\n| instance | GPU |\n|---|---|\n| `ecs.gn7i-c8g1.2xlarge` | A10 |"
    blocks = to_slack_blocks(Answer(text=text, language="en", engine="offline", kind="guidance"))
    assert blocks == [
        {"type": "section", "text": {"type": "mrkdwn", "text": "*gn7i instance types:*"}},
        {
            "type": "section",
            "text": {
                "type": "mrkdwn",
                "text": "```\ninstance               GPU\n---------------------  ---\necs.gn7i-c8g1.2xlarge  A10\n```",
            },
        },
    ]


def test_failed_or_malformed_plan_calls_show_no_fields() -> None:
    calls = [
        ToolCall(name="plan_gpu_deployment", args={"model": "x"}, error="Unknown model 'x'."),
        ToolCall(name="plan_gpu_deployment", args={"model": "y"}, result={"options": "not a plan"}),
    ]
    text = "| a | b |\n|---|---|\n| 1 | 2 |"
    for call in calls:
        blocks = to_slack_blocks(Answer(text=text, language="en", engine="llm", tool_calls=[call]))
        assert not any(b.get("fields") for b in blocks)
        assert "```" in blocks[0]["text"]["text"]


def test_long_answers_are_cut_to_slack_limits_with_a_notice(plan: Plan) -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 180 for i in range(200)]
    huge_line = "x" * 7000
    text = "\n\n".join([*paragraphs[:3], huge_line, plan_markdown(plan, "en"), *paragraphs[3:]])
    many = [CITATIONS[0]] * 80
    answer = plan_answer(plan, "en", text=text, citations=many, warnings=["careful " * 600])
    blocks = to_slack_blocks(answer)
    assert_within_slack_limits(blocks)
    assert len(blocks) == MAX_BLOCKS
    assert sum(1 for b in blocks if b.get("fields")) == len(plan.options), "options survive the cut"
    texts = all_texts(blocks)
    assert blocks[-3]["elements"][0]["text"].endswith("the rest was cut.")  # then sources, warnings
    assert any(t.endswith(ELLIPSIS) for t in texts)
    assert blocks[-1]["elements"][0]["text"].startswith(":warning: careful")
    fallback = to_slack_text(answer)
    assert len(fallback) <= MAX_TEXT_CHARS and fallback.endswith(ELLIPSIS)


markdownish = st.lists(
    st.one_of(
        st.text(min_size=1, max_size=400),
        st.sampled_from(["| a | b |\n|---|---|\n| 1 | 2 |", "```\ncode\n```", "## Head", "- item", "**b** [l](u)"]),
        st.just("y" * 3500),
    ),
    max_size=60,
).map("\n\n".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdownish, n_warnings=st.integers(0, 3))
def test_any_markdown_renders_within_slack_limits(text: str, n_warnings: int) -> None:
    answer = Answer(text=text, language="en", engine="llm", citations=CITATIONS, warnings=["w" * 1200] * n_warnings)
    blocks = to_slack_blocks(answer)
    assert len(blocks) <= MAX_BLOCKS
    for block in blocks:
        if "text" in block:
            assert len(block["text"]["text"]) <= MAX_TEXT_CHARS
        assert all(len(e["text"]) <= MAX_TEXT_CHARS for e in block.get("elements", []))
    assert len(to_slack_text(answer)) <= MAX_TEXT_CHARS


# ------------------------------------------------------------------------------------------ answer kinds


KIND_QUESTIONS = {
    "recommendation": "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?",
    "estimate": "How much GPU memory to LoRA fine-tune Llama-3.1-8B?",
    "comparison": "H800 vs A100 for training?",
    "refusal": "Llama-3.1-405B inference BF16 on one gn7i instance?",
}


@pytest.fixture(scope="module")
def offline_assistant(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from engine_helpers import shared_kb
    from web_helpers import web_settings

    from assistant.assistant import build_assistant

    return build_assistant(web_settings(tmp_path_factory.mktemp("slack")), knowledge_base=shared_kb())


@pytest.mark.parametrize("kind", list(KIND_QUESTIONS))
def test_each_answer_kind_posts_answer_first_within_slack_limits(kind: str, offline_assistant: Any) -> None:
    from fakes.fake_slack import fake_slack
    from slack_sdk import WebClient

    answer = offline_assistant.answer(KIND_QUESTIONS[kind], [])
    blocks = to_slack_blocks(answer)
    first_paragraph = markdown_to_mrkdwn(answer.text).split("\n\n")[0]
    assert blocks[0] == {"type": "section", "text": {"type": "mrkdwn", "text": clip(first_paragraph, MAX_TEXT_CHARS)}}
    assert len(blocks) <= MAX_BLOCKS
    with fake_slack() as slack:  # the fake answers invalid_blocks where Slack would
        client = WebClient(token="xoxb-test", base_url=slack.api_url)
        posted = client.chat_postMessage(channel="C1", text=to_slack_text(answer), blocks=blocks)
        assert posted["ok"]
    fields = [b for b in blocks if b.get("fields")]
    context = "\n".join(e["text"] for b in blocks if b["type"] == "context" for e in b["elements"])
    if kind == "recommendation":
        assert fields and blocks.index(fields[0]) <= 3  # the options come right after the summary
    if kind == "refusal":
        assert ":x:" in context and "does not fit: needs" in context
    if answer.citations:
        assert f"<{answer.citations[0].sources[0]}|" in context


def test_details_follow_a_divider_as_small_print_and_long_ones_are_split_not_cut() -> None:
    from assistant.answer import AnswerDetail

    long = "\n\n".join(f"- rejected family {n}: needs {n}0 GiB per GPU" + " x" * 40 for n in range(80))
    answer = Answer(
        text="Yes: it fits.",
        language="en",
        engine="offline",
        details=[AnswerDetail(title="Left out", markdown=long), AnswerDetail(title="Assumptions", markdown="- a")],
    )
    blocks = to_slack_blocks(answer)
    assert blocks[0]["text"]["text"] == "Yes: it fits." and blocks[1] == {"type": "divider"}
    context = [b["elements"][0]["text"] for b in blocks if b["type"] == "context"]
    assert len(context) > 2 and all(len(t) <= MAX_TEXT_CHARS for t in context)
    assert context[0].startswith("*Left out*") and context[-1] == "*Assumptions*\n• a"
    assert "rejected family 79" in "\n".join(context) and not any(t.endswith(ELLIPSIS) for t in context)
