"""Plan and memory questions: ask for what is missing, check named hardware, compare variants."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant import render
from assistant.answer import AnswerDetail
from assistant.bad_names import unknown_model_names
from assistant.intents.arguments import (
    instance_gpu,
    plan_args,
    same_size_suggestion,
)
from assistant.intents.compare_lead import SideOutcome, lead_line, option_outcome
from assistant.intents.compare_sides import (
    gpu_settings,
    methods_named,
    model_settings,
    precisions_named,
    setting_label,
)
from assistant.intents.compare_yes_no import yes_no_lead
from assistant.intents.verdict_words import COST_RE, offered
from assistant.messages import say
from assistant.run import TRAINING, Events, Reply, Run
from assistant.toolbox import (
    estimate_gpu_memory,
    find_instance_types,
    gpu_specs,
    model_card,
    plan_gpu_deployment,
    text_length_tokens,
)
from assistant.understanding import Slots
from tools import catalog
from tools.errors import UnknownNameError
from tools.models import resolve_model
from tools.plan import DeploymentOption, Plan

# "how many ecs.X do I need", "需要几台": the count of a named type is asked, not whether one fits
_HOW_MANY_RE = (
    r"how\s+many\s+(?:of\s+(?:these|them|those|it)|instances|machines|servers|nodes|boxes|(?:ecs\.)?(?:ebm)?gn\d)|"
    r"(?:需要|要|得)\s*(?:几|多少)\s*台|几台|多少台"
)
# Documented RoPE scaling (YaRN factor 4 for Qwen2.5) reaches 4x the configured context.
_ROPE_SCALING_FACTOR = 4


def catalog_gpu(name: str, families: Sequence[str] = ()) -> str:
    """Return the catalog's name of a GPU ("A100 80G" -> A100-80GB, "A100" -> its stated default), else as typed.

    Every side of a comparison then calls the tools with the GPU it is priced and sized as, so the recorded
    calls say which variant was assumed. A family named beside an ambiguous GPU says which variant it is
    ("V100s (gn6e)" -> V100-32GB).
    """
    try:
        return catalog.choose_gpu(name).gpu.name
    except UnknownNameError:
        for family in families:
            variants = {i.gpu_name for i in catalog.list_instances(family=family)} - {None}
            if len(variants) == 1 and (gpu := variants.pop()).upper().startswith(name.upper()):
                return gpu
        return name  # ambiguous without a default ("V100") or unknown: the tool answers with the variants


class WorkloadIntent(Run):
    """Plans or estimates a workload, or asks the one question that is missing."""

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
            substitute = same_size_suggestion(s.model_mention, err or s.model_error)
            if substitute is None or s.task is None:
                return reply
            # "Qwen-70B INT4 ... L20": no such model, but the nearest real one of that size answers the
            # question; the name error (and the guidance's correction) is said first.
            message = err or s.model_error
            message = self.in_language(message)  # the tool's own words, in the answer's language
            note = say("workload.no_such_model", self.lang, mention=s.model_mention, message=message,
                       substitute=substitute)  # fmt: skip
            s = s.model_copy(update={"model": substitute, "model_error": None})
            planned = yield from self.sized(s)
            first, _, rest = planned.text.partition("\n\n")
            if self.conv.turn.asks_verdict and rest:  # "will llama 8b run on a T4?": the verdict first, the name after
                planned.text = "\n\n".join([first, note, *quotes, rest])
            else:
                planned.text = "\n\n".join([note, *quotes, planned.text])
            return planned
        if self.conv.missing:
            if "model" in self.conv.missing and (named := unknown_model_names(self.question)):
                return self.unknown_model(named[0])  # "SeamlessM4T for 50 calls": named, just not in the catalogs
            return self.clarify(s, self.conv.missing)
        return (yield from self.sized(s))

    def sized(self, s: Slots) -> Events:
        """Plan or estimate a workload whose model and task are known."""
        if only := self.counted_type(s):
            # "how many ecs.gn8is-4x.16xlarge do I need?": the count is the question, not a fixed set to check
            counted = s.model_copy(update={"gpu": instance_gpu(only)})
            return (yield from self.plan_answer(counted, self.understood_line(s), only_type=only))
        checks: list[str] = []
        if s.instance_types and s.intent == "plan":
            # "Is ecs.l20-c32g1.8xlarge good for Qwen 72B?": first whether the type exists, then the plan
            # on the GPU it names (the real L20 types).
            for name in s.instance_types:
                checks.append((yield from self.check_instance(name, claimed=None)))
            if not s.gpu and (gpu := instance_gpu(s.instance_types[0])):
                s = s.model_copy(update={"gpu": gpu})
        if s.families and not s.gpu and s.intent == "plan" and not self.variants(s):
            s = yield from self.family_gpu(s)
        verdict: list[str] = []
        if s.intent == "plan" and not self.variants(s) and (hardware := (yield from self.named_hardware(s))):
            if hardware.get("gpu") and hardware["gpu"] != s.gpu:
                s = s.model_copy(update={"gpu": hardware["gpu"]})  # "A100" evaluated as A100-80GB: plan that too
            verdict = (yield from self.hardware_verdict(s, hardware)) or []
            if s.asks_longest_context:  # "8 users: how long can each context be?": the length answers first
                verdict = [*(yield from self.longest_context_lines(s, hardware, self.hardware_label)), *verdict]
            elif s.asks_request_rate or s.job_requests or s.asks_full_load:  # requests/s, "要多久跑完", "满载吞吐"
                verdict = [*(yield from self.request_rate_lines(s, hardware)), *verdict]
            elif s.asks_capacity and s.speed and s.speed.per_stream:  # "how many users at 20 tok/s each?"
                verdict = [*(yield from self.users_at_speed_lines(s, hardware, self.hardware_label)), *verdict]
            elif s.asks_capacity:  # "how many 32k users does it hold?": the count answers first
                verdict = [*(yield from self.capacity_lines(s, hardware)), *verdict]
            elif s.qps and self.named_fits and verdict:  # "2 req/s, enough with one L20?": loading is not keeping up
                short, rate = yield from self.stated_rate_lines(s, hardware)
                verdict = [*rate, *verdict[1:]] if short else [verdict[0], *rate, *verdict[1:]]
        for count in s.lengths:  # "800 个汉字": the conversion is a tool call, so its figures are grounded
            yield from self.call("text_length_tokens", text_length_tokens, amount=count.amount, unit=count.unit)
        understood = self.understood_line(s)
        if s.intent == "plan" and (variants := self.variants(s)):
            if len(self.conv.turn.models) >= 2:
                understood = self.understood_line(s.model_copy(update={"model": " vs ".join(self.conv.turn.models)}))
            elif len({(v.precision, v.quant) for _, v in variants}) > 1:  # each side's precision is in its label
                understood = self.understood_line(s.model_copy(update={"precision": None, "quant": None}))
            elif len({v.task for _, v in variants}) > 1:  # each side's method is in its label
                understood = self.understood_line(s.model_copy(update={"task": None}))
            reply = yield from self.compare_plans(variants, understood)
        elif s.intent == "memory":
            reply = yield from self.memory_answer(s, understood)
        else:
            reply = yield from self.plan_answer(s, understood, lead=verdict)
        if checks and verdict:  # the verdict answers; that the named type exists is a detail
            detail = AnswerDetail(title=say("workload.type_details", self.lang), markdown="\n\n".join(checks))
            reply.details.insert(0, detail)
        elif checks:
            reply.text = "\n\n".join([*checks, reply.text])
        return reply

    def counted_type(self, s: Slots) -> str | None:
        """Return the one named instance type whose count is asked ("how many X do I need?"), or None."""
        if s.intent != "plan" or len(s.instance_types) != 1 or s.instances or s.task_hint:
            return None
        if not re.search(_HOW_MANY_RE, self.question, re.IGNORECASE):
            return None
        try:
            return catalog.get_instance(s.instance_types[0]).instance_type
        except UnknownNameError:
            return None

    def variants(self, s: Slots) -> list[tuple[str, Slots]]:
        """Workloads to plan side by side: two models named ("A vs B"), or two GPUs for one model."""
        models = self.conv.turn.models
        if len(models) >= 2:
            own = model_settings(self.question, models)  # "32B in bf16 vs 72B-AWQ": each model as written
            return [(m, s.model_copy(update={"model": m, **own.get(m, {})})) for m in models]
        if not s.gpu and len(s.gpu_mentions) >= 2:
            gpus = s.gpu_mentions[:3]
            own = gpu_settings(self.question, gpus)  # "A10 上跑 int4，L20 上跑 bf16": each GPU as written
            changes = {g: {k: v for k, v in own.get(g, {}).items() if k != "gpus"} for g in gpus}
            return [
                (g + setting_label(changes[g], self.lang),
                 s.model_copy(update={"gpu": catalog_gpu(g, s.families), **changes[g]}))  # fmt: skip
                for g in gpus
            ]
        if not s.gpu and len(s.families) >= 2:
            # "gn7i vs gn8is for Qwen2.5-7B": each family's GPU under the same workload.
            out = []
            for family in s.families[:3]:
                gpus = {i.gpu_name for i in catalog.list_instances(family=family)} - {None}
                if len(gpus) == 1:
                    gpu = gpus.pop()
                    out.append((f"{family} ({gpu})", s.model_copy(update={"gpu": gpu, "families": [family]})))
            return out if len(out) >= 2 else []
        return self.mixed_sides(s) or self.setting_sides(s)

    def setting_sides(self, s: Slots) -> list[tuple[str, Slots]]:
        """One model planned per training method or precision weighed ("full vs LoRA on 100M tokens", "int4 vs fp8")."""
        if len(self.conv.turn.models) >= 2 or s.instance_types or s.gpus:
            return []  # models side by side, or a fixed set of hardware (its own comparison)
        if methods := methods_named(self.question)[:3]:
            names = {"full": say("describe.task_full", self.lang), "lora": "LoRA", "qlora": "QLoRA"}
            return [(names[m], s.model_copy(update={"task": m, "task_hint": None})) for m in methods]
        precisions = precisions_named(self.question)[:3]
        return [(setting_label(p, self.lang).strip(" ()"), s.model_copy(update=p)) for p in precisions]

    def mixed_sides(self, s: Slots) -> list[tuple[str, Slots]]:
        """Sides named partly as families, partly as GPUs ("gn7i vs L20"), when they are two or more GPUs."""
        if not (s.families and s.gpu_mentions) or s.gpus or s.instance_types:
            return []
        sides: dict[str, tuple[str, Slots]] = {}
        for family in s.families[:3]:
            gpus = {i.gpu_name for i in catalog.list_instances(family=family)} - {None}
            if len(gpus) == 1:
                gpu = gpus.pop()
                sides.setdefault(gpu, (f"{family} ({gpu})", s.model_copy(update={"gpu": gpu, "families": [family]})))
        for mention in s.gpu_mentions[:3]:
            gpu = catalog_gpu(mention)
            sides.setdefault(gpu, (mention, s.model_copy(update={"gpu": gpu, "families": []})))
        return list(sides.values())[:3] if len(sides) >= 2 else []

    def compare_plans(self, variants: list[tuple[str, Slots]], understood: str) -> Events:
        """Plan each variant and compare their cheapest fitting options (price per hour, month, M tokens)."""
        head = say("workload.table_head", self.lang)
        rows, priced, lines = [head, "|---|---|---|---|---|---|---|"], [], []
        fitted: list[tuple[str, DeploymentOption]] = []
        over_budget: list[str] = []  # variants that fit only above the stated budget
        planned = []
        for label, variant in variants:
            plan, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(variant))
            planned.append((label, variant, plan, err))
        # A training run with its token count on every side: each side stands on its cheapest run, not its hour.
        by_run = all(isinstance(p, Plan) and any(o.training_cost_cny is not None for o in p.options)
                     for _, _, p, _ in planned)  # fmt: skip
        for label, variant, plan, err in planned:
            if err or not isinstance(plan, Plan) or not plan.options:
                over = None if err else (yield from self.over_budget(label, variant))
                reason = err or say("workload.none_fits", self.lang)
                lines.append(over or f"- **{label}**: {reason}")
                over_budget += [label] if over else []
                continue
            best = min(plan.options, key=lambda o: (o.price_cny_per_hour is None, o.price_cny_per_hour or 0))
            if by_run:
                best = min((o for o in plan.options if o.training_cost_cny is not None),
                           key=lambda o: o.training_cost_cny or 0)  # fmt: skip
            fitted.append((label, best))
            rows.append(
                f"| {label} | `{best.instance_type}` ({render.gpu_label(best, self.lang)}) | {best.total_gpus} | "
                f"{render.fig(best.per_gpu_gib_needed)} / {render.fig(best.per_gpu_capacity_gib)} | "
                f"{render.fig(best.price_cny_per_hour, self.lang)} | {render.fig(best.price_cny_per_month, self.lang)} "
                f"| {render.fig(best.cost_cny_per_million_tokens, self.lang)} |"
            )
            if best.price_cny_per_hour is not None:
                per_m = best.cost_cny_per_million_tokens
                priced.append((best.price_cny_per_hour, per_m if per_m is not None else float("inf"), label, best))
        # The winner leads, then a winner per criterion, the table, and what was understood.
        parts: list[str] = []
        budget = variants[0][1].budget_cny_month
        if budget and len(priced) < len(variants):  # "which stays under ¥20k?": the budget decides first
            parts.append(self.budget_head(budget, priced, over_budget))
        lead = yield from self.plans_lead(variants, fitted)
        parts += [lead] if lead else []
        if len(priced) >= 2:
            verdict = [] if lead else [self.price_verdict(priced)]
            parts += [*verdict, *self.criterion_winners(fitted), *self.token_winner(priced)]
        elif budget and parts:
            parts += self.criterion_winners(fitted)
        unpriced = [label for label, _ in fitted if label not in {p[2] for p in priced}]
        if len(priced) < 2 and not (budget and parts) and len(variants) >= 2:
            parts += self.criterion_winners(fitted)  # without prices, speed and headroom decide first
            if priced and unpriced and not re.search(COST_RE, self.question, re.IGNORECASE):
                # one side priced, the cost not asked (else the lead names the priced side): name the others
                parts.append(say("compare.unpriced", self.lang, labels=self.t("、", ", ").join(unpriced)))
            else:
                parts.append(say("workload.prices_missing", self.lang))
        if unpriced and (len(priced) >= 2 or budget):  # said once: a missing price is neither "free" nor skipped
            parts.append(say("compare.unpriced", self.lang, labels=self.t("、", ", ").join(unpriced)))
        parts += ["\n".join(rows) if len(rows) > 2 else "", "\n".join(lines), understood]
        return Reply(text="\n\n".join(p for p in parts if p), kind="recommendation")

    def plans_lead(self, variants: list[tuple[str, Slots]], fitted: list[tuple[str, DeploymentOption]]) -> Events:
        """Return the winner-first line of compared plans: the only side that fits, or the winner of what was asked."""
        found = {label for label, _ in fitted}
        # A GPU no instance type offers ("H800") is not offered, which is not "does not fit".
        missing = [(lb, v) for lb, v in variants if lb not in found]
        unfit = [lb for lb, v in missing if not v.gpu or offered(v.gpu)]
        if len(fitted) == 1 and len(variants) >= 2 and len(unfit) == len(missing):
            label, o = fitted[0]
            line = say("compare.only_fits", self.lang, label=label, others=self.t("、", ", ").join(unfit),
                       need=render.fig(o.per_gpu_gib_needed), usable=render.fig(o.per_gpu_capacity_gib))  # fmt: skip
            return yes_no_lead(line, [("", label)], [lb for lb, _ in variants], self.question, self.lang)
        if len(unfit) < len(missing):  # a side could not be planned at all: the spec sheets compare it instead
            return None
        sides = [option_outcome(label, o) for label, o in fitted]
        if variants and variants[0][1].task in TRAINING and not all(o.training_hours for _, o in fitted):
            sides = yield from self.with_plan_compute(sides, [o for _, o in fitted])
        sides += [SideOutcome(label=label, fits=False) for label in unfit]
        lead = lead_line(sides, self.question, self.lang)
        self.compared_lead = lead is not None  # the spec sheet's line need not lead as well
        return lead

    def with_plan_compute(self, sides: list[SideOutcome], options: list[DeploymentOption]) -> Events:
        """Return the sides with their fleets' dense BF16 TFLOPS (training speed without a token count)."""
        out = []
        for side, o in zip(sides, options, strict=True):
            spec, _ = yield from self.call("gpu_specs", gpu_specs, name=o.gpu_model or o.gpu_model_likely or "")
            tflops = getattr(spec, "bf16_dense_tflops", None)
            out.append(side.model_copy(update={"train_tflops": tflops * o.total_gpus} if tflops else {}))
        return out

    def over_budget(self, label: str, variant: Slots) -> Events:
        """Return the line of a variant nothing fits within the budget: its cheapest priced fit, or None."""
        if not variant.budget_cny_month:
            return None
        unbounded = variant.model_copy(update={"budget_cny_month": None})
        wider, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(unbounded))
        priced = [o for o in (wider.options if isinstance(wider, Plan) else []) if o.price_cny_per_month is not None]
        if not priced:
            return None
        o = min(priced, key=lambda o: o.price_cny_per_month or 0)
        return "- " + say("compare.over_budget", self.lang, label=label, instance_type=o.instance_type,
                          gpus=o.total_gpus, monthly=render.fig(o.price_cny_per_month),
                          budget=render.fig(variant.budget_cny_month))  # fmt: skip

    def budget_head(self, budget: float, priced: list[tuple[float, float, str, DeploymentOption]],
                    over: list[str]) -> str:  # fmt: skip
        """Return the first line when a budget is stated and not every variant has a priced option within it."""
        if not priced:
            code = "compare.budget_over" if over else "compare.budget_none"
            return say(code, self.lang, budget=render.fig(budget), over=self.t("、", ", ").join(over))
        _, _, label, o = min(priced, key=lambda p: p[3].price_cny_per_month or 0)
        return say("compare.budget_one", self.lang, label=label, instance_type=o.instance_type,
                   monthly=render.fig(o.price_cny_per_month), budget=render.fig(budget))  # fmt: skip

    def token_winner(self, priced: list[tuple[float, float, str, DeploymentOption]]) -> list[str]:
        """Name the cheapest variant per million tokens when it is not the cheapest per hour (else nothing)."""
        costed = sorted((p[1], p[2]) for p in priced if p[1] != float("inf"))
        hourly = min(priced, key=lambda p: (p[0], p[1]))[2]
        if len(costed) < 2 or costed[0][1] == hourly or costed[0][0] >= costed[-1][0]:
            return []
        (cost, label), (other_cost, other) = costed[0], costed[-1]
        return [say("compare.cheapest_tokens", self.lang, label=label, cost=render.fig(cost), other=other,
                    other_cost=render.fig(other_cost))]  # fmt: skip

    def criterion_winners(self, fitted: list[tuple[str, DeploymentOption]]) -> list[str]:
        """Name the fastest decode and the most memory headroom among the variants' options (when they differ)."""
        out = []
        counts = sorted((o.total_gpus, label) for label, o in fitted)
        if len(counts) >= 2 and counts[0][0] < counts[-1][0]:
            # fleets of different sizes: speed and headroom compare 4 cards with 8, so the card count leads
            (few, label), (many, other) = counts[0], counts[-1]
            code = "compare.fewest_one" if few == 1 else "compare.fewest"
            out.append(say(code, self.lang, label=label, few=few, other=other, many=many))
        speeds = [(o.decode_tokens_per_s, label) for label, o in fitted if o.decode_tokens_per_s]
        if len(speeds) >= 2 and max(speeds)[0] > min(speeds)[0]:
            (fast, label), (slow, _) = max(speeds), min(speeds)
            out.append(say("compare.fastest", self.lang, label=label, fast=render.fig(fast), slow=render.fig(slow)))
        rooms = [(o.headroom_pct, label) for label, o in fitted]
        if len(rooms) >= 2 and max(rooms)[0] > min(rooms)[0]:
            pct, label = max(rooms)
            out.append(say("compare.roomiest", self.lang, label=label, pct=render.fig(pct)))
        return out

    def price_verdict(self, priced: list[tuple[float, float, str, DeploymentOption]]) -> str:
        """Which variant is cheaper per hour; on equal hourly prices, per million tokens (both figures shown)."""
        priced.sort(key=lambda p: (p[0], p[1]))
        (low, _, a, oa), (high, _, b, ob) = priced[0], priced[-1]
        if low < high:
            return say("workload.cheaper_hourly", self.lang, a=a, b=b, type_a=oa.instance_type,
                       type_b=ob.instance_type, low=render.fig(low), high=render.fig(high))  # fmt: skip
        ca, cb = render.fig(oa.cost_cny_per_million_tokens), render.fig(ob.cost_cny_per_million_tokens)
        code = "workload.same_price" if ca == cb else "workload.cheaper_tokens"  # "gn7e vs ebmgn7e": one card
        return say(code, self.lang, a=a, b=b, low=render.fig(low), ca=ca, cb=cb)

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
        if not s.context or not s.model or s.architecture:
            return None
        if s.context <= _ROPE_SCALING_FACTOR * resolve_model(s.model).max_context:
            return None
        card, _ = yield from self.call("model_card", model_card, model=s.model)
        if card is None:
            return None
        limit, asked = render.fig(card.max_context), render.fig(s.context)
        return Reply(
            text=say("workload.context_beyond", self.lang, asked=asked, model=s.model, limit=limit),
            kind="error",
        )
