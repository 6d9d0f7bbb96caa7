"""Verdicts and comparisons on the hardware the user named, before the general plan.

"Qwen2.5-14B or Qwen2.5-32B on a single L20?", "ecs.gn7i-c8g1.2xlarge or ecs.gn6i-c4g1.xlarge for a 7B
chatbot?", "can I fine-tune 14B on one A10?" (no method said), "H800 vs A100 for full fine-tuning 7B":
each side is evaluated with the same workload by the same tool, and the first line states the winner or
the yes/no with the figure that decides it. Anything else goes on to the workload handler.
"""

from __future__ import annotations

import re
from typing import Any

from assistant import render
from assistant.conversation import read_conversation, representative_model
from assistant.intents.arguments import memory_args, plan_args
from assistant.intents.colocate import on_one_gpu
from assistant.intents.compare_followup import CompareFollowUp
from assistant.intents.compare_hardware import CompareHardware
from assistant.intents.compare_lead import asked_criteria
from assistant.intents.compare_owned import CompareOwned
from assistant.intents.compare_sides import model_settings
from assistant.intents.compare_sizes import sized_sides
from assistant.intents.fleet import FleetIntent, hosts_together
from assistant.intents.speed_lead import speed_line
from assistant.intents.target_lead import target_line
from assistant.intents.verdict_leads import VerdictLeads
from assistant.intents.verdict_words import (
    COMPARE_WITH_RE,
    family_gpu,
    family_size,
    gpu_sets,
    instances_of,
    known_type,
    machines,
    memory_claim,
    offered,
    one_box,
    only_size,
    with_memory,
)
from assistant.intents.verdict_worth import worth_line
from assistant.intents.workload import WorkloadIntent, catalog_gpu
from assistant.memory_words import card_size
from assistant.messages import say
from assistant.run import Events, Reply
from assistant.toolbox import (
    estimate_gpu_memory,
    evaluate_hardware_fit,
    plan_gpu_deployment,
)
from assistant.understanding import Slots, understand
from tools import catalog
from tools.hardware_fit import HardwareFit
from tools.plan import Plan

_METHODS = ("full", "lora", "qlora")
# One card for whichever GPU is named ("on a single card", "单卡跑"), not an article before one side ("an A100").
_EACH_ONE_CARD_RE = re.compile(
    r"\b(?:on|with|using|in)\s+(?:a\s+single|one|1)\s+(?:gpu|card)\b|\bsingle[\s\-](?:gpu|card)\b|单卡|各一张|都用一张",
    re.IGNORECASE,
)
# A follow-up asking whether other hardware beats the earlier one: both sets are weighed with the earlier workload.
_BETTER_RE = r"\b(?:better|worse|cheaper|faster|slower|dearer)\b|更好|更差|更便宜|更快|更慢|更划算|更省|更贵"


