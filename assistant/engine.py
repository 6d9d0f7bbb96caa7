"""The deterministic engine: rule-based understanding, the same tools as the LLM, rendered answers.

``OfflineEngine(kb).answer(question, history)`` works with no LLM and no network. It reads the
conversation (:mod:`assistant.conversation`), decides what the user asks for, calls the tools of
:mod:`assistant.toolbox` (recording every call with its arguments and JSON result), and renders the
answer with :mod:`assistant.render`. When the model or the task is missing it asks one question; when a
tool rejects the input it says why, with the tool's suggestions. Text that tries to change the rules is
ignored; the legitimate part of the question is still answered.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from pydantic import BaseModel

from assistant import render
from assistant.answer import Answer, AnswerEvent, AnswerKind, Language, Message, ToolCall
from assistant.conversation import Conversation, Missing, default_for, read_conversation
from assistant.language import detect_language
from assistant.toolbox import (
    GuidanceSearch,
    estimate_gpu_memory,
    find_instance_types,
    gpu_specs,
    model_card,
    plan_gpu_deployment,
    price_of_instance,
)
from assistant.understanding import Slots
from knowledge.base import KnowledgeBase
from knowledge.models import Passage
from tools.catalog import GPU, InstanceType, get_instance
from tools.errors import ToolInputError, UnknownNameError
from tools.memory import MemoryEstimate
from tools.models import parse_size_b, resolve_model
from tools.plan import DeploymentOption, Plan
from tools.workload import Workload

logger = logging.getLogger(__name__)

Events = Generator[AnswerEvent, None, Any]
_TOKEN_CHUNK = 48
_TRAINING = ("full", "lora", "qlora")
_HALF_PRECISIONS = ("bf16", "fp16", "fp32")

# Documented RoPE scaling (YaRN factor 4 for Qwen2.5) reaches 4x the configured context.
_ROPE_SCALING_FACTOR = 4


class _Reply(BaseModel):
    """What a handler produced: the body text and the kind of answer."""

    text: str
    kind: AnswerKind


class OfflineEngine:
    """Answers from rules and tools alone; stateless, safe to share between threads."""

    def __init__(self, kb: KnowledgeBase) -> None:
        """Bind the engine to a knowledge base (searched through the ``search_guidance`` tool)."""
        self._guidance = GuidanceSearch(kb)

    def answer(self, question: str, history: Sequence[Message] = ()) -> Answer:
        """Answer ``question`` in the context of ``history`` (earlier turns, oldest first)."""
        final = None
        for event in self.stream(question, history):
            if event.type == "answer":
                final = event.answer
        assert final is not None
        return final

    def stream(self, question: str, history: Sequence[Message] = ()) -> Iterator[AnswerEvent]:
        """Yield tool_start/tool_end events as tools run, then the text in chunks, then the answer."""
        run = _Run(self._guidance, question, history)
        reply = yield from run.execute()
        answer = run.finish(reply)
        for start in range(0, len(answer.text), _TOKEN_CHUNK):
            yield AnswerEvent(type="token", text=answer.text[start : start + _TOKEN_CHUNK])
        yield AnswerEvent(type="answer", answer=answer)


def answer_language(question: str, history: Sequence[Message]) -> Language:
    """Detect the user's language; a turn of only names and numbers ("INT8?") keeps the previous one's."""
    if re.search(r"[\u4e00-\u9fff]", question) or re.search(r"\b[a-z]{3,}\b", question):
        return detect_language(question)
    for message in reversed(history):
        if message.role == "user":
            return detect_language(message.content)
    return detect_language(question)


class _Run:
    """One answer being built: the conversation, the tool calls made and the passages cited."""

    def __init__(self, guidance: GuidanceSearch, question: str, history: Sequence[Message]) -> None:
        self.guidance = guidance
        self.question = question
        self.lang = answer_language(question, history)
        self.conv: Conversation = read_conversation(question, history)
        self.calls: list[ToolCall] = []
        self.passages: list[Passage] = []
        self.warnings: list[str] = []

    # ------------------------------------------------------------------ plumbing

    def call(self, tool: str, fn: Callable[..., Any], /, **args: Any) -> Events:
        """Run one tool, recording it; returns ``(result, error)``. Input errors become text."""
        args = {k: v for k, v in args.items() if v is not None}
        record = ToolCall(name=tool, args=args)
        yield AnswerEvent(type="tool_start", tool_call=record.model_copy())
        try:
            result = fn(**args)
        except ToolInputError as exc:
            record.error = str(exc)
            result = None
        except Exception:
            # The guidance index is a service (Chroma, maybe a remote embedder); without it the tools
            # still answer, only the citations are missing. Any other tool failing is a bug: re-raise.
            if tool != "search_guidance":
                raise
            logger.exception("guidance search failed")
            self.warnings.append(self.t("参考资料检索失败，本回答没有引用", "guidance search failed; no citations"))
            record.error = "guidance search failed"
            result = None
        record.result = _jsonable(result)
        self.calls.append(record)
        yield AnswerEvent(type="tool_end", tool_call=record.model_copy())
        return result, record.error

    def search(
        self, query: str, n: int = 2, prefer_docs: Sequence[str] = (), prefer_sections: Sequence[str] = ()
    ) -> Events:
        """Search the guidance; keep up to ``n`` passages, on-topic sections and documents first.

        Args:
            query: The search text.
            n: Passages to keep, at most one per document.
            prefer_docs: Document slugs to rank first; a second passage must come from one of them.
            prefer_sections: Words (family names) whose presence in a section heading ranks it first.
        """
        found, _ = yield from self.call("search_guidance", self.guidance.search_guidance, query=query, k=6)

        def rank(p: Passage) -> tuple[bool, bool, bool]:
            named = any(word.lower() in p.section.lower() for word in prefer_sections)
            return (not named if prefer_sections else False, p.doc not in prefer_docs, p.lang != self.lang)

        ranked = sorted(found or [], key=rank)
        picked: list[Passage] = []
        for passage in ranked:
            if len(picked) == n:
                break
            if any(p.doc == passage.doc for p in picked):
                continue
            if picked and prefer_docs and passage.doc not in prefer_docs:
                break  # a second passage must be on topic, not merely the next hit
            picked.append(passage)
        return picked

    def cite(self, passage: Passage) -> int:
        """Return the citation number of ``passage`` (added to the answer's list on first use)."""
        for i, p in enumerate(self.passages, start=1):
            if p.chunk_id == passage.chunk_id:
                return i
        self.passages.append(passage)
        return len(self.passages)

    def quotes(self, passages: Sequence[Passage], query: str, limit: int = 2) -> list[str]:
        """Blockquotes of the passages' best sentences, each with its citation number."""
        out = []
        for passage in passages:
            if not render.key_sentences(passage, query, limit):
                continue
            out.append(render.quote(passage, self.cite(passage), query, self.lang, limit))
        return out

    def t(self, zh: str, en: str) -> str:
        """Pick the text in the answer's language."""
        return zh if self.lang == "zh" else en

    def finish(self, reply: _Reply) -> Answer:
        """Assemble the answer: body, sources, citations, tool calls and warnings."""
        parts = [reply.text]
        citations = [p.citation() for p in self.passages]
        if citations:
            parts.append(render.sources_markdown(citations, self.lang))
        return Answer(
            text="\n\n".join(parts),
            language=self.lang,
            engine="offline",
            kind=reply.kind,
            citations=citations,
            tool_calls=self.calls,
            warnings=self.warnings,
        )

    # ------------------------------------------------------------------ dispatch

    def execute(self) -> Events:
        """Decide what the question needs and produce the reply."""
        s = self.conv.slots
        if self.conv.turn.injection:
            self.warnings.append(
                self.t(
                    "已忽略问题中试图改变助手规则或索取机密的指令",
                    "ignored instructions in the question that try to change the assistant's rules",
                )
            )
            if s.intent == "out_of_scope":
                return self.refusal()
        handlers = {
            "plan": self.workload,
            "memory": self.workload,
            "instances": self.instances,
            "gpu_specs": self.specs,
            "compare": self.compare,
            "verify": self.verify,
            "guidance": self.guidance_answer,
        }
        if self.conv.turn.greeting:
            return _Reply(text=render.introduction(self.lang), kind="guidance")
        if s.intent == "out_of_scope":
            return _Reply(text=render.scope_statement(self.lang), kind="out_of_scope")
        if self.conv.turn.invalid:
            return self.invalid_values(self.conv.turn.invalid)
        try:
            return (yield from handlers[s.intent](s))
        except ToolInputError as exc:  # a tool rejected input the engine derived; say so plainly
            return self.error(str(exc))

    def refusal(self) -> _Reply:
        """Answer an attempt to change the rules or extract secrets that asks nothing else."""
        text = self.t(
            "我不会执行改变规则的指令，也不会透露系统提示词、密钥或配置。",
            "I don't follow instructions that change my rules, and I never share system prompts, keys or "
            "configuration.",
        )
        return _Reply(text=text + "\n\n" + render.scope_statement(self.lang), kind="out_of_scope")

    def invalid_values(self, values: Sequence[str]) -> _Reply:
        """Refuse impossible numbers as written instead of planning with some other number."""
        shown = self.t("、".join(f"“{v}”" for v in values), ", ".join(f"'{v}'" for v in values))
        text = self.t(
            f"这些数值无效：{shown}。并发、用户数、卡数、上下文、batch 和预算都必须是正数，卡数必须是整数。"
            "请给出有效的数值，我再计算。",
            f"These values are not valid: {shown}. Concurrency, users, GPUs, context, batch and budget must be "
            "positive, and GPUs come in whole numbers. Please give valid values and I'll size it.",
        )
        return _Reply(text=text, kind="error")

    def error(self, message: str) -> _Reply:
        """Turn a tool's input error into a short answer (its message already lists valid values)."""
        intro = self.t("无法按这个输入计算：", "I can't compute that as asked: ")
        return _Reply(text=f"{intro}{message}", kind="error")

    # ------------------------------------------------------------------ plans and estimates

    def workload(self, s: Slots) -> Events:
        """Plan a deployment or estimate memory, or ask for what is missing."""
        if s.model_error and s.model_mention:
            name = "estimate_gpu_memory" if s.intent == "memory" else "plan_gpu_deployment"
            fn = estimate_gpu_memory if s.intent == "memory" else plan_gpu_deployment
            _, err = yield from self.call(name, fn, model=s.model_mention, task=s.task or "inference")
            reply = self.error(err or s.model_error)
            # A misremembered name ("Qwen-70B") may be one the guidance corrects explicitly.
            passages = yield from self.search(self.question, n=1, prefer_docs=("original-article-corrections",))
            mention = re.sub(r"\s+", "", s.model_mention).lower()
            corrections = [
                p
                for p in passages
                if p.doc == "original-article-corrections" and mention in re.sub(r"\s+", "", p.text).lower()
            ]
            if quotes := self.quotes(corrections, self.question):
                reply.text += "\n\n" + "\n\n".join(quotes)
            substitute = _same_size_suggestion(s.model_mention, err or s.model_error)
            if substitute is None or s.task is None:
                return reply
            # "Qwen-70B INT4 ... L20": no such model, but the nearest real one of that size answers the
            # question; the name error (and the guidance's correction) is said first.
            message = err or s.model_error
            note = self.t(
                f"**没有 {s.model_mention} 这个模型**（工具原文：{message}）下面按同规模的 {substitute} 计算。",
                f"**There is no {s.model_mention} model** ({message}) The figures below are for {substitute}, "
                "the same size.",
            )
            s = s.model_copy(update={"model": substitute, "model_error": None})
            planned = yield from self.sized(s)
            planned.text = "\n\n".join([note, *quotes, planned.text]) if quotes else f"{note}\n\n{planned.text}"
            return planned
        if self.conv.missing:
            return self.clarify(s, self.conv.missing)
        return (yield from self.sized(s))

    def sized(self, s: Slots) -> Events:
        """Plan or estimate a workload whose model and task are known."""
        checks: list[str] = []
        if s.instance_types and s.intent == "plan":
            # "Is ecs.l20-c32g1.8xlarge good for Qwen 72B?": first whether the type exists, then the plan
            # on the GPU it names (the real L20 types).
            for name in s.instance_types:
                checks.append((yield from self.check_instance(name, claimed=None)))
            if not s.gpu and (gpu := _instance_gpu(s.instance_types[0])):
                s = s.model_copy(update={"gpu": gpu})
        if s.families and not s.gpu and s.intent == "plan":
            s = yield from self.family_gpu(s)
        understood = self.understood_line(s)
        if s.intent == "plan" and (variants := self.variants(s)):
            if len(self.conv.turn.models) >= 2:
                understood = self.understood_line(s.model_copy(update={"model": " vs ".join(self.conv.turn.models)}))
            reply = yield from self.compare_plans(variants, understood)
        elif s.intent == "memory":
            reply = yield from self.memory_answer(s, understood)
        else:
            reply = yield from self.plan_answer(s, understood)
        if checks:
            reply.text = "\n\n".join([*checks, reply.text])
        return reply

    def variants(self, s: Slots) -> list[tuple[str, Slots]]:
        """Workloads to plan side by side: two models named ("A vs B"), or two GPUs for one model."""
        models = self.conv.turn.models
        if len(models) >= 2:
            return [(m, s.model_copy(update={"model": m})) for m in models]
        if not s.gpu and len(s.gpu_mentions) >= 2:
            return [(g, s.model_copy(update={"gpu": g})) for g in s.gpu_mentions[:3]]
        return []

    def compare_plans(self, variants: list[tuple[str, Slots]], understood: str) -> Events:
        """Plan each variant and compare their cheapest fitting options (price per hour, month, M tokens)."""
        head = self.t(
            "| 方案 | 最便宜的可行规格 | 卡数 | 每卡需要 / 可用 (GiB) | ¥/小时 | ¥/月 | ¥/百万 tokens |",
            "| variant | cheapest option that fits | GPUs | per-GPU need / usable (GiB) | ¥/h | ¥/month | ¥/M tokens |",
        )
        rows, priced, lines = [head, "|---|---|---|---|---|---|---|"], [], []
        for label, variant in variants:
            plan, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(variant))
            if err or not isinstance(plan, Plan) or not plan.options:
                reason = err or self.t("没有能放下该负载的规格", "no instance type fits this workload")
                lines.append(f"- **{label}**: {reason}")
                continue
            best = min(plan.options, key=lambda o: (o.price_cny_per_hour is None, o.price_cny_per_hour or 0))
            rows.append(
                f"| {label} | `{best.instance_type}` ({render.gpu_label(best, self.lang)}) | {best.total_gpus} | "
                f"{render.fig(best.per_gpu_gib_needed)} / {render.fig(best.per_gpu_capacity_gib)} | "
                f"{render.fig(best.price_cny_per_hour, self.lang)} | {render.fig(best.price_cny_per_month, self.lang)} "
                f"| {render.fig(best.cost_cny_per_million_tokens, self.lang)} |"
            )
            if best.price_cny_per_hour is not None:
                per_m = best.cost_cny_per_million_tokens
                priced.append((best.price_cny_per_hour, per_m if per_m is not None else float("inf"), label, best))
        parts = [understood, "\n".join(rows) if len(rows) > 2 else "", "\n".join(lines)]
        if len(priced) >= 2:
            parts.append(self.price_verdict(priced))
        elif len(variants) >= 2:
            parts.append(
                self.t(
                    "**结论：** 价格数据不全，无法按价格比较；上表列出各方案的可行规格。",
                    "**Verdict:** price data is missing for some variants, so they cannot be compared on price.",
                )
            )
        return _Reply(text="\n\n".join(p for p in parts if p), kind="recommendation")

    def price_verdict(self, priced: list[tuple[float, float, str, DeploymentOption]]) -> str:
        """Which variant is cheaper per hour; on equal hourly prices, per million tokens (both figures shown)."""
        priced.sort(key=lambda p: (p[0], p[1]))
        (low, _, a, oa), (high, _, b, ob) = priced[0], priced[-1]
        if low < high:
            return self.t(
                f"**结论：** 按小时价，**{a}** 更便宜（`{oa.instance_type}` ¥{render.fig(low)}/小时，"
                f"{b} 的 `{ob.instance_type}` 为 ¥{render.fig(high)}/小时）。",
                f"**Verdict:** by hourly price, **{a}** is cheaper (`{oa.instance_type}` at ¥{render.fig(low)}/h vs "
                f"`{ob.instance_type}` at ¥{render.fig(high)}/h for {b}).",
            )
        ca, cb = render.fig(oa.cost_cny_per_million_tokens), render.fig(ob.cost_cny_per_million_tokens)
        return self.t(
            f"**结论：** 两者最便宜的规格小时价相同（¥{render.fig(low)}/小时）；按每百万 tokens 成本，"
            f"**{a}** 更便宜（¥{ca} 对 ¥{cb}）（同样的价格每小时生成更多 tokens）。",
            f"**Verdict:** the cheapest options cost the same per hour (¥{render.fig(low)}/h); per million tokens "
            f"**{a}** is cheaper (¥{ca} vs ¥{cb}) (it produces more tokens per hour for the price).",
        )

    def family_gpu(self, s: Slots) -> Events:
        """Turn "on gn7i" into the GPU preference the planner filters by (the family's GPU)."""
        listed, _ = yield from self.call("find_instance_types", find_instance_types, family=s.families[0])
        names = {i.gpu_name for i in listed.instances} if listed is not None else set()
        if len(names) == 1 and None not in names:
            return s.model_copy(update={"gpu": names.pop()})
        return s

    def context_limit(self, s: Slots) -> Events:
        """Refuse a context far beyond the model's maximum (None: plannable, or not given).

        Up to ``_ROPE_SCALING_FACTOR`` x the configured maximum is planned, with the planner's warning:
        RoPE scaling such as YaRN stretches Qwen2.5's 32k to 128k. Beyond that the answer is a refusal.
        """
        if not s.context or not s.model:
            return None
        if s.context <= _ROPE_SCALING_FACTOR * resolve_model(s.model).max_context:
            return None
        card, _ = yield from self.call("model_card", model_card, model=s.model)
        if card is None:
            return None
        limit, asked = render.fig(card.max_context), render.fig(s.context)
        return _Reply(
            text=self.t(
                f"上下文 {asked} tokens 远超 {s.model} 的最大上下文 {limit} tokens（模型配置），"
                "即使用 YaRN 等 RoPE 扩展也达不到，无法按这个长度规划。",
                f"A context of {asked} tokens is far beyond {s.model}'s maximum of {limit} tokens (its model "
                "config), out of reach even with RoPE scaling such as YaRN, so it cannot be planned at that length.",
            ),
            kind="error",
        )

    def plan_answer(self, s: Slots, understood: str) -> Events:
        """Rank instance options with the planner, add the per-GPU view for a GPU count, cite guidance."""
        if too_long := (yield from self.context_limit(s)):
            return too_long
        plan, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(s))
        if err:
            return self.error(err)
        assert isinstance(plan, Plan)
        parts = [understood]
        if s.gpu and not any(r.gpu_model == s.gpu for r in plan.rejected) and not plan.options:
            parts.append(
                self.t(
                    f"目录中没有可用的 {s.gpu} 实例规格。",
                    f"No available instance type in the catalog has the {s.gpu}.",
                )
            )
        elif s.gpu:
            parts += self.single_gpu_line(plan, s.gpu)
        prefer = [*s.gpu_mentions, *s.families]
        parts.append(render.plan_markdown(plan, self.lang, prefer=prefer, capacity=self.conv.turn.asks_capacity))
        if s.gpu and not plan.options:
            parts.append((yield from self.without_gpu(s)))
        if s.gpus:
            # "what about 4 GPUs?": the answer to the follow-up leads, the full plan follows.
            lead = bool(self.conv.turn.gpus and self.conv.turn.follow_up)
            section = yield from self.gpu_count_section(s, plan, lead=lead)
            if lead:
                parts.insert(1, section)
            else:
                parts.append(section)
        top = plan.options[0] if plan.options else None
        if self.conv.turn.asks_token_cost and (top is None or top.cost_cny_per_million_tokens is None):
            parts.append(
                self.t(
                    "注意：推荐方案没有价格或吞吐数据，算不出每百万 tokens 成本。",
                    "Note: the recommended option has no price or throughput figure, so its cost per million "
                    "tokens is unknown.",
                )
            )
        if s.qps and not s.context:
            qps = render.fig(s.qps)
            parts.append(
                self.t(
                    f"注意：能否达到 QPS {qps} 取决于每个请求的输入和输出长度，问题里没有给出；上面的方案按默认长度"
                    f"（见关键假设）计算，没有来源能证明不给长度也能达到 QPS {qps}。",
                    f"Note: whether QPS {qps} is reachable depends on each request's prompt and output lengths, "
                    "which the question does not give; the plan uses default lengths (see the assumptions), so no "
                    f"source backs QPS {qps} as stated.",
                )
            )
        if s.budget_cny_month and plan.options and plan.options[0].price_cny_per_month is None:
            parts.append(
                self.t(
                    "注意：推荐方案没有价格数据，无法核对预算。",
                    "Note: the recommended option has no price data, so the budget could not be checked.",
                )
            )
        passages = yield from self.search(self.plan_query(s, plan), n=2, prefer_docs=self.plan_docs(s))
        if quotes := self.quotes(passages, self.plan_query(s, plan)):
            parts.append(self.t("**参考要点：**", "**From the guidance:**") + "\n\n" + "\n\n".join(quotes))
        return _Reply(text="\n\n".join(p for p in parts if p), kind="recommendation")

    def without_gpu(self, s: Slots) -> Events:
        """When nothing with the requested GPU fits: what would (smaller batch, or the best other GPU)."""
        lines = []
        if s.task in _TRAINING and (s.batch or 1) > 1:
            small, _ = yield from self.call(
                "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"batch": 1}))
            )
            fits = small.options[0] if isinstance(small, Plan) and small.options else None
            verdict = (
                self.t(
                    f"这样 `{fits.instance_type}` 每卡需要 {render.fig(fits.per_gpu_gib_needed)} GiB，放得下。",
                    f"`{fits.instance_type}` then needs {render.fig(fits.per_gpu_gib_needed)} GiB per GPU and fits.",
                )
                if fits
                else self.t(f"但这样 {s.gpu} 仍然放不下。", f"Even then no {s.gpu} type fits.")
            )
            lines.append(
                self.t(
                    f"- 把 batch 从 {s.batch} 降到 1，用梯度累积保持等效 batch：{verdict}",
                    f"- Lower the batch from {s.batch} to 1 and use gradient accumulation to keep the effective "
                    f"batch: {verdict}",
                )
            )
        elif s.task == "inference" and s.context:
            lines.append(
                self.t("- 缩短上下文或降低并发，KV cache 会变小。", "- Shorten the context or lower the concurrency.")
            )
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": None}))
        )
        if isinstance(wider, Plan) and wider.options:
            top = wider.options[0]
            lines.append(
                self.t(
                    f"- 不限 GPU 时最好的方案：{top.instances} 台 `{top.instance_type}`（{top.gpu_count} × "
                    f"{render.gpu_label(top, self.lang)}），每卡需要 {render.fig(top.per_gpu_gib_needed)} GiB，"
                    f"可用 {render.fig(top.per_gpu_capacity_gib)} GiB，"
                    f"¥{render.fig(top.price_cny_per_hour, self.lang)}/小时。",
                    f"- Best option on any GPU: {top.instances} × `{top.instance_type}` ({top.gpu_count} × "
                    f"{render.gpu_label(top, self.lang)}), {render.fig(top.per_gpu_gib_needed)} GiB needed of "
                    f"{render.fig(top.per_gpu_capacity_gib)} GiB per GPU, "
                    f"¥{render.fig(top.price_cny_per_hour, self.lang)}/h.",
                )
            )
        head = self.t(f"**{s.gpu} 放不下时可以：**", f"**What would fit instead of {s.gpu}:**")
        return head + "\n" + "\n".join(lines) if lines else ""

    def single_gpu_line(self, plan: Plan, gpu: str) -> list[str]:
        """When a GPU is named: whether one card of it is enough, from the planner's own rejections."""
        one = next((r for r in plan.rejected if r.gpu_model == gpu and "on 1x" in r.reason), None)
        if one is None:
            return []
        return [
            self.t(
                f"**单张 {gpu} 不够：** `{one.instance_type}` — {one.reason}",
                f"**One {gpu} is not enough:** `{one.instance_type}` — {one.reason}",
            )
        ]

    def gpu_count_section(self, s: Slots, plan: Plan, lead: bool = False) -> Events:
        """Estimate per-GPU memory on the number of GPUs the user named; list the options of that size."""
        est, err = yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **memory_args(s, gpus=s.gpus))
        if err or not isinstance(est, MemoryEstimate):
            return self.t(f"无法估算 {s.gpus} 张卡的情况：{err}", f"Could not estimate {s.gpus} GPUs: {err}")
        same = [o for o in plan.options if o.total_gpus == s.gpus]
        where_zh, where_en = ("下表", "below") if lead else ("上表", "above")
        head = self.t(
            f"**按 {s.gpus} 张卡算：** 每卡约需 {render.fig(est.per_gpu_total_gib)} GiB（{est.layout}）。",
            f"**On {s.gpus} GPUs:** about {render.fig(est.per_gpu_total_gib)} GiB per GPU ({est.layout}).",
        )
        if same:
            names = ", ".join(f"`{o.instance_type}`" for o in same)
            return head + self.t(
                f" {where_zh}中正好 {s.gpus} 张卡的方案：{names}。",
                f" Options {where_en} with exactly {s.gpus} GPUs: {names}.",
            )
        return head + self.t(
            f" {where_zh}中没有正好 {s.gpus} 张卡的方案；规划器选的是能放下负载的最小布局。",
            f" None of the options {where_en} uses exactly {s.gpus} GPUs; the planner picks the smallest layout "
            "that fits.",
        )

    def memory_answer(self, s: Slots, understood: str) -> Events:
        """Estimate memory per GPU term by term and cite the sizing guidance."""
        est, err = yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **memory_args(s, gpus=s.gpus))
        if err:
            return self.error(err)
        assert isinstance(est, MemoryEstimate)
        parts = [understood, render.estimate_markdown(est, self.lang)]
        topic = self.t("显存 权重 KV cache 开销", "GPU memory weights KV cache overhead")
        if s.task in _TRAINING:
            topic = self.t("训练显存 梯度 优化器状态", "training memory gradients optimizer states")
        query = f"{self.question} {topic}"
        docs = ("memory-sizing", "original-article-corrections")
        passages = yield from self.search(query, n=2, prefer_docs=docs)
        if quotes := self.quotes(passages, query):
            parts.append("\n\n".join(quotes))
        return _Reply(text="\n\n".join(parts), kind="estimate")

    def clarify(self, s: Slots, missing: list[Missing]) -> _Reply:
        """Ask one question covering what is missing, and say what will be assumed otherwise."""
        first = missing[0]
        assume = [v for m in missing if (v := default_for(m, s))]
        if first == "model":
            question = self.t(
                "请问是哪个模型（例如 Qwen2.5-72B-Instruct、Llama-3.1-8B-Instruct 或 DeepSeek-R1）？",
                "Which model is it (for example Qwen2.5-72B-Instruct, Llama-3.1-8B-Instruct or DeepSeek-R1)?",
            )
            if "task" in missing or "method" in missing:  # one question covering both
                question = self.t(
                    question[:-1] + "，用来推理部署还是微调？",
                    question[:-1] + ", and is it for serving or fine-tuning?",
                )
        elif first == "method":
            question = self.t(
                f"{s.model} 打算用哪种微调方式：全参微调、LoRA 还是 QLoRA？",
                f"Which fine-tuning method for {s.model}: full fine-tuning, LoRA or QLoRA?",
            )
        else:
            question = self.t(
                f"{s.model} 是用来推理部署，还是微调（全参、LoRA、QLoRA）？",
                f"Do you want to serve {s.model} (inference) or fine-tune it (full, LoRA or QLoRA)?",
            )
        if assume:
            labels = {"inference": self.t("推理部署", "inference"), "lora": "LoRA"}
            said = ", ".join(labels.get(a, a) for a in assume)
            padded = f" {said} " if said[:1].isascii() else said
            question += self.t(f"如果不说明，我将按{padded}计算。", f" If you don't say, I'll assume {said}.")
        return _Reply(text=question, kind="clarification")

    def understood_line(self, s: Slots) -> str:
        """Show what the engine took from the conversation, so the user can correct it."""
        task_names = {
            "inference": self.t("推理部署", "inference"),
            "full": self.t("全参微调", "full fine-tuning"),
            "lora": "LoRA",
            "qlora": "QLoRA",
        }
        items = [f"{s.model}", task_names.get(s.task or "", s.task or "")]
        if s.precision:
            fmt = f"{s.precision}" + (f" ({s.quant})" if s.quant else "")
            items.append(
                fmt + (self.t("（“量化”按 4 bit 理解）", " ('quantised' read as 4-bit)") if s.quant_guessed else "")
            )
        training = s.task in _TRAINING
        labels = (
            ("context", self.t("序列长度", "sequence length") if training else self.t("上下文", "context"), ""),
            ("concurrency", self.t("并发", "concurrency"), ""),
            ("qps", "QPS", ""),
            ("batch", "batch", ""),
            ("train_tokens", self.t("训练 tokens", "training tokens"), ""),
            ("budget_cny_month", self.t("预算 ¥", "budget ¥"), self.t("/月", "/month")),
            ("region", self.t("地域", "region"), ""),
            ("gpu", "GPU", ""),
            ("gpus", self.t("卡数", "GPUs"), ""),
        )
        unused = ("concurrency", "qps") if training else ("train_tokens",)  # plan_args drops these
        for field, label, unit in labels:
            value = None if field in unused else getattr(s, field)
            if value is not None:
                shown = value if isinstance(value, str) else render.fig(value)
                items.append(f"{label}{'' if label.endswith('¥') else ' '}{shown}{unit}")
        line = self.t("**理解的需求：** ", "**Understood:** ") + " · ".join(i for i in items if i)
        for item, value in self.conv.defaulted.items():
            note = {
                "model": self.t(
                    f"模型按 {value} 计算（同规模的代表模型）", f"model taken as {value} (a model of that size)"
                ),
                "task": self.t("任务按推理部署计算", "task taken as inference"),
                "method": self.t("微调方式按 LoRA 计算", "fine-tuning method taken as LoRA"),
            }[item]
            line += f"\n\n_{note}_"
        return line

    def plan_query(self, s: Slots, plan: Plan) -> str:
        """Build the guidance query for a plan: the top option's family and the topic that dominates sizing."""
        family = plan.options[0].family if plan.options else ""
        if s.gpu and s.size_b:
            return f"{s.gpu} {_size_words(s.size_b)} {s.precision or ''} {self.question}"
        if s.task in _TRAINING:
            return self.t(f"{family} 训练 显存 {s.task}", f"{family} training memory {s.task} fine-tuning")
        if s.quant or s.precision in ("int4", "int8", "fp8"):
            return self.t(
                f"{family} 量化 {s.quant or s.precision} 部署",
                f"{family} quantization {s.quant or s.precision} serving",
            )
        return self.t(f"{family} 上下文 并发 KV cache 显存", f"{family} context length concurrency KV cache memory")

    def plan_docs(self, s: Slots) -> tuple[str, ...]:
        """Guidance documents to prefer for a plan about ``s``."""
        if s.gpu and s.size_b:
            return ("original-article-corrections", "memory-sizing")
        if s.task in _TRAINING:
            return ("memory-sizing", "distributed-training")
        if s.quant or s.precision in ("int4", "int8", "fp8"):
            return ("quantization", "instance-families")
        return ("memory-sizing", "inference-serving", "instance-families")

    # ------------------------------------------------------------------ catalog questions

    def instances(self, s: Slots) -> Events:
        """List instance types of the named families or GPUs, and check named instance types exist."""
        parts: list[str] = []
        for name in s.instance_types:
            parts.append((yield from self.check_instance(name, claimed=None)))
            if "price" in s.topics and (line := (yield from self.price_line(name, s.region))):
                parts.append(line)
        targets = [("family", f) for f in s.families if not any(f in i for i in s.instance_types)]
        targets += [("gpu", g) for g in s.gpu_mentions] if not targets else []
        for kind, value in targets[:3]:
            found, err = yield from self.call("find_instance_types", find_instance_types, **{kind: value})
            if err:
                parts.append(self.t(f"`{value}`：{err}", f"`{value}`: {err}"))
                continue
            assert found is not None
            if not found.instances:
                parts.append(
                    self.t(f"目录中没有 {value} 的实例规格。", f"The catalog has no instance type with {value}.")
                )
                continue
            head = self.t(
                f"**{value} 的实例规格（共 {found.count} 个）：**", f"**{value} instance types ({found.count}):**"
            )
            parts.append(head + "\n\n" + render.instances_table(found.instances, self.lang))
        query = " ".join([*s.families, *s.gpu_mentions, *s.instance_types]) or self.question
        passages = yield from self.search(query, n=1, prefer_docs=("instance-families", "original-article-corrections"))
        parts += self.quotes(passages, query)
        return _Reply(text="\n\n".join(parts), kind="guidance")

    def price_line(self, name: str, region: str | None) -> Events:
        """Quote the list price of one instance type, hourly and monthly, with its source and date."""
        quote, err = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=region)
        if err:
            return ""  # check_instance already said the type does not exist
        if quote is None:
            return self.t(f"价格表中没有 `{name}` 的价格。", f"The price list has no price for `{name}`.")
        parts = " · ".join(render.price_parts(quote.hourly, quote.monthly, quote.monthly_basis, self.lang))
        source = render.source_label(quote.source_line, self.lang)
        return self.t(f"**`{name}` 价格：** {parts}；来源：{source}", f"**`{name}` price:** {parts}; source: {source}")

    def check_instance(self, name: str, claimed: str | None) -> Events:
        """Say whether an instance type exists; if not, what its family really offers."""
        body = name.removeprefix("ecs.")
        family = re.split(r"[.-]", body)[0]
        listed, err = yield from self.call("find_instance_types", find_instance_types, family=family)
        if listed is not None and any(i.instance_type == name for i in listed.instances):
            inst = next(i for i in listed.instances if i.instance_type == name)
            gpu, count = render.gpu_label(inst, self.lang), render.fig(inst.gpu_count)
            memory, ram = render.fig(inst.gpu_memory_gib), render.fig(inst.memory_gib)
            return self.t(
                f"`{name}` 存在：{gpu} × {count}，每卡 {memory} GB，{inst.vcpu} vCPU，{ram} GiB 内存。",
                f"`{name}` exists: {count} × {gpu}, {memory} GB per GPU, {inst.vcpu} vCPU, {ram} GiB RAM.",
            )
        lines = [
            self.t(f"**`{name}` 这个规格不存在**（目录中没有）。", f"**`{name}` does not exist** (not in the catalog).")
        ]
        if listed is not None:
            sizes = ", ".join(f"`{i.instance_type}`" for i in listed.instances)
            gpus = sorted({render.gpu_label(i, self.lang) for i in listed.instances})
            lines.append(
                self.t(
                    f"{family} 实际的规格是 {sizes}，GPU 为 {'、'.join(gpus)}。",
                    f"The {family} types are {sizes}, with {', '.join(gpus)}.",
                )
            )
        else:
            lines.append(
                self.t(
                    f"也没有名为 {family} 的规格族（{err}）。阿里云的规格族不以 GPU 命名。",
                    f"There is no family called {family} either ({err}). Alibaba does not name families after GPUs.",
                )
            )
        gpu = claimed or _gpu_token(family)
        if gpu:
            same_gpu, gerr = yield from self.call("find_instance_types", find_instance_types, gpu=gpu)
            if same_gpu is not None and same_gpu.instances:
                size = body.split(".", 1)[-1] if "." in body else ""
                tail = body.split("-", 1)[-1] if "-" in body else size
                close = [i for i in same_gpu.instances if i.instance_type.endswith(tail)] or same_gpu.instances[:5]
                names = ", ".join(f"`{i.instance_type}`" for i in close[:5])
                lines.append(self.t(f"带 {gpu} 的规格有：{names}。", f"Types with the {gpu}: {names}."))
            elif same_gpu is not None:
                lines.append(
                    self.t(
                        f"目录中没有任何 ECS 规格使用 {gpu}。", f"No ECS instance type in the catalog has the {gpu}."
                    )
                )
        return " ".join(lines)

    def verify(self, s: Slots) -> Events:
        """Check a claim that a family or instance type has some GPU, and cite the correction."""
        claimed = s.gpu_mentions[0]
        parts: list[str] = []
        for name in s.instance_types:
            parts.append((yield from self.check_instance(name, claimed=claimed)))
        families = [f for f in s.families if not any(f"ecs.{f}" in i or f"ecs.{f}-" in i for i in s.instance_types)]
        if families:
            holders, _ = yield from self.call("find_instance_types", find_instance_types, gpu=claimed)
            holder_families = sorted({i.family for i in holders.instances}) if holders else []
            for family in families:
                listed, err = yield from self.call("find_instance_types", find_instance_types, family=family)
                if err or listed is None:
                    parts.append(self.t(f"`{family}`：{err}", f"`{family}`: {err}"))
                    continue
                parts.append(self.family_verdict(family, listed.instances, claimed, holder_families))
        query = f"{' '.join(s.families + s.instance_types)} {claimed} {self.question}"
        passages = yield from self.search(query, n=2, prefer_docs=("original-article-corrections", "instance-families"))
        parts += self.quotes(passages, query)
        return _Reply(text="\n\n".join(parts), kind="guidance")

    def family_verdict(self, family: str, instances: list[InstanceType], claimed: str, holders: list[str]) -> str:
        """Yes or no: does ``family`` have the ``claimed`` GPU? With the real GPU and where the claimed one is."""
        gpus = sorted({render.gpu_label(i, self.lang) for i in instances})
        memory = sorted({render.fig(i.gpu_memory_gib) for i in instances if i.gpu_memory_gib})
        counts = sorted({i.gpu_count for i in instances if i.gpu_count})
        per_instance = "/".join(render.fig(c) for c in counts)
        has = family in holders
        real = self.t(
            f"{family} 用的是 **{'、'.join(gpus)}**（每卡 {'/'.join(memory)} GB，每台 {per_instance} 张）",
            f"{family} has the **{', '.join(gpus)}** ({'/'.join(memory)} GB per GPU, {per_instance} per instance)",
        )
        where = ", ".join(holders)
        if has:
            return self.t(f"**是的。** {real}。", f"**Yes.** {real}.")
        elsewhere = (
            self.t(f" {claimed} 在这些规格族里：{where}。", f" The {claimed} is in: {where}.")
            if holders
            else self.t(f" 目录中没有任何规格族使用 {claimed}。", f" No family in the catalog has the {claimed}.")
        )
        return self.t(f"**不是。** {real}，不是 {claimed}。", f"**No.** {real}, not the {claimed}.") + elsewhere

    def specs(self, s: Slots) -> Events:
        """One GPU's spec sheet, plus the guidance passage about it."""
        gpu = yield from self.lookup_gpu(s.gpu_mentions[0])
        if gpu is None:
            return self.error(self.calls[-1].error or s.gpu_mentions[0])
        parts = [render.gpu_specs_table([gpu], self.lang)]
        if line := self.precision_support(gpu, s.precision):
            parts.insert(0, line)
        if gpu.notes:
            parts.append(self.t(f"数据说明（工具原文）：{gpu.notes}", f"Notes: {gpu.notes}"))
        passages = yield from self.search(
            self.question, n=1, prefer_docs=("gpu-specs-comparison", "original-article-corrections")
        )
        parts += self.quotes(passages, self.question)
        return _Reply(text="\n\n".join(parts), kind="guidance")

    def precision_support(self, gpu: GPU, precision: str | None) -> str | None:
        """Whether ``gpu`` computes natively in BF16 or FP8, from its spec row (None: not asked)."""
        flag = {"bf16": gpu.supports_bf16, "fp8": gpu.supports_fp8}.get(precision or "")
        if flag is None:
            return None
        name = (precision or "").upper()
        if flag:
            return self.t(
                f"**支持。** {gpu.name} 原生支持 {name}。", f"**Yes.** The {gpu.name} supports {name} natively."
            )
        return self.t(
            f"**不支持。** {gpu.name} 没有 {name} 硬件支持。", f"**No.** The {gpu.name} has no native {name} support."
        )

    def compare(self, s: Slots) -> Events:
        """Two or three GPUs (or the GPUs of families) side by side, verdicts, and the guidance."""
        names = list(s.gpu_mentions)
        family_lines = []
        for family in s.families[: 3 - len(names)]:
            listed, err = yield from self.call("find_instance_types", find_instance_types, family=family)
            if listed is not None and listed.instances and (gpu_name := listed.instances[0].gpu_name):
                names.append(gpu_name)
                family_lines.append(f"{family} → {render.gpu_label(listed.instances[0], self.lang)}")
            elif err:
                family_lines.append(f"{family}: {err}")
        gpus: list[GPU] = []
        for name in names[:3]:
            gpu = yield from self.lookup_gpu(name)
            if gpu is not None:
                gpus.append(gpu)
        if len(gpus) < 2:
            return self.error("; ".join(c.error for c in self.calls if c.error) or "need two GPUs")
        parts = [" · ".join(family_lines)] if family_lines else []
        parts.append(render.gpu_specs_table(gpus, self.lang))
        parts += self.verdicts(gpus[0], gpus[1])
        passages = yield from self.search(
            self.question, n=2, prefer_docs=("gpu-specs-comparison", "original-article-corrections")
        )
        parts += self.quotes(passages, self.question)
        return _Reply(text="\n\n".join(parts), kind="guidance")

    def verdicts(self, a: GPU, b: GPU) -> list[str]:
        """Which GPU is ahead on dense BF16, memory bandwidth and memory, stating both figures."""
        out = []
        for field, zh, en, unit in (
            ("bf16_dense_tflops", "稠密 BF16 算力（训练和预填充）", "dense BF16 compute (training, prefill)", "TFLOPS"),
            ("memory_bandwidth_gb_s", "显存带宽（解码速度）", "memory bandwidth (decode speed)", "GB/s"),
            ("memory_gib", "显存容量", "memory", "GB"),
        ):
            va, vb = getattr(a, field), getattr(b, field)
            if va is None or vb is None or va == vb:
                continue
            hi, lo, vh, vl = (a, b, va, vb) if va > vb else (b, a, vb, va)
            out.append(
                self.t(
                    f"{zh}：**{hi.name} 更高**（{render.fig(vh)} 对 {render.fig(vl)} {unit}）。",
                    f"{en[0].upper() + en[1:]}: **{hi.name} is higher** ({render.fig(vh)} vs {render.fig(vl)} {unit}).",
                )
            )
        return out

    def lookup_gpu(self, name: str) -> Events:
        """``gpu_specs(name)``; an ambiguous family name ("A100") falls back to its first variant."""
        gpu, err = yield from self.call("gpu_specs", gpu_specs, name=name)
        if gpu is None and err:
            suggestions = _suggestions(err)
            if suggestions and suggestions[0].lower().startswith(name.lower().replace(" ", "-")[:4]):
                gpu, err = yield from self.call("gpu_specs", gpu_specs, name=suggestions[0])
                if gpu is not None:
                    self.warnings.append(
                        self.t(
                            f"“{name}”有多个型号，这里显示 {suggestions[0]}",
                            f"'{name}' has several variants; showing {suggestions[0]}",
                        )
                    )
        return gpu

    # ------------------------------------------------------------------ general guidance

    def guidance_answer(self, s: Slots) -> Events:
        """Answer from the guidance: the best passages quoted with citations, plus family tables."""
        parts: list[str] = []
        for family in s.families[:2]:
            found, err = yield from self.call("find_instance_types", find_instance_types, family=family)
            if found is not None and found.instances:
                head = self.t(f"**{family} 的实例规格：**", f"**{family} instance types:**")
                parts.append(head + "\n\n" + render.instances_table(found.instances, self.lang, limit=8))
            elif err:
                parts.append(self.t(f"`{family}`：{err}", f"`{family}`: {err}"))
        if len(s.gpu_mentions) == 1:  # "H20 适合训练吗": the GPU's own figures next to the guidance
            gpu = yield from self.lookup_gpu(s.gpu_mentions[0])
            if gpu is not None:
                parts.append(render.gpu_specs_table([gpu], self.lang))
        sections = [*s.families, *s.gpu_mentions]
        passages = yield from self.search(self.question, n=2, prefer_sections=sections)
        quotes = self.quotes(passages, self.question, limit=3)
        if not quotes and not parts:
            return _Reply(text=render.scope_statement(self.lang), kind="out_of_scope")
        return _Reply(text="\n\n".join(quotes + parts), kind="guidance")


