"""The plan and the memory estimate: ranked options, the named GPU or count, the cited guidance."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assistant import render
from assistant.answer import AnswerDetail
from assistant.gpu_variants import catalog_variants
from assistant.hardware_words import named_regions
from assistant.intent_rules import KV_SIZE_RE
from assistant.intents.arguments import (
    memory_args,
    plan_args,
)
from assistant.intents.cheaper_than import CheaperThanLeads
from assistant.intents.cheapest_int4 import CHEAPEST_WAY_RE, CheapestInt4
from assistant.intents.compare_sides import methods_named
from assistant.intents.cost_periods import CostPeriods
from assistant.intents.gpu_lead import SUPPORT_ASK
from assistant.intents.guidance import GuidanceIntent
from assistant.intents.prices import PricesIntent
from assistant.intents.target_lead import plan_target_line
from assistant.intents.training_leads import TrainingLeads
from assistant.intents.verdict_billing import billing_choice
from assistant.messages import say
from assistant.price_phrases import region_label
from assistant.question_form import read_form
from assistant.render_brief import estimate_brief, plan_brief
from assistant.run import TRAINING, Events, Reply
from assistant.toolbox import (
    estimate_gpu_memory,
    plan_gpu_deployment,
)
from assistant.understanding import Slots
from tools import catalog
from tools.memory import MemoryEstimate
from tools.notes import Note
from tools.plan import Plan, Rejection
from tools.prices import REGION_ANY

# A question about what it costs (not "cheapest instance"): the cost line answers first.
# "Can I get a B200 on Alibaba Cloud?": whether it can be rented is the question, before whether it fits.
_RENT_ASK = r"alibaba|aliyun|阿里云|\brent|租|\bget\b|availab|\boffer|有没有|提供"
# A turn that only asks for something cheaper than the plan: "cheaper option?", "anything cheaper?", "有便宜点的吗"
_CHEAPER_ASK = (
    r"^\W*(?:(?:is\s+there\s+|got\s+)?(?:any(?:thing)?|a|some)\s+)?cheaper\b[^?.!]{0,25}[?.!]?\s*$|"
    r"^\W*(?:有没有|还有|有)?(?:更)?便宜(?:点|些|一点)?的"
)


class PlanIntent(TrainingLeads, CostPeriods, CheaperThanLeads, CheapestInt4):
    """Renders a plan or a memory estimate from the tools."""

    def plan_answer(self, s: Slots, understood: str, lead: Sequence[str] = (), only_type: str | None = None) -> Events:
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
        offered = ""
        carried = s.gpu and any(r.gpu_model in catalog_variants(s.gpu) for r in plan.rejected)
        if s.gpu and not plan.options and not only_type and not carried:
            # "用 H800 要多少卡": no type carries it. Said first, then the plan on the GPUs the catalog has.
            wider, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment,
                                            **plan_args(s.model_copy(update={"gpu": None})))  # fmt: skip
            if isinstance(wider, Plan) and wider.options:
                offered, plan = say("plan.gpu_not_offered", self.lang, gpu=s.gpu), wider
                # "how many H800s to finish in 12 h?": that count answers, with that no type carries the H800
                offered = (yield from self.named_count_not_offered(s)) or offered
        counted = self.count_line(plan, only_type, None if lead or s.gpus else s.gpu)
        head: list[str] = [*lead, *counted]
        if self.conv.turn.region == REGION_ANY and not lead:  # "which region is cheapest for that?": that region first
            cheapest = [n for n in plan.warnings if n.code == "price.cheapest_region"]
            plan = plan.model_copy(update={"warnings": [n for n in plan.warnings if n not in cheapest]})
            region_lead = [say("plan.cheapest_region_lead", self.lang, **self.region_figures(n)) for n in cheapest[:1]]
        else:
            region_lead = []
        if s.asks_longest_context and not lead and plan.options:  # "max_model_len 设多少": on the recommended type
            top = {"instance_type": plan.options[0].instance_type, "instances": plan.options[0].instances}
            head += yield from self.longest_context_lines(s, top, self.hardware_label)  # type: ignore[attr-defined]
        head += yield from self.cheaper_than_line(s, plan)  # "anything cheaper than an A100?": yes or no
        if s.gpu and s.precision in ("fp8", "bf16") and re.search(SUPPORT_ASK, self.question, re.IGNORECASE):
            # "Is FP8 supported on the L20, and does it help for 72B?": the card's support answers first
            if (spec := (yield from self.lookup_gpu(s.gpu))) is not None:  # type: ignore[attr-defined]
                head.insert(0, self.precision_support(spec, s.precision))  # type: ignore[attr-defined]
        if s.gpu and not carried and not plan.options:
            head.append(say("plan.no_type_with_gpu", self.lang, gpu=s.gpu))
        elif only_type or counted:
            pass  # "how many ecs.X / A10s": the count line answers; a verdict on its GPU would answer another question
        elif s.gpu and not lead and self.conv.turn.asks_verdict and not s.gpus:
            # "A10 能跑 70B 吗": whether one card is enough, then whether that GPU works at all.
            # The verdict on the GPU answers; that one card is not enough follows it.
            head += yield from self.gpu_verdict(s, plan)
            head += self.single_gpu_line(plan, s.gpu)
            head += yield from self.qlora_on_one(s, plan)
        elif s.gpu and not lead and not re.search(rf"(?<![A-Za-z0-9]){re.escape(s.gpu.split('-')[0])}s\b",
                                                  self.question, re.IGNORECASE):
            head += self.single_gpu_line(plan, s.gpu)  # "on A10s only?" asks for a plan of several: no one-card line
            head += yield from self.qlora_on_one(s, plan)
        # A budget every priced option is over ("¥1 a month") is answered first too: an unpriced option left in
        # the plan is no recommendation. (All options unpriced, with priced ones rejected only for the budget.)
        over = False
        if s.budget_cny_month and not lead and not any(o.price_cny_per_month is not None for o in plan.options):
            wider, _ = yield from self.call(
                "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"budget_cny_month": None}))
            )
            over = isinstance(wider, Plan) and any(o.price_cny_per_month is not None for o in wider.options)
        if s.budget_cny_month and (self.conv.turn.asks_verdict or over) and not lead:
            head[:0] = yield from self.budget_verdict(s, plan)
        elif self.conv.turn.asks_verdict and not (head or lead or s.gpu or s.instance_types or s.families):
            cheaper = re.search(_CHEAPER_ASK, self.question, re.IGNORECASE)  # "有便宜点的吗": which, not whether
            if len(named_regions(self.question)) < 2 and not cheaper:  # "上海和北京价格一样吗" weighs the regions
                head[:0] = self.plain_verdict(s, plan)  # "最多用两台，能跑吗？": yes or no within the stated limits
        if lead and (time := (yield from self.training_time(s, plan))):
            # "要多久": the time answers the question, unless the named hardware cannot hold the run: then
            # "no" answers first ("行不行，要多久" on two L20s too small for full fine-tuning).
            asked = self.asks_how_long() and self.named_fits
            head.insert(0 if asked else len(head), time)
        elif not lead and (times := (yield from self.planned_training_time(s, plan))):
            head[:0] = times
        # "how many A100s to finish within 30 days?": the count meeting the deadline answers; the top option folds
        deadline = bool(head) and bool(read_form(self.question).deadline_hours) and s.task in TRAINING and not lead
        if s.job_budget_cny and not lead:  # a training run's budget is spent once: whether it covers the run leads
            head[:0] = self.job_budget_lines(s, plan)
        usage = self.usage_line(s, plan)  # "10 hours a day on weekdays": the month at those hours is a cost line
        head[:0] = usage
        asked = self.cost_question(s)  # "那 L20 呢" after "一个月多少钱": the cost is still the question
        cost = [] if lead else (yield from self.cost_line(s, plan, asked))
        if not lead:  # "一年多少钱", "cost per 1,000 requests": the period asked answers before the month
            cost[:0] = yield from self.period_lines(s, plan, asked)
            if s.rental_hours and s.task not in TRAINING and cost:
                cost = cost[:1]  # "a 2-day hackathon": those hours' total answers; a month of it is no question
            if plan.options:  # an unknown price is said once: the period's line already says it
                name = plan.options[0].instance_type
                if say("cost.period_unpriced", self.lang, instance_type=name) in cost:
                    cost = [c for c in cost if c != say("cost.unpriced", self.lang, instance_type=name)]
        # "多少钱一个月": the month's cost answers first, before any line about the GPU; a yes/no on the GPU
        # ("is the A10 a cost-effective pick?") keeps the first line and the cost follows it
        at = 1 if head and self.conv.turn.asks_verdict and not s.budget_cny_month else 0
        # "how many H20s and what does it cost?" with no known price: the recommendation answers, the unknown
        # price and the nearest known one follow it
        unpriced = bool(cost and plan.options) and cost[0] == say(
            "cost.unpriced", self.lang, instance_type=plan.options[0].instance_type)  # fmt: skip
        # the paragraph (or the count line) says "unknown"
        deferred, cost = (cost[1:], []) if unpriced and (counted or not head) else ([], cost)
        head[at:at] = cost
        billing = billing_choice(self.question, s, plan, self.lang)  # "spot or pay-as-you-go?" answers first
        billing[:0] = region_lead  # the region asked answers like a billing choice: the plan's paragraph folds
        if not lead and s.speed and (target := plan_target_line(plan.model_dump(mode="json"), self.lang)):
            # "≥ 30 tokens/s each", "TTFT < 1 s": the option that meets it and its figure answer first
            billing.insert(0, target)
        head[:0] = billing
        prefer = [*s.gpu_mentions, *s.families]
        verdict = bool(head) and (self.conv.turn.asks_verdict or over) and not lead
        brief, details = plan_brief(
            plan, self.lang, prefer=prefer, capacity=self.conv.slots.asks_capacity,
            summary=not (verdict or cost or billing or lead or usage or counted or deadline),
        )
        # The cost line, a count, or a verdict on named hardware, answers; the top option's paragraph folds.
        if (cost or billing or lead or usage or counted or deadline) and plan.options:
            summary = render.plan_summary(plan, self.lang)
            details.insert(0, AnswerDetail(title=say("details.plan", self.lang), markdown=summary))
        if lead and self.named_fits and not offered:
            # The named hardware holds it: that is the answer; the planner's other options fold away.
            details.insert(0, AnswerDetail(title=say("details.plan", self.lang), markdown="\n\n".join(brief)))
            brief = []
        # "How does TP work, and how many A10s?": the concept is answered, cited, right after the sizing; the
        # cost per million tokens (not asked) folds to keep the answer within a plan's length.
        if concept := (yield from GuidanceIntent.concept_line(self, self.question)):  # type: ignore[arg-type]
            token_cost = render.token_cost_phrase(plan.options[0], self.lang) if plan.options else ""
            if token_cost in brief and not s.asks_cost:
                brief.remove(token_cost)
                details.append(AnswerDetail(title=say("details.assumptions", self.lang), markdown=token_cost))
        parts = [*head, *brief]
        if assumed := self.conv.defaulted.get("model_unnamed"):  # no model named: the one planned, said second
            note = "_" + say("describe.defaulted_model_unnamed", self.lang, value=assumed) + "_"
            parts.insert(1, note)
            understood = understood.replace(f"\n\n{note}", "")  # said once
        parts[1:1] = concept
        parts[len(head) + 1 : len(head) + 1] = deferred
        if offered:  # after the verdict on the GPU itself (it may be the user's own), unless renting it is asked
            rent = self.named_fits and re.search(_RENT_ASK, self.question, re.IGNORECASE)
            parts.insert(0 if rent else len(lead), offered)
        # "cheapest setup that hits 25 tok/s?": the speed target leads; the 4-bit line answers a plain "cheapest way"
        way = bool(re.search(CHEAPEST_WAY_RE, self.question, re.IGNORECASE)) and not s.speed
        if not (lead or region_lead) and (int4 := (yield from self.int4_line(s, plan, first=way))):
            # "cheapest way to run 70B?" asks for the cheapest way, and "cheaper option?" after a plan for exactly
            # that: 4-bit answers first; otherwise it follows the plan
            at = 0 if way or re.search(_CHEAPER_ASK, self.question, re.IGNORECASE) else 1
            parts[at:at] = int4
            token_cost = render.token_cost_phrase(plan.options[0], self.lang)
            if token_cost in parts and not s.asks_token_cost:  # not asked: folds, keeping the plan's length
                parts.remove(token_cost)
                details.append(AnswerDetail(title=say("details.assumptions", self.lang), markdown=token_cost))
        if s.gpu and not plan.options:
            parts.append((yield from self.without_gpu(s)))
        if s.gpus:
            # "what about 4 GPUs?": the answer to the follow-up leads; otherwise the per-GPU view folds.
            # A verdict on named hardware already answers "and on 2 A10s?"; the per-GPU view then folds.
            first = bool(self.conv.turn.gpus and self.conv.turn.follow_up) and not lead
            section = yield from self.gpu_count_section(s, plan, lead=first)
            if first:
                parts.insert(0, section)
            else:
                details.insert(0, AnswerDetail(title=say("details.gpu_count", self.lang), markdown=section))
        if not (cost or lead) and plan.options and plan.options[0].price_cny_per_hour is None:
            parts += yield from self.nearest_price_note(s, plan)
        parts += self.plan_notes(s, plan)
        parts += [*self.rate_note(s), *self.architecture_note(s)]
        parts.append(understood)
        passages = yield from self.search(self.plan_query(s, plan), n=2, prefer_docs=self.plan_docs(s))
        if quotes := self.quotes(passages, self.plan_query(s, plan)):
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        details += self.length_details(s)
        return Reply(text="\n\n".join(p for p in parts if p), kind="recommendation", details=details)

    def nearest_price_note(self, s: Slots, plan: Plan) -> Events:
        """Give the nearest known price, region and date for a top option whose price is unknown (said above)."""
        return (yield from PricesIntent.nearest_line(self, plan.options[0].instance_type, s.region))  # type: ignore[arg-type]

    def plan_notes(self, s: Slots, plan: Plan) -> list[str]:
        """Short notes on what the plan could not check: token cost, QPS without lengths, the budget."""
        notes = []
        top = plan.options[0] if plan.options else None
        if self.conv.turn.asks_token_cost and (top is None or top.cost_cny_per_million_tokens is None):
            notes.append(say("plan.note_no_token_cost", self.lang))
        if s.qps and not s.context:
            qps = render.fig(s.qps)
            notes.append(say("plan.note_qps_lengths", self.lang, qps=qps))
        if s.budget_cny_month and top is not None and top.price_cny_per_month is None:
            notes.append(say("plan.note_no_price_budget", self.lang))
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
                say("plan.batch_one_fits", self.lang, instance_type=fits.instance_type,
                    gib=render.fig(fits.per_gpu_gib_needed))
                if fits
                else say("plan.batch_one_still_no", self.lang, gpu=s.gpu)
            )  # fmt: skip
            lines.append(say("plan.lower_batch", self.lang, batch=s.batch, verdict=verdict))
        elif s.task == "inference" and s.context:
            lines.append(say("plan.shorten_context", self.lang))
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": None}))
        )
        if isinstance(wider, Plan) and wider.options:
            top = wider.options[0]
            key = "plan.best_any_gpu" if top.price_cny_per_hour is not None else "plan.best_any_gpu_unpriced"
            lines.append(
                say(key, self.lang, instances=top.instances, instance_type=top.instance_type,
                    count=top.gpu_count, gpu=render.gpu_label(top, self.lang),
                    need=render.fig(top.per_gpu_gib_needed), usable=render.fig(top.per_gpu_capacity_gib),
                    price=render.fig(top.price_cny_per_hour, self.lang))
            )  # fmt: skip
        head = say("plan.instead_of_gpu", self.lang, gpu=s.gpu)
        return head + "\n" + "\n".join(lines) if lines else ""

    def single_gpu_line(self, plan: Plan, gpu: str) -> list[str]:
        """When a GPU is named: whether one card of it is enough, from the planner's own rejections."""
        one = _one_card_rejected(plan, gpu)
        if one is None:
            return []
        reason = one.reason.render(self.lang)
        return [say("plan.one_gpu_short", self.lang, gpu=gpu, instance_type=one.instance_type)
                + (f" — {reason}" if reason else "")]  # fmt: skip

    def qlora_on_one(self, s: Slots, plan: Plan) -> Events:
        """LoRA that one named card cannot hold: whether QLoRA (a 4-bit base) fits it, the smallest change."""
        one = _one_card_rejected(plan, s.gpu)
        if s.task != "lora" or one is None or "usable" not in one.reason.values:
            return []
        est, _ = yield from self.call("estimate_gpu_memory", estimate_gpu_memory,
                                      **memory_args(s.model_copy(update={"task": "qlora"}), gpus=1))  # fmt: skip
        usable = float(one.reason.values["usable"])  # type: ignore[arg-type]
        if not isinstance(est, MemoryEstimate) or est.per_gpu_band_high_gib > usable:
            return []
        return [say("plan.qlora_on_one", self.lang, gpu=s.gpu, need=render.fig(est.per_gpu_total_gib),
                    usable=render.fig(usable))]  # fmt: skip

    def gpu_count_section(self, s: Slots, plan: Plan, lead: bool = False) -> Events:
        """Estimate per-GPU memory on the number of GPUs the user named; list the options of that size."""
        est, err = yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **memory_args(s, gpus=s.gpus))
        if err or not isinstance(est, MemoryEstimate):
            return self.error(err or "").text
        same = [o for o in plan.options if o.total_gpus == s.gpus]
        where = say("plan.where_below" if lead else "plan.where_above", self.lang)
        layout = say("plan.layout_note", self.lang, layout=est.layout.render(self.lang))
        head = say("plan.on_gpus_one" if s.gpus == 1 else "plan.on_gpus", self.lang, gpus=s.gpus,
                   gib=render.fig(est.per_gpu_total_gib), layout=layout)  # fmt: skip
        if same:
            names = ", ".join(f"`{o.instance_type}`" for o in same)
            return head + say("plan.exactly_options", self.lang, where=where, gpus=s.gpus, names=names)
        return head + say("plan.no_exact_options", self.lang, where=where, gpus=s.gpus)

    def spread_line(self, s: Slots) -> Events:
        """Say the planner's smallest layout for a model no single GPU holds (empty when nothing fits)."""
        plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(s))
        if not isinstance(plan, Plan) or not plan.options:
            return []
        top = plan.options[0]
        return [say("memory.spread", self.lang, instances=top.instances, instance_type=top.instance_type,
                    gpus=top.total_gpus, gpu=render.gpu_label(top, self.lang), need=render.fig(top.per_gpu_gib_needed),
                    usable=render.fig(top.per_gpu_capacity_gib))]  # fmt: skip

    def region_figures(self, cheapest: Note) -> dict[str, Any]:
        """Return the cheapest-region note's figures, as the lead says them."""
        v = cheapest.values
        return {"region": region_label(str(v["region"]), self.lang), "instance_type": v["instance_type"],
                "instances": v["instances"], "price": render.fig(float(v["cny_per_hour"])),  # type: ignore[arg-type]
                "as_of": v["as_of"], "regions": v["regions"]}  # fmt: skip

    def kv_lead(self, est: MemoryEstimate, args: dict[str, Any]) -> str:
        """Say the KV cache of the estimated batch, over all GPUs, as the first line."""
        tokens = args.get("prompt_tokens", 0) + args.get("gen_tokens", 0)
        return say("memory.kv_lead", self.lang, kv=render.fig(est.per_gpu.kv_cache_gib * est.num_gpus),
                   seqs=args.get("batch") or 1, tokens=render.fig(tokens) if tokens else "?",
                   total=render.fig(est.per_gpu_total_gib))  # fmt: skip

    def memory_answer(self, s: Slots, understood: str) -> Events:
        """Estimate memory per GPU term by term and cite the sizing guidance."""
        if too_long := (yield from self.context_limit(s)):  # "7B with a 50M context": the model's window answers
            return too_long
        if s.task in TRAINING and len(methods := methods_named(self.question)) >= 2:
            return (yield from self.methods_memory(s, methods, understood))
        args = memory_args(s, gpus=s.gpus)
        est, err = yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **args)
        if err:
            return self.error(err)
        assert isinstance(est, MemoryEstimate)
        brief, details = estimate_brief(est, self.lang)
        if re.search(KV_SIZE_RE, self.question, re.IGNORECASE) and est.per_gpu.kv_cache_gib:
            brief.insert(0, self.kv_lead(est, args))  # "KV cache 有多大": that figure first
        largest = max(g.memory_gib for g in catalog.list_gpus())  # no card of the catalog holds more
        if s.gpus is None and est.num_gpus == 1 and est.per_gpu_total_gib > largest:
            brief[1:1] = yield from self.spread_line(s)  # "a 1T model in FP8": no card holds it; over how many
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

    def methods_memory(self, s: Slots, methods: Sequence[str], understood: str) -> Events:
        """Estimate memory once per training method weighed ("full fine-tune vs LoRA"), each method's total first."""
        estimates: list[MemoryEstimate] = []
        for method in methods:
            args = memory_args(s.model_copy(update={"task": method}), gpus=s.gpus)
            est, err = yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **args)
            if err:
                return self.error(err)
            assert isinstance(est, MemoryEstimate)
            estimates.append(est)
        names = {"full": say("describe.task_full", self.lang), "lora": "LoRA", "qlora": "QLoRA"}
        sides = [say("memory.method_side", self.lang, method=names[e.task], gib=render.fig(e.per_gpu_total_gib))
                 for e in estimates]  # fmt: skip
        sides[0] = sides[0][:1].upper() + sides[0][1:]  # "Full fine-tuning: ..." opens the answer
        head = say("memory.methods", self.lang, sides=say("list.semicolon", self.lang).join(sides),
                   model=s.model, gpus=estimates[0].num_gpus)  # fmt: skip
        details: list[AnswerDetail] = []
        for est in estimates:
            brief, folded = estimate_brief(est, self.lang)
            details.append(AnswerDetail(title=names[est.task], markdown="\n\n".join(brief[1:])))
            details += folded[:1] if est is estimates[0] else []
        topic = self.t("训练显存 梯度 优化器状态 LoRA", "training memory gradients optimizer states LoRA")
        query = f"{self.question} {topic}"
        passages = yield from self.search(query, n=2, prefer_docs=("memory-sizing",))
        if quotes := self.quotes(passages, query):
            details.append(AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes)))
        understood = self.understood_line(s.model_copy(update={"task": None}))
        return Reply(text="\n\n".join([head, understood]), kind="estimate", details=details)


def _one_card_rejected(plan: Plan, gpu: str | None) -> Rejection | None:
    """Return the planner's rejection of one card of ``gpu`` (why a single one is not enough), or None."""
    return next((r for r in plan.rejected if r.gpu_model == gpu and r.reason.values.get("gpus") == 1), None)
