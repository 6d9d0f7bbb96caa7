"""Comparisons on the hardware the user named: GPU sets, instance types, or models on one set of hardware.

"two A10 vs one L20", "ecs.gn6v-c8g1.2xlarge or ecs.gn7i-c8g1.2xlarge", "Qwen2.5-14B or Llama-3.1-8B on one
A10": every side is evaluated with the same workload by the same tools (issue 8): whether it fits and with
what headroom (``evaluate_hardware_fit``), how many sequences it holds (``concurrent_users``), and, for a
side that fits, its decode speed, hourly price and cost per million tokens from a plan restricted to that
side's instance type (``plan_gpu_deployment``). The first line names the overall winner; a line per
criterion then names the winner of that criterion; a side without a list price is said once.
"""

from __future__ import annotations

import re
from typing import Any

from assistant import render
from assistant.billing_words import asks_price_gap, billings
from assistant.intents.arguments import plan_args
from assistant.intents.compare_lead import SideOutcome, lead_line
from assistant.intents.compare_sides import gpu_settings, methods_named, precisions_named, setting_label
from assistant.intents.compare_yes_no import yes_no_lead
from assistant.intents.prices import PricesIntent
from assistant.intents.verdict_words import COST_RE, USERS_RE
from assistant.intents.workload import catalog_gpu
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    concurrent_users,
    evaluate_hardware_fit,
    find_instance_types,
    gpu_specs,
    plan_gpu_deployment,
    price_of_instance,
)
from assistant.understanding import Slots
from tools.capacity import Capacity
from tools.hardware_fit import HardwareFit
from tools.plan import DeploymentOption, Plan
from tools.workload import DEFAULT_CONTEXT_TOKENS

Side = tuple[str, dict[str, Any], dict[str, Any]]  # label, slot changes (another model), hardware arguments
_TYPES_PRICED = 4  # instance types with the named GPU set whose prices are looked up (the cheapest is used)


