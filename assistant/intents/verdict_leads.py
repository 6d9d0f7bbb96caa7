"""The lines that lead an answer with its verdict: a stated memory figure, a card size, the faster GPU, a price gap.

A mixin of :class:`assistant.intents.verdicts.VerdictIntent`: each method reads the tool calls already made
(or makes the one it needs) and puts one line, from the message catalogue, in front of the reply.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.intents.compare_lead import cost_basis
from assistant.intents.gpu_claims import winner_line
from assistant.intents.verdict_words import COST_RE
from assistant.messages import say
from assistant.run import TRAINING, Events, Reply, Run
from assistant.understanding import Slots
from tools.memory import MemoryEstimate
from tools.plan import Plan
from tools.plan_notes import USABLE_FRACTION_OTHER, VLLM_GPU_MEMORY_UTILIZATION


class VerdictLeads(Run):
    """Verdict lines put in front of an answer another handler built."""

    def lead_with_memory_claim(self, reply: Reply, stated_gb: float) -> None:
        """Answer a stated memory figure: the weights alone, and the total per GPU with K/V and runtime."""
        est = next((c.result for c in reversed(self.calls) if c.name == "estimate_gpu_memory" and c.result), None)
        if not isinstance(est, dict):
            return
        estimate = MemoryEstimate.model_validate(est)
        weights_gb = estimate.per_gpu.weights_gib * 2**30 / 1e9
        total_gb = estimate.per_gpu_total_gib * 2**30 / 1e9
        code = (
            "claim.memory_too_low" if stated_gb < 0.85 * weights_gb
            else "claim.memory_enough" if stated_gb >= total_gb
            else "claim.memory_weights_only"
        )  # fmt: skip
        figures = {"weights": render.fig(estimate.per_gpu.weights_gib), "total": render.fig(estimate.per_gpu_total_gib)}
        reply.text = say(code, self.lang, **figures) + "\n\n" + reply.text

    def lead_with_spec_winner(self, s: Slots, reply: Reply) -> Events:
        """'H800 vs A100 for full fine-tuning': the faster GPU for the job leads the compared plans."""
        if self.compared_lead:  # the comparison already leads with its winner (compute included for training)
            return
        specs = []
        for name in s.gpu_mentions[:3]:
            gpu = yield from self.lookup_gpu(name)
            if gpu is not None:
                specs.append(gpu)
        if len(specs) < 2:
            return
        metric = "compute" if (s.task or "inference") in TRAINING else "bandwidth"
        field = "bf16_dense_tflops" if metric == "compute" else "memory_bandwidth_gb_s"
        specs.sort(key=lambda g: getattr(g, field) or 0, reverse=True)  # three sides: the best against the worst
        line = winner_line(specs[0], specs[-1], metric, self.lang)
        first = reply.text.partition("\n\n")[0]
        # Serving compared on a workload is judged by the plans (speed of the whole fleet, price); the spec
        # sheet leads only for training, or when the plans could not be compared.
        marks = ("价格数据不全", "price data is missing", "没有目录价", "No list price")
        undecided = any(mark in first for mark in marks)
        if line is not None and (metric == "compute" or undecided):
            reply.text = say(line.code, self.lang, **line.figures) + "\n\n" + reply.text

    def lead_with_price_gap(self, reply: Reply) -> None:
        """'Which is cheaper, gn7i or gn8is?' when one side has no list price: say so first, with the known one."""
        if not re.search(COST_RE, self.question, re.IGNORECASE):
            return
        sides: list[tuple[str, float | None, str]] = []
        per_m: dict[str, float | None] = {}  # the known side's cost per million tokens, when that is what is asked
        for call in self.calls:
            if call.name != "plan_gpu_deployment" or not isinstance(call.result, dict) or "gpu" not in call.args:
                continue
            options = Plan.model_validate(call.result).options
            priced = [o for o in options if o.price_cny_per_hour is not None]
            best = min(priced, key=lambda o: o.price_cny_per_hour or 0) if priced else None
            per_m[call.args["gpu"]] = best.cost_cny_per_million_tokens if best else None
            sides.append(
                (call.args["gpu"], best.price_cny_per_hour if best else None, best.instance_type if best else "")
            )
        known = [side for side in sides if side[1] is not None]
        unknown = [gpu for gpu, price, _ in sides if price is None]
        if len(sides) < 2 or not unknown or len(known) != 1:
            return
        gpu, price, itype = known[0]
        code = "compare.price_gap"
        if cost_basis(self.question) == "token" and per_m.get(gpu) is not None:  # "折合每百万 token 多少钱"
            code, price = "compare.price_gap_per_m", per_m[gpu]
        line = say(code, self.lang, gpu=gpu, instance_type=itype, price=render.fig(price),
                   others=say("catalog.list_sep", self.lang).join(unknown))  # fmt: skip
        reply.text = line + "\n\n" + reply.text

    def lead_with_card_verdict(self, reply: Reply, card_gb: int) -> None:
        """'7B 要 14G，16G 的卡够吗': the estimate against what a card of that size leaves usable, first."""
        est = next((c.result for c in reversed(self.calls) if c.name == "estimate_gpu_memory" and c.result), None)
        if not isinstance(est, dict):
            return
        estimate = MemoryEstimate.model_validate(est)
        # Like the catalog, a card's "GB" is its GiB; GDDR cards show ~92% of it, and vLLM takes 90% of that.
        share = VLLM_GPU_MEMORY_UTILIZATION if estimate.task == "inference" else 1.0
        usable = card_gb * USABLE_FRACTION_OTHER * share
        need = estimate.per_gpu_total_gib
        code = "card.no" if need > usable else "card.tight" if need > 0.9 * usable else "card.yes"
        reply.text = say(code, self.lang, need=render.fig(need), card=card_gb) + "\n\n" + reply.text
