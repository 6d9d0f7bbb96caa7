"""Hardware the user fixed ("4 张 L20", "on ecs.gn8is.4xlarge", "a single 4-GPU gn7i box", "最多用两台").

The named hardware is evaluated as named (never swapped for a sibling with fewer GPUs): the first line
says whether the workload fits, with the per-GPU figures that decide it; then the smallest change that
makes it fit. The planner's ranked options follow as the alternative.
"""

from __future__ import annotations

import re
from typing import Any

from assistant import render
from assistant.billing_words import asks_price
from assistant.intents.arguments import plan_args, task_of
from assistant.intents.hardware_prices import MUCH_SMALLER, HardwarePrices, much_cheaper
from assistant.intents.plan_leads import COST_ASK_RE
from assistant.intents.verdict_overkill import fewer_cards_line, inverted_kind, inverted_line, smaller_option
from assistant.messages import say
from assistant.run import Events
from assistant.toolbox import (
    concurrent_users,
    evaluate_hardware_fit,
    find_instance_types,
    gpu_specs,
    plan_gpu_deployment,
)
from assistant.understanding import Slots
from tools import catalog
from tools.capacity import Capacity
from tools.errors import UnknownNameError
from tools.hardware_fit import Hardware, HardwareFit
from tools.memory_request import MAX_GPUS
from tools.plan import Plan
from tools.workload import DEFAULT_CONTEXT_TOKENS

_TIGHT_PCT = 10  # under 10% headroom fragmentation can still cause OOM (the planner's tight_fit)