class CompareHardware(Run):
    """Named-hardware comparisons: each side with the same workload, then a winner per criterion."""

    def compare_on_hardware(self, s: Slots, sides: list[Side], kind: str) -> Events:
        """Evaluate each side (models, instance types or GPU sets) with the same workload; the winner first."""
        task = s.task or "inference"
        results: list[tuple[str, HardwareFit]] = []
        changes: dict[str, dict[str, Any]] = {}
        unevaluated: list[str] = []  # "three A10s" for a model whose heads 3 GPUs cannot split: said, not dropped
        for label, change, hardware in sides:
            side = s.model_copy(update=change)  # a side may change the method too ("full vs LoRA on one A100")
            args = self.fit_args(side, side.task or task) | hardware
            if "gpu" in args:
                args["gpu"] = self.one_gpu(args["gpu"])
            fit, err = yield from self.call("evaluate_hardware_fit", evaluate_hardware_fit, **args)
            if isinstance(fit, HardwareFit):
                results.append((label, fit))
                changes[label] = change
            elif err:
                unevaluated.append(say("compare.not_evaluated", self.lang, label=label, error=self.in_language(err)))
        if not results:
            return self.error(next((c.error for c in self.calls if c.error), "") or "no result")
        prices: dict[str, float] = {}
        shown: dict[str, str] = {}
        types: dict[str, str] = {}
        for label, fit in results:  # the named type, or the cheapest listed type with exactly that GPU set
            itype, hourly = yield from self.side_type(fit, s.region)
            if itype:
                types[label] = itype
            if hourly is not None:
                prices[label] = hourly * fit.hardware.instances  # compared in total; shown as listed ("2 × ¥26.62")
                count = fit.hardware.instances
                shown[label] = ("" if count == 1 else f"{count} × ") + f"¥{render.fig(hourly)}"
        # instance types are counted when users are asked ("how many users on gn7i-... vs gn7e-...?")
        users_asked = bool(s.asks_capacity or re.search(USERS_RE, self.question, re.I))
        counted = task == "inference" and (kind != "types" or users_asked)
        counts = (yield from self.capacities(s, sides, results)) if counted else {}
        options: dict[str, DeploymentOption] = {}
        if task == "inference":
            for label, fit in results:
                if fit.fits and label in types:
                    option = yield from self.side_option(s.model_copy(update=changes[label]), types[label], fit)
                    if option is not None:
                        options[label] = option
        lines = [
            self.side_line(label, fit, shown.get(label), counts.get(label), kind)
            + self.side_figures(options.get(label))
            for label, fit in results
        ]
        labels = " vs ".join(label for label, _ in results)
        understood = {
            "models": s.model_copy(update={"model": labels}),
            "hardware": s.model_copy(update={"gpu": labels, "gpus": None, "instance_types": []}),
        }.get(kind, s)
        if kind == "hardware" and all(h == sides[0][2] for _, _, h in sides):  # one hardware, varied settings
            varied = {k: None for _, change, _ in sides for k in change if k in ("task", "precision", "quant")}
            understood = s.model_copy(update=varied)  # "int8 vs int4 on one L20": the sides' lines say each setting
        elif kind == "hardware" and any("model" in change for _, change, _ in sides):
            # "4-bit 72B on 2 L20 vs BF16 32B on one A100": each side's label names its model and setting
            labels = " vs ".join(label for label, _ in results)
            understood = s.model_copy(update={"model": labels, "gpu": None, "gpus": None, "precision": None,
                                              "quant": None, "instance_types": []})  # fmt: skip
        head = self.winner(results, prices, shown)
        sides_out = [self.outcome(label, fit, options.get(label), prices.get(label), shown.get(label),
                                  counts.get(label)) for label, fit in results]  # fmt: skip
        if task != "inference":  # training speed: the sides' dense BF16 compute, from the spec sheets
            sides_out = yield from self.with_compute(sides_out, results)
        if sum(fit.fits for _, fit in results) >= 2 and (lead := lead_line(sides_out, self.question, self.lang)):
            head = lead  # the winner of what was asked, or of cost and speed together
        elif len(counts) >= 2 and len(set(counts.values())) > 1 and re.search(USERS_RE, self.question, re.I):
            label = max(counts, key=lambda k: counts[k])  # "which fits more users?": the count decides
            head = say("compare.most_users", self.lang, label=label, n=counts[label],
                       context=render.fig(s.context or DEFAULT_CONTEXT_TOKENS))  # fmt: skip
        if kind == "types" and len(types) >= 2 and asks_price_gap(self.question):
            # "每月差多少钱？该选哪个": the month's gap answers first, on the billing asked (else 730 h)
            gap = yield from PricesIntent.type_gap_line(self, list(types.values()), billings(self.question), s.region)  # type: ignore[arg-type]
            head = " ".join([*gap, head])
        criteria = self.criteria(results, options, prices, shown, head)
        unpriced = [label for label, _ in results if label not in prices]
        if unpriced and len(unpriced) < len(results):  # said once, so a missing price is neither free nor skipped
            note = say("compare.unpriced", self.lang, labels=self.t("、", ", ").join(unpriced))
            if len(prices) < 2 and re.search(COST_RE, self.question, re.I):
                # "which is cheaper?": that the prices are missing comes first, with the one price known
                (label, price), others = next(iter(shown.items())), self.t("、", ", ").join(unpriced)
                head = say("compare.only_priced", self.lang, label=label, price=price, others=others) + "\n\n" + head
            else:
                criteria.append(note)
        if unevaluated and len(results) == 1:  # one side left: nothing to weigh it against, so no winner is named
            head = "\n\n".join(unevaluated)
        elif unevaluated:
            criteria += unevaluated
        parts = [head, *criteria, "\n".join(lines)]
        if not any(fit.fits for _, fit in results):  # the closest side's smallest change that makes it fit
            parts += self.fit_lines(min(results, key=lambda r: r[1].shortfall_gib)[1])[1:]
        parts.append(self.understood_line(understood))
        return Reply(text="\n\n".join(parts), kind="recommendation")

    @staticmethod
    def outcome(label: str, fit: HardwareFit, option: DeploymentOption | None, hourly: float | None,
                shown: str | None, users: int | None) -> SideOutcome:  # fmt: skip
        """One side's typed outcome for the lead: the fit's figures, the planned option's speed and cost."""
        return SideOutcome(
            label=label, fits=fit.fits, gpus=fit.hardware.gpus, hourly=hourly, hourly_shown=shown,
            per_million=option.cost_cny_per_million_tokens if option else None,
            subscription_month=option.subscription_cny_per_month if option else None,
            monthly=option.price_cny_per_month if option else None,
            month_basis=option.price_month_basis if option else None,
            tokens_per_s=option.decode_tokens_per_s if option else None,
            training_hours=option.training_hours if option else None,
            headroom_pct=fit.headroom_pct if fit.fits else None, users=users,
        )  # fmt: skip

    def with_compute(self, sides: list[SideOutcome], results: list[tuple[str, HardwareFit]]) -> Events:
        """Return the sides with their GPUs' dense BF16 TFLOPS together (training is compute-bound)."""
        out = []
        for side, (_, fit) in zip(sides, results, strict=True):
            spec, _ = yield from self.call("gpu_specs", gpu_specs, name=fit.hardware.gpu)
            tflops = getattr(spec, "bf16_dense_tflops", None)
            out.append(side.model_copy(update={"train_tflops": tflops * fit.hardware.gpus} if tflops else {}))
        return out

    def method_sides(self, s: Slots, hardware: dict[str, Any] | None) -> list[Side] | None:
        """'Full fine-tuning vs LoRA on one A100', 'int8 还是 int4' on one L20: each variant on that hardware."""
        if hardware is None:
            return None
        if "gpu" in hardware:
            hardware = {**hardware, "gpu": self.one_gpu(hardware["gpu"])}
        if methods := methods_named(self.question):
            names = {"full": say("describe.task_full", self.lang), "lora": "LoRA", "qlora": "QLoRA"}
            return [(names[m], {"task": m, "task_hint": None}, hardware) for m in methods[:3]]
        if len(self.conv.turn.models) < 2 and (precisions := precisions_named(self.question)):
            return [(setting_label(p, self.lang).strip(" ()"), p, hardware) for p in precisions[:3]]
        return None

    def sides_as_written(self, s: Slots) -> list[Side] | None:
        """GPU sides that each carry their own count and settings ("AWQ on 2x A100 vs FP8 on one H20"), else None."""
        gpus = s.gpu_mentions[:3]
        if len(gpus) < 2 or s.instance_types:
            return None
        own = gpu_settings(self.question, gpus)
        if not own or not all("gpus" in own[g] for g in gpus):
            return None
        if len(self.conv.turn.models) >= 2 and not all("model" in own[g] for g in gpus):
            return None  # two models and no GPU of their own each: a model comparison
        # each side's own settings, or at least its own count ("a single A100 40GB ... than 2x A10")
        if not any(len(own[g]) > 1 for g in gpus) and len({own[g]["gpus"] for g in gpus}) < 2:
            return None
        sides: list[Side] = []
        for g in gpus:
            change = {k: v for k, v in own[g].items() if k != "gpus"}
            hardware = {"gpu": catalog_gpu(g), "gpus": own[g]["gpus"], "instances": 1}
            label = say("hardware.gpus", self.lang, count=own[g]["gpus"], gpu=hardware["gpu"]).strip()
            sides.append((label + setting_label(change, self.lang), change, hardware))
        return sides

    def side_type(self, fit: HardwareFit, region: str | None) -> Events:
        """Return (instance type, hourly price or None) standing for one side ((None, None): no such type).

        The named type, or the cheapest listed type holding exactly the named GPUs per instance.
        """
        hw = fit.hardware
        if hw.instance_type:
            quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=hw.instance_type,
                                            region=region)  # fmt: skip
            return hw.instance_type, (quote.hourly if quote is not None else None)
        per_instance = hw.gpus // max(hw.instances, 1)
        listed, _ = yield from self.call("find_instance_types", find_instance_types, gpu=hw.gpu)
        sized = [i for i in (listed.instances if listed else []) if i.gpu_count == per_instance and not i.vgpu]
        best: tuple[str | None, float | None] = (sized[0].instance_type if sized else None, None)
        for inst in sized[:_TYPES_PRICED]:
            quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=inst.instance_type,
                                            region=region)  # fmt: skip
            if quote is not None and quote.hourly is not None and (best[1] is None or quote.hourly < best[1]):
                best = (inst.instance_type, quote.hourly)
        return best

    def side_option(self, s: Slots, instance_type: str, fit: HardwareFit) -> Events:
        """Plan the workload on exactly this side's instance type and count: its speed and cost (None: no option)."""
        args = plan_args(s.model_copy(update={"gpu": None})) | {
            "instance_type": instance_type,
            "max_instances": fit.hardware.instances,
        }
        plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **args)
        if not isinstance(plan, Plan) or not plan.options:
            return None
        return plan.options[0]

    def side_figures(self, option: DeploymentOption | None) -> str:
        """Return the speed and per-token cost of one side's planned option for its line ('' when unknown)."""
        if option is None or not option.decode_tokens_per_s:
            return ""
        text = say("side.speed", self.lang, tps=render.fig(option.decode_tokens_per_s))
        if option.cost_cny_per_million_tokens is not None:
            text += say("side.per_million", self.lang, cost=render.fig(option.cost_cny_per_million_tokens))
        return text

    def criteria(self, results: list[tuple[str, HardwareFit]], options: dict[str, DeploymentOption],
                 prices: dict[str, float], shown: dict[str, str], head: str) -> list[str]:  # fmt: skip
        """Name a winner per criterion where the sides differ: headroom, decode speed, ¥/h, ¥/M tokens."""
        out: list[str] = []
        fitting = [(label, fit) for label, fit in results if fit.fits]
        rooms = sorted(((fit.headroom_pct, label) for label, fit in fitting), reverse=True)
        if len(rooms) >= 2 and rooms[0][0] > rooms[-1][0] and f"{render.fig(rooms[0][0])}%" not in head:
            out.append(say("compare.roomiest", self.lang, label=rooms[0][1], pct=render.fig(rooms[0][0])))
        speeds = sorted(((o.decode_tokens_per_s or 0.0, label) for label, o in options.items()), reverse=True)
        if len(speeds) >= 2 and speeds[0][0] > speeds[-1][0] > 0:
            out.append(say("compare.fastest", self.lang, label=speeds[0][1], fast=render.fig(speeds[0][0]),
                           slow=render.fig(speeds[-1][0])))  # fmt: skip
        hourly = sorted((prices[label], label) for label, _ in fitting if label in prices)
        if len(hourly) >= 2 and hourly[0][0] < hourly[-1][0] and shown[hourly[0][1]] not in head:
            cheap, dear = hourly[0][1], hourly[-1][1]
            out.append(say("compare.cheapest_hour", self.lang, label=cheap, price=shown[cheap], other=dear,
                           other_price=shown[dear]))  # fmt: skip
        per_m = sorted(
            (o.cost_cny_per_million_tokens, label) for label, o in options.items()
            if o.cost_cny_per_million_tokens is not None
        )  # fmt: skip
        if len(per_m) >= 2 and per_m[0][0] < per_m[-1][0]:
            out.append(say("compare.cheapest_tokens", self.lang, label=per_m[0][1], cost=render.fig(per_m[0][0]),
                           other=per_m[-1][1], other_cost=render.fig(per_m[-1][0])))  # fmt: skip
        return out

    def capacities(self, s: Slots, sides: list[Side], results: list[tuple[str, HardwareFit]]) -> Events:
        """Concurrent sequences each side holds at the user's context, from its KV budget."""
        counts: dict[str, int] = {}
        fitted = {label for label, _ in results}
        for label, change, hardware in sides:
            if label not in fitted:
                continue
            args = {"model": s.model, "context": s.context or DEFAULT_CONTEXT_TOKENS, "precision": s.precision,
                    "quant": s.quant, "architecture": s.architecture} | change | hardware  # fmt: skip
            args.pop("concurrency", None)  # a side's own user count is checked by the fit, not the capacity
            if "gpu" in args:
                args["gpu"] = self.one_gpu(args["gpu"])
            cap, _ = yield from self.call("concurrent_users", concurrent_users, **args)
            if isinstance(cap, Capacity):
                counts[label] = cap.sequences
        return counts

    def side_line(self, label: str, fit: HardwareFit, price: str | None, users: int | None = None,
                  kind: str = "models") -> str:  # fmt: skip
        """One side of a comparison: fits or not, per-GPU need of usable, headroom, the hourly price."""
        hw = self.hardware_label(fit.hardware)
        if kind == "types":  # the label is the instance type; say what it holds
            hw = say("hardware.gpus", self.lang, count=fit.hardware.gpus, gpu=fit.hardware.gpu).strip() + " "
        elif kind == "hardware":  # the label is the hardware itself
            hw = ""
        hw += " " if hw and not hw.endswith(" ") else ""
        figures = {"label": label, "hardware": hw, "need": render.fig(fit.per_gpu_needed_gib),
                   "usable": render.fig(fit.per_gpu_usable_gib), "pct": render.fig(fit.headroom_pct)}  # fmt: skip
        line = say("side.fits" if fit.fits else "side.no", self.lang, **figures)
        if price is not None:
            line += say("side.price", self.lang, price=price)
        if users is not None and fit.fits:  # a side that does not fit holds no sequence worth counting
            line += say("side.users", self.lang, n=users)
        return "- " + line

    def winner(self, results: list[tuple[str, HardwareFit]], prices: dict[str, float], shown: dict[str, str]) -> str:
        """Return the first line: which side fits (and is cheaper, or leaves more room), with its figures."""
        fitting = [(label, fit) for label, fit in results if fit.fits]
        if not fitting:
            label, fit = min(results, key=lambda r: r[1].shortfall_gib)
            line = say("compare.none_fits", self.lang, label=label, need=render.fig(fit.per_gpu_needed_gib),
                       usable=render.fig(fit.per_gpu_usable_gib))  # fmt: skip
            return yes_no_lead(line, [("", "")], [lb for lb, _ in results], self.question, self.lang)  # none wins
        priced = [(prices[label], label, fit) for label, fit in fitting if label in prices]
        if len(fitting) == len(results) and len(priced) >= 2:
            price, label, fit = min(priced, key=lambda p: p[0])
            dear = max(priced, key=lambda p: p[0])
            if dear[0] > price:
                return say("compare.cheaper_fits", self.lang, label=label, price=shown[label],
                           other=dear[1], other_price=shown[dear[1]])  # fmt: skip
        if len(fitting) == len(results):
            label, fit = max(fitting, key=lambda r: r[1].headroom_gib)
            return say("compare.more_room", self.lang, label=label, need=render.fig(fit.per_gpu_needed_gib),
                       usable=render.fig(fit.per_gpu_usable_gib), pct=render.fig(fit.headroom_pct))  # fmt: skip
        others = self.t("、", ", ").join(lb for lb, f in results if not f.fits)
        if len(fitting) >= 2:  # some fit, some do not: the roomiest of those that fit, the others named
            label, fit = max(fitting, key=lambda r: r[1].headroom_gib)
            return say("compare.some_fit", self.lang, label=label, others=others, pct=render.fig(fit.headroom_pct),
                       need=render.fig(fit.per_gpu_needed_gib), usable=render.fig(fit.per_gpu_usable_gib))  # fmt: skip
        label, fit = fitting[0]
        line = say("compare.only_fits", self.lang, label=label, others=others, need=render.fig(fit.per_gpu_needed_gib),
                   usable=render.fig(fit.per_gpu_usable_gib))  # fmt: skip
        return yes_no_lead(line, [("", label)], [lb for lb, _ in results], self.question, self.lang)
