"""Lines that answer a plan question first: its cost, its training time, how many of a named type.

Also how rates and custom models were read. Kept apart from :mod:`assistant.intents.plan` (the plan and
memory answers) so both stay short; every figure comes from a tool result or the question.
"""

from __future__ import annotations

import math
import re

from assistant import render
from assistant.answer import Language
from assistant.billing_words import MONEY_ASK
from assistant.hardware_words import REGIONS
from assistant.intents.arguments import plan_args
from assistant.intents.prices import PricesIntent
from assistant.intents.verdict_overkill import inverted_kind
from assistant.messages import say
from assistant.price_phrases import basis_label, region_label, source_label
from assistant.question_form import deadline_label, read_form
from assistant.reading import compiled
from assistant.run import TRAINING, Events, Run
from assistant.toolbox import plan_gpu_deployment, training_run
from assistant.understanding import Slots
from tools.plan import DeploymentOption, Plan
from tools.training_volume import TrainingCompute

COST_ASK_RE = (
    r"how\s+much\s+(?:would|will|does|do|is|for|money|per)|\bcost\b|\bcosts\b|\bprice\b|\bpricing\b|\bbill\b|"
    r"\bspend\b|多少钱|费用|成本|花多少|价格|账单|包月多少|按量多少|"
    r"\bwhat\s+(?:would|will|does|do)\s+(?:that|it|this|they)\s+run\b|\brun\s+(?:me|us)\b|"  # "what would that run"
    + MONEY_ASK
)
_QPS_KINDS = ("daily_requests", "job_deadline", "token_volume")  # rates that derive a QPS, not users at once
_MONTH_DAYS = 30  # a run longer than this is also shown scaled out to finish in about a month
HOW_LONG_RE = (
    r"多久|多长时间|几天|多少天|多少小时|卡时|机时|how\s+long|how\s+many\s+(?:gpu[\s\-]*)?(?:hours|days|weeks)|"
    r"time\s+to\s+train|gpu[\s\-]*hours|how\s+much\s+time|要多少时间|"
    r"(?:ballpark|rough|estimated?)\s+(?:training\s+)?(?:time|duration)|\beta\b|wall[\s\-]?clock|training\s+time|"
    r"(?:would|will|does)\s+it\s+take|when\s+(?:would|will)\s+(?:it|we)\s+(?:be\s+done|finish)"
)


_WHAT_NEEDED_RE = r"\bwhat\s+(?:do|would|should|will)\s+(?:i|we|you)\s+need\b|需要(?:什么|哪些|多少|几)|要(?:什么|哪些)"
_REGIONS_COST_RE = r"便宜|贵|划算|每月|一个月|多少|cheap\w*|expensive|month|how\s+much"
_REGION_ID_RE = r"\b(?:cn|ap|us|eu|me|na|sa)-[a-z]+(?:-\d+)?\b"
# "are the prices the same in Shanghai and Beijing?", "价格一样吗": a yes or no on whether the regions differ
_SAME_ASKED_RE = r"一样|相同|同价|有区别|有差别|\bthe\s+same\b|\bequal\b|\bdiffer"


def named_regions(text: str) -> list[str]:
    """Every region a question names ("Beijing vs Frankfurt", "杭州和上海"), as ids in the order written."""
    low = text.lower()
    found = [(m.start(), m.group(0)) for m in re.finditer(_REGION_ID_RE, low)]
    for alias, region in REGIONS.items():
        found += [(m.start(), region) for m in compiled(rf"(?<![a-z]){re.escape(alias)}(?![a-z])", 0).finditer(low)]
    return list(dict.fromkeys(region for _, region in sorted(found)))


def plan_verdict(s: Slots, plan: Plan, lang: Language, limit: str = "") -> str:
    """Yes with the plan's top option (yes-but when the one card pictured is not enough), or no."""
    if not plan.options:
        return say("verdict.plan_no", lang, limits=limit, model=plan.model)
    o = plan.options[0]
    figures = {"model": plan.model, "instances": o.instances, "instance_type": o.instance_type,
               "need": render.fig(o.per_gpu_gib_needed), "usable": render.fig(o.per_gpu_capacity_gib)}  # fmt: skip
    if (s.gpu or s.families) and not s.gpus and not any(p.total_gpus == 1 for p in plan.options):
        # "gn6v 上 LoRA 7B 靠谱不": the one card the user pictures is not enough; that is the "but".
        return say("gpu.yes_multi", lang, gpu=render.gpu_label(o, lang), total=o.total_gpus, **figures)
    return say("verdict.plan_yes", lang, limits=limit, gpus=o.total_gpus, gpu=render.gpu_label(o, lang), **figures)