# ---------------------------------------------------------------------------------------------- arguments


def plan_args(s: Slots) -> dict[str, Any]:
    """Arguments for ``plan_gpu_deployment`` from the slots, dropping what the task cannot use."""
    task = _task(s)
    args: dict[str, Any] = {
        "model": s.model,
        "task": task,
        "region": s.region,
        "gpu": s.gpu,
        "budget_cny_month": s.budget_cny_month,
    }
    args |= _precision_args(s, task)
    if task == "inference":
        args |= {"context": s.context, "concurrency": s.concurrency or s.batch, "qps": s.qps}
    else:
        args |= {"seq_len": s.context, "batch": s.batch, "train_tokens": s.train_tokens}
    return {k: v for k, v in args.items() if v is not None}


def memory_args(s: Slots, gpus: int | None) -> dict[str, Any]:
    """Arguments for ``estimate_gpu_memory``; an inference context is split like the planner splits it."""
    task = _task(s)
    args: dict[str, Any] = {"model": s.model, "task": task, "gpus": gpus}
    args |= _precision_args(s, task)
    if task == "inference":
        # The planner sizes vLLM serving; the estimate uses the same engine so the two agree.
        args |= {"batch": s.concurrency or s.batch, "framework": "vllm"}
        if s.context:
            workload = Workload(model=s.model or "?", context=s.context)
            args["gen_tokens"] = workload.output_tokens
            args["prompt_tokens"] = s.context - workload.output_tokens
    else:
        args |= {"batch": s.batch, "seq_len": s.context}
    return {k: v for k, v in args.items() if v is not None}


