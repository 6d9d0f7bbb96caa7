"""The plan and the memory estimate: ranked options, the named GPU or count, the cited guidance."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from assistant import render
from assistant.answer import AnswerDetail
from assistant.intents.arguments import (
    memory_args,
    plan_args,
)
from assistant.intents.prices import PricesIntent
from assistant.messages import say
from assistant.price_phrases import basis_label, source_label
from assistant.render_brief import estimate_brief, plan_brief
from assistant.run import TRAINING, Events, Reply, Run
from assistant.tool_text import notes_in
from assistant.toolbox import (
    estimate_gpu_memory,
    plan_gpu_deployment,
    training_run,
)
from assistant.understanding import Slots
from tools.memory import MemoryEstimate
from tools.plan import DeploymentOption, Plan
from tools.training_volume import TrainingCompute

# A question about what it costs (not "cheapest instance"): the cost line answers first.
_COST_ASK_RE = (
    r"how\s+much\s+(?:would|will|does|do|is|for|money|per)|\bcost\b|\bcosts\b|\bprice\b|\bpricing\b|\bbill\b|"
    r"\bspend\b|多少钱|费用|成本|花多少|价格|账单|包月多少|按量多少"
)
_HOW_LONG_RE = (
    r"多久|多长时间|几天|多少天|多少小时|卡时|机时|how\s+long|how\s+many\s+(?:gpu[\s\-]*)?(?:hours|days|weeks)|"
    r"time\s+to\s+train|gpu[\s\-]*hours|how\s+much\s+time|要多少时间"
)
_MONTH_DAYS = 30  # a run longer than this is also shown scaled out to finish in about a month


class PlanIntent(Run):
    """Renders a plan or a memory estimate from the tools."""

    def plan_answer(
        self, s: Slots, understood: str, lead: Sequence[str] = (), only_type: str | None = None
    ) -> Events:
        """Answer first: the verdict on named hardware or the recommendation, then a short table.

        ``only_type``: "how many ecs.X do I need?" plans that type alone and says how many.
        What was understood follows; rejections, all assumptions and the guidance fold into details.
        """
        if too_long := (yield from self.context_limit(s)):
            return too_long
        args = plan_args(s) | ({"instance_type": only_type} if only_type else {})
        plan, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **args)
        if err:
            return self.error(err)
        assert isinstance(plan, Plan)
        head: list[str] = [*lead, *self.count_line(plan, only_type)]
        if s.gpu and not any(r.gpu_model == s.gpu for r in plan.rejected) and not plan.options:
            head.append(
                self.t(
                    f"目录中没有可用的 {s.gpu} 实例规格。",
                    f"No available instance type in the catalog has the {s.gpu}.",
                )
            )
        elif s.gpu and not lead and self.conv.turn.asks_verdict and not s.gpus:
            # "A10 能跑 70B 吗": whether one card is enough, then whether that GPU works at all.
            head += self.single_gpu_line(plan, s.gpu)
            head += yield from self.gpu_verdict(s, plan)
        elif s.gpu and not lead:
            head += self.single_gpu_line(plan, s.gpu)
        if s.budget_cny_month and self.conv.turn.asks_verdict and not lead:
            head[:0] = yield from self.budget_verdict(s, plan)
        if lead and (time := (yield from self.training_time(s))):
            # "要多久": the time answers the question; otherwise it follows the verdict.
            head.insert(0 if re.search(_HOW_LONG_RE, self.question, re.IGNORECASE) else len(head), time)
        elif not lead and (times := (yield from self.planned_training_time(s, plan))):
            head[:0] = times
        head[:0] = self.usage_line(s, plan)
        cost = [] if lead else (yield from self.cost_line(s, plan))
        head[:0] = cost  # "多少钱一个月": the month's cost answers first, before any line about the GPU
        prefer = [*s.gpu_mentions, *s.families]
        verdict = bool(head) and self.conv.turn.asks_verdict and not lead
        brief, details = plan_brief(
            plan, self.lang, prefer=prefer, capacity=self.conv.slots.asks_capacity, summary=not (verdict or cost)
        )
        if cost and plan.options:  # the cost line names the option; its full paragraph (and source) folds
            summary = render.plan_summary(plan, self.lang)
            details.insert(0, AnswerDetail(title=say("details.plan", self.lang), markdown=summary))
        if lead and self.named_fits:
            # The named hardware holds it: that is the answer; the planner's other options fold away.
            details.insert(0, AnswerDetail(title=say("details.plan", self.lang), markdown="\n\n".join(brief)))
            brief = []
        parts = [*head, *brief]
        if s.gpu and not plan.options:
            parts.append((yield from self.without_gpu(s)))
        if s.gpus:
            # "what about 4 GPUs?": the answer to the follow-up leads; otherwise the per-GPU view folds.
            first = bool(self.conv.turn.gpus and self.conv.turn.follow_up)
            section = yield from self.gpu_count_section(s, plan, lead=first)
            if first:
                parts.insert(0, section)
            else:
                details.insert(0, AnswerDetail(title=say("details.gpu_count", self.lang), markdown=section))
        parts += self.plan_notes(s, plan)
        parts += [*self.rate_note(s), *self.architecture_note(s)]
        parts.append(understood)
        passages = yield from self.search(self.plan_query(s, plan), n=2, prefer_docs=self.plan_docs(s))
        if quotes := self.quotes(passages, self.plan_query(s, plan)):
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        details += self.length_details(s)
        return Reply(text="\n\n".join(p for p in parts if p), kind="recommendation", details=details)

    def usage_line(self, s: Slots, plan: Plan) -> list[str]:
        """'10 hours a day on weekdays': the monthly cost at the hours it runs, which answers first."""
        if not s.usage_hours or not plan.options:
            return []
        per_day, days, hours = s.usage_hours
        top = min(plan.options, key=lambda o: (o.usage_cny_per_month is None, o.usage_cny_per_month or 0))
        if top.usage_cny_per_month is None:
            return [say("usage.unpriced", self.lang, hours=render.fig(hours))]
        when = say("usage.when_weekdays" if days < 7 else "usage.when_daily", self.lang, per_day=render.fig(per_day))
        return [
            say("usage.cost", self.lang, cost=render.fig(top.usage_cny_per_month), when=when, hours=render.fig(hours),
                instance_type=top.instance_type, full=render.fig(top.price_cny_per_month))
        ]  # fmt: skip

    def count_line(self, plan: Plan, only_type: str | None) -> list[str]:
        """'How many ecs.X do I need?': the count of that type from the plan restricted to it."""
        if not only_type:
            return []
        if not plan.options:
            reason = (notes_in(self.lang, [plan.rejected[0].reason]) or [""])[0] if plan.rejected else ""
            return [say("count.none", self.lang, instance_type=only_type, reason=reason)]
        o = plan.options[0]
        hourly, monthly = render.fig(o.price_cny_per_hour), render.fig(o.price_cny_per_month)
        price = (
            say("count.price", self.lang, hourly=hourly, monthly=monthly)
            if o.price_cny_per_hour is not None
            else say("count.unpriced", self.lang)
        )
        return [
            say("count.need", self.lang, instances=o.instances, instance_type=o.instance_type, gpus=o.total_gpus,
                gpu=render.gpu_label(o, self.lang), need=render.fig(o.per_gpu_gib_needed),
                usable=render.fig(o.per_gpu_capacity_gib), price=price)
        ]  # fmt: skip

    def month_basis(self, o: DeploymentOption) -> str:
        """Name what a monthly figure is; a subscription price keeps its own date (it may differ from the hourly)."""
        basis = basis_label(o.price_month_basis, self.lang)
        if o.price_month_basis == "monthly subscription" and o.subscription_as_of:
            basis += self.t(f"，截至 {o.subscription_as_of}", f", as of {o.subscription_as_of}")
        return basis

    def short_source(self, source: str | None) -> str:
        """Return a price's source line in the answer's language without its links (they stay in the details)."""
        label = source_label(source or "", self.lang)
        return re.split(r"[:：]\s*\[", label, maxsplit=1)[0].strip()

    def planned_training_time(self, s: Slots, plan: Plan) -> Events:
        """Training time and cost on the plan's top option (6·N·D); a run over a month also scaled out.

        Answers first when the question asks how long, or when the run would take more than a month.
        """
        top = plan.options[0] if plan.options else None
        if s.task not in TRAINING or not s.train_tokens or top is None or top.training_hours is None:
            return []
        gpu = top.gpu_model or top.gpu_model_likely or ""
        per_gpu = top.price_cny_per_hour / top.total_gpus if top.price_cny_per_hour is not None else None
        run = yield from self.training_on(s, gpu, top.total_gpus, per_gpu)
        if run is None:
            return []
        lines = [self.training_lines(run)]
        if run.days > _MONTH_DAYS:
            more = math.ceil(run.gpu_hours / (_MONTH_DAYS * 24) / 8) * 8
            if (bigger := (yield from self.training_on(s, gpu, more, per_gpu))) is not None:
                cost = say("training.cost", self.lang, price=render.fig(bigger.price_cny_per_hour),
                           cost=render.fig(bigger.cost_cny)) if bigger.cost_cny is not None else ""  # fmt: skip
                lines.append(
                    say("training.scale_out", self.lang, gpus=bigger.gpus, gpu=bigger.gpu, days=render.fig(bigger.days),
                        hours=render.fig(bigger.hours), cost=(" " if self.lang == "en" else "") + cost)
                )  # fmt: skip
        asked = re.search(_HOW_LONG_RE, self.question, re.IGNORECASE)
        return lines if asked or run.days > _MONTH_DAYS else []

    def training_on(self, s: Slots, gpu: str, gpus: int, per_gpu: float | None) -> Events:
        """Call the 6·N·D tool for the workload on ``gpus`` of ``gpu``; None if it cannot."""
        args = {"model": s.model, "gpu": gpu, "gpus": gpus, "tokens": s.train_tokens, "task": s.task}
        if per_gpu is not None:
            args["price_cny_per_hour"] = round(per_gpu * gpus, 2)
        run, err = yield from self.call("training_run", training_run, **args)
        return run if isinstance(run, TrainingCompute) and not err else None

    def training_lines(self, run: TrainingCompute) -> str:
        """'Training time: D tokens on N x GPU take H hours (D days)', with its cost when priced."""
        line = say(
            "training.time", self.lang, tokens=render.fig(run.training_tokens), gpus=run.gpus, gpu=run.gpu,
            hours=render.fig(run.hours), days=render.fig(run.days), rule=run.flops_rule, mfu=render.fig(run.mfu * 100),
        )  # fmt: skip
        if run.cost_cny is not None and run.price_cny_per_hour is not None:
            sep = "" if self.lang == "zh" else " "
            line += sep + say("training.cost", self.lang, price=render.fig(run.price_cny_per_hour),
                              cost=render.fig(run.cost_cny))  # fmt: skip
        return line

    def cost_line(self, s: Slots, plan: Plan) -> Events:
        """'What's the monthly bill?': the month's cost of the cheapest option that fits, answered first.

        With no known price, that is said once, then the nearest known price with its region and date.
        """
        tokens = self.conv.turn.asks_token_cost
        asked = tokens or re.search(_COST_ASK_RE, self.question, re.IGNORECASE)
        if not plan.options or s.usage_hours or s.budget_cny_month or s.task in TRAINING or not asked:
            return []  # a training run's cost is its time x price (planned_training_time)
        priced = [o for o in plan.options if o.price_cny_per_month is not None]
        if not priced:
            top = plan.options[0]
            unpriced = say("cost.unpriced", self.lang, instance_type=top.instance_type)
            return [unpriced, *(yield from PricesIntent.nearest_line(self, top.instance_type, s.region))]  # type: ignore[arg-type]
        o = min(priced, key=lambda o: o.price_cny_per_month or 0)
        per_m = render.fig(o.cost_cny_per_million_tokens) if o.cost_cny_per_million_tokens is not None else "?"
        code = "cost.tokens" if tokens and o.cost_cny_per_million_tokens is not None else "cost.month"
        return [
            say(code, self.lang, monthly=render.fig(o.price_cny_per_month), hourly=render.fig(o.price_cny_per_hour),
                instances=o.instances,
                instance_type=o.instance_type, gpus=o.total_gpus, gpu=render.gpu_label(o, self.lang),
                basis=self.month_basis(o), source=self.short_source(o.price_source),
                per_m=per_m)
        ]  # fmt: skip

    def rate_note(self, s: Slots) -> list[str]:
        """Say how the concurrency or QPS planned for was derived from what the user said, when it was."""
        r = s.rate
        if r is None or (s.qps if r.kind == "daily_requests" else s.concurrency) != r.result:
            return []  # a follow-up replaced the derived figure
        if r.kind == "daily_requests":
            code = "rate.daily_requests" if r.stated else "rate.daily_requests_assumed"
            daily = self.count_words(r.amount)
            return [say(code, self.lang, daily=daily, factor=render.fig(r.factor), qps=render.fig(r.result))]
        if r.kind == "groups":
            return [say("rate.groups", self.lang, groups=render.fig(r.amount), people=render.fig(r.factor),
                        n=render.fig(r.result))]  # fmt: skip
        return [say("rate.user_share", self.lang, users=render.fig(r.amount), pct=render.fig(r.factor * 100),
                    n=render.fig(r.result))]  # fmt: skip

    def count_words(self, amount: float) -> str:
        """Write a large count as users do: '2 million', '100 万' (the question's own figure)."""
        if self.lang == "zh" and amount >= 1e4:
            return f"{render.fig(amount / 1e4)} 万"
        if self.lang == "en" and amount >= 1e6:
            return f"{render.fig(amount / 1e6)} million"
        return render.fig(amount)

    def architecture_note(self, s: Slots) -> list[str]:
        """State the custom model dimensions the question left out and the defaults used for them."""
        if not s.architecture or not s.architecture_assumed:
            return []
        sep = "，" if self.lang == "zh" else ", "
        items = sep.join(
            say(f"arch.{key}", self.lang, value=render.fig(s.architecture[key])) for key in s.architecture_assumed
        )
        return [say("arch.assumed", self.lang, items=items)]

    def plan_notes(self, s: Slots, plan: Plan) -> list[str]:
        """Short notes on what the plan could not check: token cost, QPS without lengths, the budget."""
        notes = []
        top = plan.options[0] if plan.options else None
        if self.conv.turn.asks_token_cost and (top is None or top.cost_cny_per_million_tokens is None):
            notes.append(
                self.t(
                    "注意：推荐方案没有价格或吞吐数据，算不出每百万 tokens 成本。",
                    "Note: the recommended option has no price or throughput figure, so its cost per million "
                    "tokens is unknown.",
                )
            )
        if s.qps and not s.context:
            qps = render.fig(s.qps)
            notes.append(
                self.t(
                    f"注意：能否达到 QPS {qps} 取决于每个请求的输入和输出长度，问题里没有给出；上面的方案按默认长度"
                    f"（见关键假设）计算，没有来源能证明不给长度也能达到 QPS {qps}。",
                    f"Note: whether QPS {qps} is reachable depends on each request's prompt and output lengths, "
                    "which the question does not give; the plan uses default lengths (see the assumptions), so no "
                    f"source backs QPS {qps} as stated.",
                )
            )
        if s.budget_cny_month and top is not None and top.price_cny_per_month is None:
            notes.append(
                self.t(
                    "注意：推荐方案没有价格数据，无法核对预算。",
                    "Note: the recommended option has no price data, so the budget could not be checked.",
                )
            )
        return notes

    def without_gpu(self, s: Slots) -> Events:
        """When nothing with the requested GPU fits: what would (smaller batch, or the best other GPU)."""
        lines = []
        if s.task in TRAINING and (s.batch or 1) > 1:
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
        reason = (notes_in(self.lang, [one.reason]) or [""])[0]
        return [
            self.t(
                f"**单张 {gpu} 不够：** `{one.instance_type}`" + (f" — {reason}" if reason else ""),
                f"**One {gpu} is not enough:** `{one.instance_type}` — {reason}",
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
            f"**按 {s.gpus} 张卡算：** 每卡约需 {render.fig(est.per_gpu_total_gib)} GiB"
            + "".join(f"（{z}）" for z in notes_in("zh", [est.layout]))
            + "。",
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
        brief, details = estimate_brief(est, self.lang)
        parts = [*brief, *self.architecture_note(s), understood]
        topic = self.t("显存 权重 KV cache 开销", "GPU memory weights KV cache overhead")
        if s.task in TRAINING:
            topic = self.t("训练显存 梯度 优化器状态", "training memory gradients optimizer states")
        query = f"{self.question} {topic}"
        docs = ("memory-sizing", "original-article-corrections")
        passages = yield from self.search(query, n=2, prefer_docs=docs)
        if quotes := self.quotes(passages, query):
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        details += self.length_details(s)
        return Reply(text="\n\n".join(parts), kind="estimate", details=details)