class PlanLeads(Run):
    """The lead lines of plan answers, from the plan and the 6·N·D tool."""

    def usage_line(self, s: Slots, plan: Plan) -> list[str]:
        """'10 hours a day on weekdays': the monthly cost at the hours it runs, which answers first."""
        if not s.usage_hours or not plan.options:
            return []
        u = s.usage_hours
        hours = u.per_month
        top = min(plan.options, key=lambda o: (o.usage_cny_per_month is None, o.usage_cny_per_month or 0))
        if top.usage_cny_per_month is None:
            return [say("usage.unpriced", self.lang, hours=render.fig(hours))]
        days = {5.0: "usage.when_weekdays", 2.0: "usage.when_weekends"}
        code = "usage.when_monthly" if u.monthly else days.get(u.days_per_week, "usage.when_daily")
        when = say(code if u.stated else "usage.when_office", self.lang, per_day=render.fig(u.per_day))
        return [
            say("usage.cost", self.lang, cost=render.fig(top.usage_cny_per_month), when=when, hours=render.fig(hours),
                instance_type=top.instance_type, instances=top.instances, full=render.fig(top.price_cny_per_month))
        ]  # fmt: skip

    def count_line(self, plan: Plan, only_type: str | None, gpu: str | None = None) -> list[str]:
        """'How many ecs.X do I need?', 'how many A10s would it take?': the count from the plan restricted to it."""
        if not only_type and not (gpu and plan.options and self.asks_gpu_count(gpu)):
            return []
        only_type = only_type or plan.options[0].instance_type
        if not plan.options:
            reason = plan.rejected[0].reason.render(self.lang) if plan.rejected else ""
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

    def asks_gpu_count(self, gpu: str) -> bool:
        """Whether the question asks how many of the named GPU ("how many A10s", "几张 A10"), not whether one does."""
        card = re.escape(gpu.split("-")[0])
        return re.search(rf"how\s+many\s+(?:\w+\s+){{0,2}}?(?:{card}s?\b|gpus?\b|cards?\b)|"
                         rf"(?:几|多少)\s*(?:张|块)", self.question, re.IGNORECASE) is not None  # fmt: skip

    def month_basis(self, o: DeploymentOption) -> str:
        """Name what a monthly figure is; a subscription price keeps its own date (it may differ from the hourly)."""
        basis = basis_label(o.price_month_basis, self.lang)
        if o.price_month_basis == "monthly subscription" and o.subscription_as_of:
            basis += say("plan.basis_as_of", self.lang, as_of=o.subscription_as_of)
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
        # "how many A100s to pretrain 7B on 1T tokens within 30 days?": scaled out to the stated deadline, else a month
        form = read_form(self.question)
        limit = form.deadline_hours or _MONTH_DAYS * 24
        if run.hours > limit:
            more = math.ceil(run.gpu_hours / limit)
            more = math.ceil(more / 8) * 8 if more > 8 or not form.deadline_hours else more
            if (bigger := (yield from self.training_on(s, gpu, more, per_gpu))) is not None:
                cost = say("training.cost", self.lang, price=render.fig(bigger.price_cny_per_hour),
                           cost=render.fig(bigger.cost_cny)) if bigger.cost_cny is not None else ""  # fmt: skip
                figures = {"gpus": bigger.gpus, "gpu": bigger.gpu, "days": render.fig(bigger.days),
                           "hours": render.fig(bigger.hours)}  # fmt: skip
                if form.deadline_hours:
                    line = say("deadline.more_gpus", self.lang, deadline=deadline_label(limit, self.lang), **figures)
                    line += ("" if self.lang == "zh" else " ") + cost if cost else ""
                else:
                    line = say("training.scale_out", self.lang, cost=(" " if self.lang == "en" else "") + cost,
                               **figures)  # fmt: skip
                # "how many ... within": the count is the answer; the slow run on the plan's top option is not
                lines = [line] if form.form == "how_many" else [*lines, line]
        asked = re.search(HOW_LONG_RE, self.question, re.IGNORECASE)
        return lines if asked or run.hours > limit else []

    def named_count_not_offered(self, s: Slots) -> Events:
        """'How many H800s to finish in half a day?' with no type carrying the H800: that count, and it is not rented.

        Returns "" unless the question asks how many of the named GPU against a training deadline.
        """
        form = read_form(self.question)
        if not (form.form == "how_many" and form.deadline_hours and s.task in TRAINING and s.train_tokens and s.gpu):
            return ""
        one = yield from self.training_on(s, s.gpu, 1, None)
        if one is None:
            return ""
        need = math.ceil(one.hours / form.deadline_hours)
        need = math.ceil(need / 8) * 8 if need > 8 else need
        run = yield from self.training_on(s, s.gpu, need, None)
        if run is None or run.hours > form.deadline_hours:
            return ""
        return say("deadline.named_not_offered", self.lang, gpus=run.gpus, gpu=run.gpu, hours=render.fig(run.hours),
                   deadline=deadline_label(form.deadline_hours, self.lang))  # fmt: skip

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

    def cost_line(self, s: Slots, plan: Plan, question: str | None = None) -> Events:
        """'What's the monthly bill?': the month's cost of the cheapest option that fits, answered first.

        With no known price, that is said once, then the nearest known price with its region and date.
        ``question``: the words that asked the cost, when an earlier turn did ("那 L20 呢" after "一个月多少钱").
        """
        question = question or self.question
        tokens = self.conv.turn.asks_token_cost or (question != self.question and s.asks_token_cost)
        asked = tokens or re.search(COST_ASK_RE, question, re.IGNORECASE)
        regions = named_regions(question)
        # "杭州和北京哪个便宜？每月分别多少": two regions and a cheaper/monthly word ask the cost in each
        asked = asked or (len(regions) >= 2 and re.search(_REGIONS_COST_RE, question, re.IGNORECASE))
        if not plan.options or s.usage_hours or s.budget_cny_month or s.task in TRAINING or not asked:
            return []  # a training run's cost is its time x price (planned_training_time)
        if len(regions) >= 2:  # "Beijing vs Frankfurt": the same load in each
            return (yield from self.region_costs(s, regions[:3]))
        priced = [o for o in plan.options if o.price_cny_per_month is not None]
        if not priced:
            top = plan.options[0]
            unpriced = say("cost.unpriced", self.lang, instance_type=top.instance_type)
            return [unpriced, *(yield from PricesIntent.nearest_line(self, top.instance_type, s.region))]  # type: ignore[arg-type]
        o = min(priced, key=lambda o: o.price_cny_per_month or 0)
        per_token = [p for p in priced if p.cost_cny_per_million_tokens is not None]
        if tokens and per_token:  # the cost per token asked: the option cheapest per token, not per month
            o = min(per_token, key=lambda o: o.cost_cny_per_million_tokens or 0)
        per_m = render.fig(o.cost_cny_per_million_tokens) if o.cost_cny_per_million_tokens is not None else "?"
        code = "cost.tokens" if tokens and o.cost_cny_per_million_tokens is not None else "cost.month"
        return [
            say(code, self.lang, monthly=render.fig(o.price_cny_per_month), hourly=render.fig(o.price_cny_per_hour),
                instances=o.instances,
                instance_type=o.instance_type, gpus=o.total_gpus, gpu=render.gpu_label(o, self.lang),
                basis=self.month_basis(o), source=self.short_source(o.price_source),
                per_m=per_m)
        ]  # fmt: skip

    def region_costs(self, s: Slots, regions: list[str]) -> Events:
        """Cost the same workload in each named region (per hour, month and million tokens), the cheapest first.

        Regions are ranked by the pay-as-you-go hourly price, the one basis every region lists on the same date
        (a subscription price exists for some regions only, and from another year).
        """
        found: list[tuple[float, str, DeploymentOption]] = []
        missing: list[str] = []
        for region in regions:
            plan, _ = yield from self.call(
                "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"region": region}))
            )
            priced = [o for o in (plan.options if isinstance(plan, Plan) else []) if o.price_cny_per_hour is not None]
            if not priced:
                missing.append(region)
                continue
            o = min(priced, key=lambda o: o.price_cny_per_hour or 0)
            found.append((o.price_cny_per_hour or 0, region, o))
        found.sort(key=lambda f: f[0])
        lines = [
            "- " + say("cost.region_item", self.lang, region=region_label(region, self.lang),
                       hourly=render.fig(hourly),
                       monthly=render.fig(o.price_cny_per_month), basis=self.month_basis(o), instances=o.instances,
                       instance_type=o.instance_type, gpu=render.gpu_label(o, self.lang),
                       per_m=render.fig(o.cost_cny_per_million_tokens) if o.cost_cny_per_million_tokens else "?")
            for hourly, region, o in found
        ]  # fmt: skip
        lines += ["- " + say("cost.region_none", self.lang, region=region_label(r, self.lang)) for r in missing]
        if not found:
            return lines
        tied = [region for hourly, region, _ in found if hourly == found[0][0]]
        code = "cost.region_tie" if len(tied) > 1 else "cost.region_head"  # the same list price in both
        named = [region_label(region, self.lang) for region in tied]
        head = say(code, self.lang, region=self.t("、", ", ").join(named), hourly=render.fig(found[0][0]))
        if re.search(_SAME_ASKED_RE, self.question, re.IGNORECASE) and len(found) >= 2:  # "上海和北京价格一样吗"
            same = len(tied) == len(found)
            head = say("lead.yn_yes" if same else "lead.yn_no", self.lang) + " " + head
        return [head, "\n".join(lines)]

    def plain_verdict(self, s: Slots, plan: Plan) -> list[str]:
        """'最多用两台，能跑吗？' with no hardware named: yes with the top option within the limits, or no."""
        if re.search(_WHAT_NEEDED_RE, self.question, re.IGNORECASE):
            return []  # "what do we need?" asks for the plan, not a yes/no
        if inverted_kind(self.question) == "overkill" and (line := self.not_overkill_line(plan)):
            return [line]  # "is that overkill?" after a plan: the plan is already the cheapest that fits
        limit = say("verdict.limit", self.lang, n=s.max_instances) if s.max_instances else ""
        return [plan_verdict(s, plan, self.lang, limit)]

    def not_overkill_line(self, plan: Plan) -> str | None:
        """'Is that overkill?' of the planner's own pick: no, when it is the cheapest option that fits."""
        priced = [o for o in plan.options if o.price_cny_per_hour is not None]
        if not priced or plan.options[0] is not min(priced, key=lambda o: o.price_cny_per_hour or 0.0):
            return None
        top = plan.options[0]
        gpus = f"{top.total_gpus} × {render.gpu_label(top, self.lang)}"
        hardware = f"{top.instances} × `{top.instance_type}` " + (f"（{gpus}）" if self.lang == "zh" else f"({gpus})")
        return say("overkill.overkill.cheapest", self.lang, hardware=hardware, model=plan.model,
                   need=render.fig(top.per_gpu_gib_needed), usable=render.fig(top.per_gpu_capacity_gib))  # fmt: skip

    def rate_note(self, s: Slots) -> list[str]:
        """Say how the concurrency or QPS planned for was derived from what the user said, when it was."""
        r = s.rate
        if r is None or (s.qps if r.kind in _QPS_KINDS else s.concurrency) != r.result:
            return []  # a follow-up replaced the derived figure
        if r.kind == "daily_requests":
            code = "rate.daily_requests" if r.stated else "rate.daily_requests_assumed"
            code = code.replace("daily", f"{r.per}ly") if r.per != "day" else code  # "1.2 million a month"
            if r.users and r.per_user:  # "5k DAU, each sends ~20 messages a day": the users and their asks
                code = "rate.per_user" if r.stated else "rate.per_user_assumed"
                return [say(code, self.lang, users=self.count_words(r.users), each=render.fig(r.per_user),
                            factor=render.fig(r.factor), qps=render.fig(r.result))]  # fmt: skip
            daily = self.count_words(r.amount)
            return [say(code, self.lang, daily=daily, factor=render.fig(r.factor), qps=render.fig(r.result))]
        if r.kind == "token_volume":  # "每天 5000 万 token": requests of the stated (else default) length
            what = say("rate.tokens_output" if r.output_only else "rate.tokens_all", self.lang)
            return [say("rate.token_volume" if r.stated else "rate.token_volume_assumed", self.lang,
                        tokens=self.count_words(r.amount), what=what, period=say(f"rate.period_{r.per}", self.lang),
                        per_request=render.fig(r.per_request), factor=render.fig(r.factor),
                        qps=render.fig(r.result))]  # fmt: skip
        if r.kind == "job_deadline":
            return [say("rate.job_deadline", self.lang, items=self.count_words(r.amount), hours=render.fig(r.factor),
                        qps=render.fig(r.result))]  # fmt: skip
        if r.kind == "groups":
            return [say("rate.groups", self.lang, groups=render.fig(r.amount), people=render.fig(r.factor),
                        n=render.fig(r.result))]  # fmt: skip
        code = "rate.user_share" if r.stated else "rate.user_share_assumed"  # "全公司 3000 人": share assumed
        return [say(code, self.lang, users=render.fig(r.amount), pct=render.fig(r.factor * 100),
                    n=render.fig(r.result))]  # fmt: skip

    def count_words(self, amount: float) -> str:
        """Write a large count as users do: '2 million', '100 万' (the question's own figure)."""
        if self.lang == "zh" and amount >= 1e8:
            return f"{render.fig(amount / 1e8)} 亿"
        if self.lang == "zh" and amount >= 1e4:
            return f"{render.fig(amount / 1e4)} 万"
        if self.lang == "en" and amount >= 1e9:
            return f"{render.fig(amount / 1e9)} billion"
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