def _task(s: Slots) -> str:
    # "LoRA on a 4-bit base" is QLoRA; the tools would reject lora + int4.
    if s.task == "lora" and (s.precision == "int4" or s.quant == "bnb-nf4"):
        return "qlora"
    return s.task or "inference"


def _precision_args(s: Slots, task: str) -> dict[str, Any]:
    if task == "inference":
        return {"precision": s.precision, "quant": s.quant}
    if task == "qlora":
        return {}
    return {"precision": s.precision if s.precision in _HALF_PRECISIONS else None}


# ---------------------------------------------------------------------------------------------- helpers


def _jsonable(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    if isinstance(result, list):
        return [_jsonable(r) for r in result]
    return result


def _suggestions(message: str) -> list[str]:
    m = re.search(r"Did you mean (.+)\?$", message)
    return [s.strip() for s in m.group(1).split(",")] if m else []


def _gpu_token(family: str) -> str | None:
    """Return the GPU a made-up family name refers to ("l20" in "ecs.l20-c32g1.8xlarge"), if any."""
    try:
        return gpu_specs(family).name
    except UnknownNameError:
        return None


def _instance_gpu(name: str) -> str | None:
    """Return the GPU of an instance type, or of the GPU word inside a made-up name ("ecs.l20-...")."""
    try:
        return get_instance(name).gpu_name
    except UnknownNameError:
        return _gpu_token(re.split(r"[.-]", name.removeprefix("ecs."))[0])


def _same_size_suggestion(mention: str, message: str) -> str | None:
    """Return the tool's first suggestion when within 15% of the unknown name's size, else None."""
    suggestions = _suggestions(message)
    wanted = parse_size_b(mention)
    if not suggestions or not wanted:
        return None
    size = parse_size_b(suggestions[0])
    return suggestions[0] if size and abs(size - wanted) <= 0.15 * wanted else None


def _size_words(size_b: float) -> str:
    return f"{size_b:g}B"