class HardwareIntent(HardwarePrices):
    """Evaluates the hardware a user named before anything else is suggested."""

    def named_hardware(self, s: Slots) -> Events:
        """Return the hardware arguments the user fixed (instance type, or GPU and count), or None."""
        instances = s.instances or s.max_instances or 1
        for name in s.instance_types:
            try:
                return {"instance_type": catalog.get_instance(name).instance_type, "instances": instances}
            except UnknownNameError:
                continue
        if s.families and s.gpus:
            # "a single 4-GPU gn7i box": the family's type with exactly that many GPUs.
            listed, _ = yield from self.call("find_instance_types", find_instance_types, family=s.families[0])
            sized = [i for i in (listed.instances if listed else []) if i.gpu_count == s.gpus and not i.vgpu]
            if sized:
                return {"instance_type": sized[0].instance_type, "instances": instances}
        if len(s.families) == 1 and s.instances and not s.gpus:
            # "一台 gn8v", "a single gn8v instance": the family's widest type, the most one instance of it holds
            return (yield from self.widest_in_family(s.families[0], instances))
        if s.gpu and s.gpus:
            return {"gpu": self.one_gpu(s.gpu), "gpus": s.gpus, "instances": instances}
        return None

    def widest_in_family(self, family: str, instances: int) -> Events:
        """Return the hardware arguments of the family's type with the most whole GPUs, or None."""
        listed, _ = yield from self.call("find_instance_types", find_instance_types, family=family)
        whole = [i for i in (listed.instances if listed else []) if isinstance(i.gpu_count, int) and not i.vgpu]
        if not whole:
            return None
        widest = max(whole, key=lambda i: (i.gpu_count, -whole.index(i)))  # the first listed on a tie
        return {"instance_type": widest.instance_type, "instances": instances}

    def one_gpu(self, name: str) -> str:
        """Return a GPU the fit can evaluate: an ambiguous family ("A100") becomes its first variant, said so."""
        try:
            return catalog.get_gpu(name).name
        except UnknownNameError as exc:
            if not exc.suggestions:
                return name  # the tool will answer with the error
            self.warnings.append(
                say("hardware.variant_assumed", self.lang, name=name, variant=exc.suggestions[0])
            )  # fmt: skip
            return exc.suggestions[0]

    def hardware_verdict(self, s: Slots, hardware: dict[str, Any]) -> Events:
        """Yes or no on the named hardware, the deciding figures, and the smallest change that fits."""
        task = task_of(s)
        args: dict[str, Any] = {"model": s.model, "task": task, "architecture": s.architecture, **hardware}
        if task == "inference":
            args |= {"precision": s.precision, "quant": s.quant, "context": s.context, "gen_tokens": s.gen_tokens}
            args["concurrency"] = s.concurrency or s.batch
        else:
            args |= {"batch": s.batch, "seq_len": s.context}
            if task == "full" and s.precision in ("bf16", "fp16", "fp32"):
                args["precision"] = s.precision
        total = (hardware.get("gpus") or 1) * (hardware.get("instances") or 1)
        if total > MAX_GPUS:  # "10000 张 H800": refused as stated, never silently sized on other hardware
            return [say("fit.too_many_gpus", self.lang, gpus=render.fig(total), limit=render.fig(MAX_GPUS))]
        fit, err = yield from self.call("evaluate_hardware_fit", evaluate_hardware_fit, **args)
        if err or not isinstance(fit, HardwareFit):
            return None
        self.named_fits = fit.fits
        if task == "inference" and (kind := inverted_kind(self.question)):  # "is it overkill?", "有必要吗?"
            return (yield from self.inverted_verdict(s, fit, kind))
        lines = self.fit_lines(fit)
        if fit.fits and task == "inference":  # a named type, or a GPU set ("is an A100 a good choice")
            lines = (yield from self.cheaper_than_named(s, fit)) or lines
        asks_cost = (
            self.conv.turn.asks_token_cost or re.search(COST_ASK_RE, self.question, re.I) or asks_price(self.question)
        )
        if task == "inference" and fit.fits and asks_cost:  # "what does 1M tokens cost on 4 x L20?"
            cost = yield from self.named_cost(s, fit)
            lines = [*lines[:1], *cost, *lines[1:]] if self.conv.turn.asks_verdict else [*cost, *lines]
        return lines

    def inverted_verdict(self, s: Slots, fit: HardwareFit, kind: Any) -> Events:
        """'Is this overkill?' on named hardware: more than needed or not, and the cheaper option that also runs it."""
        hw, hourly = fit.hardware, None
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": None}))
        )
        best = wider.options[0] if isinstance(wider, Plan) and wider.options else None
        alternative = best  # too small: what runs it instead
        if fit.fits:
            hourly = yield from self.named_hourly(s, hw)
            own = None if hourly is None else hourly * hw.instances
            alternative = smaller_option(best, own, hw.gpu, hw.gpus, hw.usable_gib_per_gpu)
            hourly = own
        line = inverted_line(kind, self.lang, hardware=self.hardware_label(hw), model=fit.model,
                             need=fit.per_gpu_needed_gib, usable=fit.per_gpu_usable_gib, pct=fit.headroom_pct,
                             fits=fit.fits, own_hourly=hourly, alternative=alternative)  # fmt: skip
        return [line, *self.fit_lines(fit)[1:]]

    def capacity_lines(self, s: Slots, hardware: dict[str, Any]) -> Events:
        """'How many concurrent 32k users does this hold?' on the named hardware, from its KV budget."""
        if task_of(s) != "inference":
            return []
        args = {"model": s.model, "context": s.context or DEFAULT_CONTEXT_TOKENS, "architecture": s.architecture}
        args |= hardware
        args |= {"precision": s.precision, "quant": s.quant}
        cap, err = yield from self.call("concurrent_users", concurrent_users, **args)
        if err or not isinstance(cap, Capacity):
            return []
        label = self.hardware_label(cap.hardware)
        code = "capacity.named" if cap.sequences > 1 else "capacity.one" if cap.sequences == 1 else "capacity.none"
        return [
            say(code, self.lang, n=render.fig(cap.sequences), hardware=label,
                context=render.fig(cap.context), kv=render.fig(cap.kv_gib_per_sequence),
                budget=render.fig(cap.kv_budget_gib_per_gpu))
        ]  # fmt: skip

    def gpu_verdict(self, s: Slots, plan: Plan) -> Events:
        """'Is the L20 a good choice for X?': yes or no from the plan on that GPU, then a cheaper alternative."""
        if not plan.options:
            return [say("gpu.no", self.lang, gpu=s.gpu)]
        top = plan.options[0]
        figures = {"gpu": s.gpu, "model": plan.model, "instances": top.instances, "instance_type": top.instance_type}
        figures |= {"total": top.total_gpus, "need": render.fig(top.per_gpu_gib_needed)}
        figures["usable"] = render.fig(top.per_gpu_capacity_gib)
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": None}))
        )
        best = wider.options[0] if isinstance(wider, Plan) and wider.options else None
        if task_of(s) == "inference" and (kind := inverted_kind(self.question)):  # "A100 是不是大材小用"
            one = "hardware.instance" if top.instances == 1 else "hardware.instances"
            label = say(one, self.lang, instance_type=top.instance_type, count=top.total_gpus,
                        gpu=render.gpu_label(top, self.lang), instances=top.instances)  # fmt: skip
            gpu = top.gpu_model or top.gpu_model_likely
            alternative = smaller_option(best, top.price_cny_per_hour, gpu, top.total_gpus, top.per_gpu_capacity_gib)
            return [inverted_line(kind, self.lang, hardware=label, model=plan.model, need=top.per_gpu_gib_needed,
                                  usable=top.per_gpu_capacity_gib, pct=top.headroom_pct, fits=True,
                                  own_hourly=top.price_cny_per_hour, alternative=alternative)]  # fmt: skip
        if task_of(s) in ("full", "lora", "qlora") and isinstance(wider, Plan):
            slow = yield from self.slow_for_training(s.gpu, wider, figures, top)
            if slow:
                return [slow]
        cheaper = (
            best is not None
            and best.gpu_model != top.gpu_model
            and much_cheaper(top.price_cny_per_hour, top.cost_cny_per_million_tokens, best.price_cny_per_hour,
                             best.cost_cny_per_million_tokens)
        )  # fmt: skip
        if not cheaper or best is None:
            # "Can the A10 run 70B int4?": yes, on several cards; that one card is not enough is the "but".
            one_fits = any(o.total_gpus == 1 for o in plan.options)
            code = "gpu.yes" if one_fits or top.total_gpus == 1 else "gpu.yes_multi"
            smaller = best is not None and best.price_cny_per_hour and best.total_gpus <= top.total_gpus
            if top.price_cny_per_hour is None and smaller and best.per_gpu_capacity_gib * MUCH_SMALLER <= \
                    top.per_gpu_capacity_gib:  # fmt: skip
                code = "gpu.yes_smaller"  # "该不该用 H20 跑 7B": a card of half its memory holds it, priced
            line = say(code, self.lang, **figures)
            if not one_fits and (fewer := fewer_cards_line(top, best, s.gpu or "", self.lang)):
                line += self.t("", " ") + fewer  # "A10 要 4 张": one A100 for no more per hour
            if top.price_cny_per_hour is None and best and best.price_cny_per_hour:  # no price to weigh it by
                line += self.t("", " ") + say("gpu.unpriced_alternative", self.lang, gpu=s.gpu,
                    other=best.instance_type, other_gpu=render.gpu_label(best, self.lang),
                    other_price=render.fig(best.price_cny_per_hour))  # fmt: skip
            return [line]
        sep = "" if self.lang == "zh" else " "  # Chinese sentences follow each other without a space
        line = say("gpu.yes_but", self.lang, **figures) + sep + say(
            "gpu.cheaper", self.lang, other=best.instance_type, other_gpu=render.gpu_label(best, self.lang),
            other_price=render.fig(best.price_cny_per_hour), price=render.fig(top.price_cny_per_hour), gpu=s.gpu,
        )  # fmt: skip
        if best.cost_cny_per_million_tokens is not None and top.cost_cny_per_million_tokens is not None:
            line += sep + say(
                "gpu.cheaper_tokens", self.lang, other_cost=render.fig(best.cost_cny_per_million_tokens),
                cost=render.fig(top.cost_cny_per_million_tokens),
            )  # fmt: skip
        return [line]

    def slow_for_training(self, gpu: str | None, wider: Plan, figures: dict[str, Any], mine_top: Any) -> Events:
        """'H20 适合全参微调吗': it may fit, but a GPU with a third of the compute trains three times slower.

        Not said when the named GPU's option is cheaper per GPU-hour of compute (an A10 against an A100).
        """
        others = {o.gpu_model or o.gpu_model_likely for o in wider.options} - {gpu, None}
        if not gpu or not others:
            return None
        mine, _ = yield from self.call("gpu_specs", gpu_specs, name=gpu)
        best = None
        for name in sorted(others):  # the fastest trainer among the GPUs that also fit
            spec, _ = yield from self.call("gpu_specs", gpu_specs, name=name)
            if spec is not None and spec.bf16_dense_tflops and (best is None or spec.bf16_dense_tflops >
                                                                 (best.bf16_dense_tflops or 0)):  # fmt: skip
                best = spec
        if mine is None or best is None or not mine.bf16_dense_tflops or not best.bf16_dense_tflops:
            return None
        if mine.bf16_dense_tflops * 2 > best.bf16_dense_tflops:
            return None
        rival = next((o for o in wider.options if (o.gpu_model or o.gpu_model_likely) == best.name), None)
        if rival is None or not rival.price_cny_per_hour:
            return None  # a faster card with no price to rent it by is no better choice to point to
        if mine_top.price_cny_per_hour:
            own_cost = mine_top.price_cny_per_hour / (mine_top.total_gpus * mine.bf16_dense_tflops)
            if own_cost <= rival.price_cny_per_hour / (rival.total_gpus * best.bf16_dense_tflops):
                return None  # slower, but cheaper for the same compute: no reason to warn
        return say("gpu.slow_training", self.lang, **figures, tflops=render.fig(mine.bf16_dense_tflops),
                   other=best.name, other_tflops=render.fig(best.bf16_dense_tflops))  # fmt: skip

    def hardware_label(self, hw: Hardware) -> str:
        """Name the hardware as the user named it: '4 张 L20', '`ecs.gn8is.4xlarge`（1 张 L20）'."""
        if hw.instance_type:
            per = hw.gpus // hw.instances
            label = (
                say("hardware.instances", self.lang, instances=hw.instances, instance_type=hw.instance_type,
                    count=hw.gpus, gpu=hw.gpu)
                if hw.instances > 1
                else say("hardware.instance", self.lang, instance_type=hw.instance_type, count=per, gpu=hw.gpu)
            )  # fmt: skip
        elif hw.gpus == 1:
            label = say("hardware.one_gpu", self.lang, gpu=hw.gpu)
        else:
            label = say("hardware.gpus", self.lang, count=hw.gpus, gpu=hw.gpu)
        return label

    def fit_lines(self, fit: HardwareFit) -> list[str]:
        """Render a fit: the verdict line, then the fixing changes (up to two)."""
        hw = fit.hardware
        figures = {"hardware": self.hardware_label(hw), "model": fit.model, "need": render.fig(fit.per_gpu_needed_gib)}
        figures["usable"] = render.fig(fit.per_gpu_usable_gib)
        if fit.fits:
            code = "fit.tight" if fit.headroom_pct < _TIGHT_PCT else "fit.yes"  # the planner's tight-fit line
            line = say(code, self.lang, **figures, pct=render.fig(fit.headroom_pct))
            sep = "" if self.lang == "zh" else " "
            return [line + (sep + say("fit.sharded", self.lang) if fit.zero == 3 else "")]
        lines = [say("fit.no", self.lang, **figures, short=render.fig(fit.shortfall_gib))]
        fixes = [c for c in fit.changes if c.fits][:2]
        if fixes:
            sep = "；或 " if self.lang == "zh" else "; or "
            changes = sep.join(
                say(f"change.{c.code}", self.lang, value=c.value, gib=render.fig(c.per_gpu_gib)) for c in fixes
            )
            lines.append(say("fit.fix", self.lang, changes=changes))
        else:
            most = max((int(c.value) for c in fit.changes if c.code == "more_gpus"), default=hw.gpus)
            lines.append(say("fit.no_fix", self.lang, gpus=most))
        return lines
