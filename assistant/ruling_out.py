"""Outcomes that rule a workload out on their own, said as the first line of a yes/no answer.

A context beyond the model's window, a GPU count tensor parallelism cannot split the heads over, a run longer
than the stated deadline, a price above the amount asked about, a GPU with no stock or price in the asked
region: each is a typed tool outcome turned into one catalogue line (or None when it does not apply).
Split from :mod:`assistant.form_leads`, which decides which line leads.
"""

from __future__ import annotations

import math
from typing import Any

from assistant import render
from assistant.deadline_leads import deadline_label
from assistant.intents.arguments import task_of
from assistant.intents.verdict_overkill import inverted_kind
from assistant.messages import say
from assistant.question_form import QuestionForm
from assistant.run import TRAINING, Events, Run
from assistant.toolbox import model_card, training_run
from assistant.understanding import Slots
from tools.architecture import ModelArchitecture
from tools.plan import Plan
from tools.price_quotes import GpuRegionPrices, PriceQuote
from tools.training_volume import TrainingCompute


class RulingOut(Run):
    """The lines of outcomes that answer a yes/no question with no, whatever the memory fit says."""

    def context_beyond_limit(self, s: Slots) -> Events:
        """'Llama-3-8B with 32k documents': a context longer than the model reads, whatever the GPU."""
        if not s.model or not s.context or s.architecture or s.model.startswith("custom-"):
            return None
        card, err = yield from self.call("model_card", model_card, model=s.model)
        if err or not isinstance(card, ModelArchitecture) or s.context <= card.max_context:
            return None
        return say("form.context_beyond", self.lang, model=card.name, limit=card.max_context, asked=s.context)

    def count_cannot_shard(self, s: Slots) -> Events:
        """'3 张 L20 跑 72B 稳不稳': tensor parallelism cannot split the heads over that many GPUs of one server."""
        if not (s.model and s.gpu and s.gpus and s.gpus > 1) or s.architecture or task_of(s) != "inference":
            return None
        if any(c.name == "evaluate_hardware_fit" and isinstance(c.result, dict) for c in self.calls):
            return None  # the named set was evaluated: its fit decides
        card, err = yield from self.call("model_card", model_card, model=s.model)
        if err or not isinstance(card, ModelArchitecture) or card.num_attention_heads % s.gpus == 0:
            return None
        # "Is 8 A100s too many for a 7B?": more cards than it can even be split over answers yes, not no
        code = "form.cannot_shard_overkill" if inverted_kind(self.question) == "overkill" else "form.cannot_shard"
        return say(code, self.lang, gpus=s.gpus, gpu=s.gpu, model=card.name, heads=card.num_attention_heads)

    def beyond_deadline(self, s: Slots, deadline: float) -> Events:
        """'LoRA over 500M tokens within 24 hours on 2 x L20': the 6·N·D time against the deadline."""
        run = self.training_result()
        if run is None and s.model and s.gpu and s.gpus and s.train_tokens and (s.task in TRAINING):
            args: dict[str, Any] = {"model": s.model, "gpu": self.one_gpu(s.gpu), "gpus": s.gpus * (s.instances or 1),
                                    "tokens": s.train_tokens, "task": s.task}  # fmt: skip
            result, _ = yield from self.call("training_run", training_run, **args)
            run = result if isinstance(result, TrainingCompute) else None
        if run is None or run.hours <= deadline:
            return None
        return say("form.deadline_no", self.lang, hours=render.fig(run.hours),
                   deadline=deadline_label(deadline, self.lang), gpus=run.gpus, gpu=run.gpu,
                   mfu=render.fig(run.mfu))  # fmt: skip

    def training_result(self) -> TrainingCompute | None:
        """Return the last 6·N·D result of this answer, if one was computed."""
        for call in reversed(self.calls):
            if call.name == "training_run" and isinstance(call.result, dict):
                return TrainingCompute.model_validate(call.result)
        return None

    def price_above_amount(self, s: Slots, form: QuestionForm) -> str | None:
        """'包月 3000 块能拿下吗': the cheapest monthly price of the type asked about against that amount."""
        amount = form.amount_cny or s.budget_cny_month
        quotes = [PriceQuote.model_validate(c.result) for c in self.calls
                  if c.name == "price_of_instance" and isinstance(c.result, dict)]  # fmt: skip
        monthly = [(q.subscription_monthly or q.monthly, q) for q in quotes if (q.subscription_monthly or q.monthly)]
        if not amount or not monthly:
            return None
        price, quote = min(monthly, key=lambda pair: pair[0] or math.inf)
        code = "form.price_above" if (price or 0) > amount else "form.price_within"
        as_of = quote.subscription_as_of or quote.as_of
        return say(code, self.lang, instance_type=quote.instance_type, monthly=render.fig(price),
                   region=quote.region, as_of=as_of, amount=render.fig(amount))  # fmt: skip

    def region_stock(self, s: Slots) -> str | None:
        """'杭州能买到 H20 的机器吗': whether the price list has any instance of the GPU in the asked region."""
        if not s.region or s.region == "any" or not s.gpu:
            return None
        found = [GpuRegionPrices.model_validate(c.result) for c in self.calls
                 if c.name == "cheapest_region_for_gpu" and isinstance(c.result, dict)]  # fmt: skip
        if not found:
            return None
        here = [(o.instance_type, r) for f in found for o in f.options for r in o.regions if r.region == s.region]
        if not here:
            return say("form.region_unpriced", self.lang, gpu=found[0].gpu, region=s.region)
        itype, price = min(here, key=lambda pair: pair[1].price_cny)
        return say("form.region_priced", self.lang, gpu=found[0].gpu, region=s.region, instance_type=itype,
                   hourly=render.fig(price.price_cny), as_of=price.as_of)  # fmt: skip

    def region_unpriced(self, s: Slots) -> str | None:
        """'在新加坡能租到 A100 吗': no instance of that GPU has a price in the region asked about."""
        if not s.region or s.region == "any" or not s.gpu:
            return None
        plans = [Plan.model_validate(c.result) for c in self.calls if c.name == "plan_gpu_deployment"
                 and isinstance(c.result, dict) and c.args.get("region") == s.region]  # fmt: skip
        options = [o for p in plans for o in p.options]
        if not options or any(o.price_cny_per_hour is not None for o in options):
            return None
        return say("form.region_unpriced", self.lang, gpu=s.gpu, region=s.region)