class VerdictIntent(VerdictLeads, CompareOwned, CompareHardware, CompareFollowUp, FleetIntent, WorkloadIntent):
    """Named-hardware comparisons and verdicts; the rest is the workload handler's."""

    def verdict_or_workload(self, s: Slots) -> Events:
        """Answer a comparison or verdict on named hardware, else plan or estimate as usual."""
        s = self.with_added_side(s)  # "add A100 to the comparison": every side, the same workload
        if on_one_gpu(self.question, self.conv.turn):  # "7B and 14B together on one A100": the sum against it
            return (yield from self.shared_gpu(s))  # type: ignore[attr-defined]
        if hosts_together(self.question, self.conv.turn):  # "host 72B-AWQ, 7B and bge-m3": all at once
            return (yield from self.fleet_answer(s))
        s = yield from self.with_previous_pick(s)  # "what about H20 - better than that?": the earlier pick vs H20
        s, sized = self.sizes_as_sides(s)  # "7B 和 14B 在一张 A10 上哪个快": a model for each size, both sides
        if sized is None:
            s, sized = self.size_stands_for_a_model(s)
        if sized and "model" in self.conv.missing:  # the representative model is said with the answer, not asked
            self.conv = self.conv.model_copy(update={"missing": [m for m in self.conv.missing if m != "model"]})
        own = yield from self.own_answer(s, sized)
        if own is not None:
            for name in [t for t in s.instance_types if not known_type(t)]:  # a made-up type: said after the verdict
                check = yield from self.check_instance(name, claimed=s.gpu)
                subject = r"\s*(?:is|are|was)\s+(?:the\s+|an?\s+)?`?(?:ecs\.)?" + re.escape(name.removeprefix("ecs."))
                if re.match(subject, self.question, re.IGNORECASE):
                    own.text = check + "\n\n" + own.text  # "Is ecs.X the A100 instance?": the type is the subject
                    continue
                first, _, rest = own.text.partition("\n\n")
                own.text = "\n\n".join([first, check, rest])
            if sized:
                own.text += "\n\n_" + say("verdict.model_taken_as", self.lang, model=sized) + "_"
            return own
        ready = bool(s.model) and not s.model_error and "model" not in self.conv.missing
        verdict = s.asks_verdict or self.conv.turn.asks_verdict
        if len(s.instance_types) == 1 and not s.instances and (n := instances_of(self.question, s.instance_types[0])):
            s = s.model_copy(update={"instances": n})  # "two gn7i-c32g1.16xlarge": both boxes together
        if s.gpu and not s.instance_types and (boxes := machines(self.question)):
            s = s.model_copy(update={"instances": boxes[0], "gpus": boxes[1]})  # "两台 8 卡 H20": 2 x 8 GPUs
        if len(self.conv.turn.models) >= 2 and not s.gpu and len(s.families) == 1:  # "A vs B on gn7i"
            gpus = {i.gpu_name for i in catalog.list_instances(family=s.families[0])} - {None}
            s = s.model_copy(update={"gpu": gpus.pop()}) if len(gpus) == 1 else s
        if len(s.families) == 1 and not (s.gpus or s.instance_types):  # "一台 gn8v-4x": its 4 GPUs, as written
            s = s.model_copy(update={"gpus": family_size(self.question, s.families[0])})
        if ready and verdict and len(s.families) == 1 and not (s.gpus or s.instance_types):
            box = one_box(self.question, s.families[0], s) or only_size(s.families[0])  # "a gn6i", "ebmgn7e": one box
            s = s.model_copy(update={"gpus": box or s.gpus})
        alone = ready and verdict and s.gpu and not (s.gpus or s.instance_types or s.families)
        alone = alone and "gpus" not in asked_criteria(self.question)  # "各需要几张 A100 80G": the count is asked
        if alone and (not offered(s.gpu or "") or with_memory(self.question, s.gpu or "")):
            # "4090 跑 14B 够用吗", "A10 24G 能跑 70B 吗": a GPU no instance type offers, or one written with
            # its memory size, is the one card the user has in mind.
            s = s.model_copy(update={"gpus": 1})
        reply = yield from self.workload(s)
        if sized and reply.kind in ("recommendation", "estimate"):
            reply.text += "\n\n_" + say("verdict.model_taken_as", self.lang, model=sized) + "_"
        if ready and len(s.gpu_mentions) >= 2 and not s.gpu and reply.kind == "recommendation":
            yield from self.lead_with_spec_winner(s, reply)
            if not s.budget_cny_month:  # with a budget, the comparison's first line says which prices are missing
                self.lead_with_price_gap(reply)
            planned = [catalog_gpu(g) for g in s.gpu_mentions]  # as the plans were called ("A100" -> A100-80GB)
            if worth := worth_line(self.question, planned, self.calls, self.lang):  # "值得换成 A10 吗"
                reply.text = worth + "\n\n" + reply.text
        elif ready and len(s.families) >= 2 and reply.kind == "recommendation" and not s.budget_cny_month:
            self.lead_with_price_gap(reply)
        elif ready and reply.kind in ("estimate", "recommendation") and not (s.gpu_mentions or s.instance_types):
            if stated := memory_claim(self.question):  # "7B FP16 大约 14GB，对吗？": the claim answered first
                if not any(c.name == "estimate_gpu_memory" for c in self.calls):
                    yield from self.call("estimate_gpu_memory", estimate_gpu_memory, **memory_args(s, gpus=None))
                self.lead_with_memory_claim(reply, stated)
        compared = len(self.variants(s)) >= 2  # a comparison names the fastest side itself, among the others
        # "≥ 30 tokens/s each": the plan's lead says it; "requests/sec": the rate's line answers
        said = target_line(self.calls, self.lang) is not None or s.asks_request_rate or s.asks_full_load
        named = (s.gpus, s.instance_types)  # "4 张 L20 ... 每人多少 token/s": that set's speed, not the top option's
        if not (compared or said) and (line := speed_line(self.question, self.calls, self.lang, named)):
            reply.text = f"{line}\n\n{reply.text}"
        return reply

    def sizes_as_sides(self, s: Slots) -> tuple[Slots, str | None]:
        """Two sizes weighed ("7B or 14B"): each stands for a model and both are sides; the note names bare ones."""
        sides = sized_sides(self.question, self.conv.turn.models)
        if not sides:
            return s, None
        bare = not self.conv.turn.models
        self.conv.turn = self.conv.turn.model_copy(update={"models": sides})
        defaulted = {k: v for k, v in self.conv.defaulted.items() if k != "model"}  # both models are said once
        self.conv = self.conv.model_copy(update={"defaulted": defaulted})
        s = s.model_copy(update={"model": sides[0], "models": sides, "model_error": None, "size_b": None})
        return s, (self.t("、", ", ").join(sides) if bare else None)

    def size_stands_for_a_model(self, s: Slots) -> tuple[Slots, str | None]:
        """Let a size in a claim or verdict ('70B FP16 要 140GB 对吗', '13B A10 单卡能训吗') take a representative."""
        if s.model or s.model_error or not s.size_b or self.conv.turn.models:
            return s, None
        verdict = s.asks_verdict or self.conv.turn.asks_verdict
        # "A10 能微调 7B 吗", "would gn7i work for a 14B chatbot?": a GPU or family named is hardware enough.
        hardware = self.fixed_hardware(s) or card_size(self.question) or s.gpu or s.families
        if not (memory_claim(self.question) or (verdict and hardware)):
            return s, None
        model = representative_model(s.size_b)
        return (s.model_copy(update={"model": model}), model) if model else (s, None)

    def own_answer(self, s: Slots, sized: str | None) -> Events:
        """Return the comparison or verdict this module answers itself, or None (the workload handler answers)."""
        ready = bool(s.model) and not s.model_error and ("model" not in self.conv.missing or sized is not None)
        hardware = self.fixed_hardware(s)
        models, sets = self.conv.turn.models, gpu_sets(self.question)
        one_each = _EACH_ONE_CARD_RE.search(self.question)
        if not sets and len(s.gpu_mentions) >= 2 and not s.instance_types and one_each:
            # "A100 or A10 ... on a single card": one card of every GPU named is a side
            sets = [{"gpu": catalog_gpu(g), "gpus": 1, "instances": 1} for g in s.gpu_mentions[:3]]
        turn = self.conv.turn
        if turn.follow_up and not (turn.models or turn.gpu_mentions or turn.instance_types or turn.families):
            # "and for 4 users?" after a comparison: the same sides, the one thing changed.
            earlier = self.previous_question()
            models = models or (understand(earlier).models if earlier else [])
            sets = sets or (gpu_sets(earlier) if earlier else [])
        if not ready:
            return None
        if (owned := (yield from self.owned_or_rented(s))) is not None:  # "we own 2x 4090: rent or keep them?"
            return owned
        weighed = re.search(COMPARE_WITH_RE, self.question, re.I) or (
            # "would two A10s be better?" after a turn on one L20: hardware only here, the workload is earlier
            self.history and not self.conv.turn.models and re.search(_BETTER_RE, self.question, re.I)
        )
        if hardware and weighed:
            earlier_hw = self.earlier_hardware()
            if earlier_hw and earlier_hw != hardware:  # "how does that compare with two A10s?": both, one workload
                sides = [(self.side_label(h), {}, h) for h in (earlier_hw, hardware)]
                return (yield from self.compare_on_hardware(s, sides, "hardware"))
        named_types = [t for t in s.instance_types if known_type(t)]  # "ecs.X (4x A10) vs ecs.Y": types lead
        own_sides = self.method_sides(s, hardware) or self.sides_as_written(s)  # "full vs LoRA on one A100"
        if own_sides:  # each method, or each GPU side with its own count and settings ("AWQ on 2x A100 vs FP8 ...")
            return (yield from self.compare_on_hardware(s, own_sides, "hardware"))
        if len(sets) >= 2 and len(models) < 2 and len(named_types) < 2:  # "4 张 L20 还是 2 张 H20": each set
            sides = [(self.side_label(h), {}, h) for h in sets[:3]]
            return (yield from self.compare_on_hardware(s, sides, "hardware"))
        if len(models) >= 2 and hardware:
            own = model_settings(self.question, models[:3])  # "32B AWQ 和 14B BF16": each model as written
            sides = [(m, {"model": m, **own.get(m, {})}, hardware) for m in models[:3]]
            return (yield from self.compare_on_hardware(s, sides, "models"))
        types = [t for t in s.instance_types if known_type(t)]
        if len(types) >= 2:  # "one gn7e-c16g1.4xlarge or two gn7i-c32g1.16xlarge": each with its own count
            counts = [instances_of(self.question, t) or 1 for t in types[:3]]
            sides = [(t if n == 1 else f"{n} x {t}", {}, {"instance_type": t, "instances": n})
                     for t, n in zip(types, counts, strict=True)]  # fmt: skip
            return (yield from self.compare_on_hardware(s, sides, "types"))
        verdict = s.asks_verdict or self.conv.turn.asks_verdict
        if s.task is None and s.task_hint and hardware and verdict:
            return (yield from self.methods_on_hardware(s, hardware))
        if s.task is None and s.task_hint and verdict and (gpu := s.gpu or family_gpu(s.families)):
            return (yield from self.methods_on_gpu(s, gpu))  # "Is the L20 good for fine-tuning 14B?"
        card = card_size(self.question) if verdict and not (s.gpu_mentions or s.instance_types or s.families) else None
        stated = memory_claim(self.question) if not (s.gpu_mentions or s.instance_types) else None
        if s.task_hint is None and (card or (stated and (sized or "task" in self.conv.missing))):
            # "Is 16GB VRAM enough for Qwen2.5-7B?", "70B FP16 要 140GB 对吗": the estimate on one card, first.
            held = s.model_copy(update={"task": s.task or "inference", "intent": "memory"})
            reply = yield from self.memory_answer(held, self.understood_line(held))
            if s.task is None:
                reply.text += "\n\n_" + say("verdict.task_inference", self.lang) + "_"
            if card:
                self.lead_with_card_verdict(reply, card)
            elif stated:
                self.lead_with_memory_claim(reply, stated)
            return reply
        return None

    def fixed_hardware(self, s: Slots) -> dict[str, Any] | None:
        """Return the GPU and count the user fixed ("one L20", "2 张 H20"), without calling a tool."""
        if s.gpu and s.gpus:
            return {"gpu": s.gpu, "gpus": s.gpus, "instances": s.instances or s.max_instances or 1}
        if len(s.instance_types) == 1 and known_type(s.instance_types[0]):
            return {"instance_type": s.instance_types[0], "instances": s.instances or s.max_instances or 1}
        return None

    def previous_question(self) -> str | None:
        """Return the user's previous turn, if any."""
        return next((m.content for m in reversed(self.history) if m.role == "user"), None)

    def earlier_hardware(self) -> dict[str, Any] | None:
        """Return the hardware the previous question fixed, read from the conversation before this turn."""
        turns = [i for i, m in enumerate(self.history) if m.role == "user"]
        if not turns:
            return None
        last = turns[-1]
        before = read_conversation(self.history[last].content, self.history[:last])
        return self.fixed_hardware(before.slots)

    def side_label(self, hardware: dict[str, Any]) -> str:
        """Name one side of a hardware comparison: '2 x A10', '`ecs.gn8is.4xlarge`'."""
        if hardware.get("instance_type"):
            return f"`{hardware['instance_type']}`"
        return say("hardware.gpus", self.lang, count=hardware["gpus"], gpu=hardware["gpu"]).strip()

    def fit_args(self, s: Slots, task: str) -> dict[str, Any]:
        """Return the workload arguments of ``evaluate_hardware_fit`` from the slots (same for every side)."""
        args: dict[str, Any] = {"model": s.model, "task": task, "architecture": s.architecture}
        if task == "inference":
            args |= {"precision": s.precision, "quant": s.quant, "context": s.context, "gen_tokens": s.gen_tokens}
            args["concurrency"] = s.concurrency or s.batch
        else:
            args |= {"batch": s.batch, "seq_len": s.context}
        return args

    def methods_on_gpu(self, s: Slots, gpu: str) -> Events:
        """'Is the L20 good for fine-tuning 14B?' without a method: each method planned on that GPU."""
        names = {"full": say("method.name_full", self.lang), "lora": "LoRA", "qlora": "QLoRA"}
        lines, fewest = [], None
        for method in _METHODS:
            slots = s.model_copy(update={"task": method, "gpu": gpu, "task_hint": None})
            plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(slots))
            top = plan.options[0] if isinstance(plan, Plan) and plan.options else None
            if top is None:
                lines.append("- " + say("method.gpu_none", self.lang, method=names[method], gpu=gpu))
                continue
            lines.append("- " + say("method.gpu_option", self.lang, method=names[method], n=top.instances,
                                    instance_type=top.instance_type, total=top.total_gpus,
                                    need=render.fig(top.per_gpu_gib_needed),
                                    usable=render.fig(top.per_gpu_capacity_gib)))  # fmt: skip
            if fewest is None or top.total_gpus < fewest[1]:
                fewest = (method, top.total_gpus)
        if fewest is None:
            head = say("method.gpu_no", self.lang, gpu=gpu, model=s.model)
        else:
            code = "method.gpu_one" if fewest[1] == 1 else "method.gpu_several"
            head = say(code, self.lang, gpu=gpu, model=s.model, method=names[fewest[0]], total=fewest[1])
        understood = self.understood_line(s.model_copy(update={"task": None, "gpu": gpu}))
        parts = [head, "\n".join(lines), say("method.note", self.lang), understood]
        return Reply(text="\n\n".join(parts), kind="recommendation")

    def methods_on_hardware(self, s: Slots, hardware: dict[str, Any]) -> Events:
        """'Can I fine-tune 14B on one A10?' without a method: full, LoRA and QLoRA each on that hardware."""
        hardware = dict(hardware)
        if "gpu" in hardware:
            hardware["gpu"] = self.one_gpu(hardware["gpu"])
        results: list[tuple[str, HardwareFit]] = []
        for method in _METHODS:
            fit, _ = yield from self.call(
                "evaluate_hardware_fit", evaluate_hardware_fit, **(self.fit_args(s, method) | hardware)
            )
            if isinstance(fit, HardwareFit):
                results.append((method, fit))
        if not results:
            return self.error(next((c.error for c in self.calls if c.error), "") or "no result")
        names = {"full": say("method.name_full", self.lang), "lora": "LoRA", "qlora": "QLoRA"}
        hw = self.hardware_label(results[0][1].hardware)
        fits = [m for m, f in results if f.fits]
        misses = [m for m, f in results if not f.fits]
        figures = lambda m: next(f for k, f in results if k == m)  # noqa: E731
        if not fits:
            worst = figures(results[-1][0])
            head = say("method.none", self.lang, hardware=hw, model=s.model, need=render.fig(worst.per_gpu_needed_gib),
                       usable=render.fig(worst.per_gpu_usable_gib))  # fmt: skip
        elif not misses:
            head = say("method.all", self.lang, hardware=hw, model=s.model)
        else:
            ok = figures(fits[0])
            bad = figures(misses[-1])
            head = say("method.some", self.lang, hardware=hw, model=s.model,
                       no=say("catalog.list_sep", self.lang).join(names[m] for m in misses), yes=names[fits[0]],
                       no_need=render.fig(bad.per_gpu_needed_gib), need=render.fig(ok.per_gpu_needed_gib),
                       usable=render.fig(ok.per_gpu_usable_gib))  # fmt: skip
        lines = [self.side_line(names[m], f, None) for m, f in results]
        understood = self.understood_line(s.model_copy(update={"task": None}))
        note = say("method.note", self.lang)
        return Reply(text="\n\n".join([head, "\n".join(lines), note, understood]), kind="recommendation")
