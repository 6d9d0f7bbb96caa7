"""Training time and cost on the GPUs the user named, and whether the conversation asks how long.

"两张 A100 要多久", "how long and how much on 4x A100": 6·N·D (or 4·N·D for LoRA) on exactly that hardware,
priced per GPU-hour from the plan's options with the same GPU. "what if 3 epochs?" after "how long?" still asks
how long: a follow-up that changes the training volume or the hardware keeps the earlier question's form.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.intents.arguments import task_of
from assistant.intents.plan_leads import HOW_LONG_RE, PlanLeads
from assistant.messages import say
from assistant.run import Events
from assistant.toolbox import training_run
from assistant.toolbox_catalog import nearest_known_price
from assistant.understanding import Slots
from tools import catalog
from tools.plan import Plan
from tools.price_nearest import NearestPrice
from tools.training_volume import TrainingCompute

# "— days and cost?", "hours?", "训练时长", "耗时多少": the duration asked as a bare noun
_DURATION_ASK = (
    r"\b(?:days|hours|weeks|duration|wall[\s\-]?time)\s*(?:and|&|,|/|\+|\?|？)|(?:—|–|:|：|,)\s*(?:days|hours|weeks)\b|"
    r"天数|耗时|时长|训练时间|(?:几|多少)(?:个)?(?:小时|天|周)"
)


class TrainingLeads(PlanLeads):
    """The training-time line of an answer on named hardware."""

    def training_time(self, s: Slots, plan: Plan | None = None) -> Events:
        """Training time (and days) from 6·N·D on the GPUs the user named, with its cost when priced; or None."""
        task = task_of(s)
        if task not in ("full", "lora", "qlora") or not (s.train_tokens and s.gpu and s.gpus):
            return None
        gpus = s.gpus * (s.instances or s.max_instances or 1)
        args = {"model": s.model, "gpu": s.gpu, "gpus": gpus, "tokens": s.train_tokens, "task": task}
        if (per_gpu := _per_gpu_hour(plan, s.gpu)) is not None:
            args["price_cny_per_hour"] = round(per_gpu * gpus, 2)
        run, err = yield from self.call("training_run", training_run, **args)
        if err or not isinstance(run, TrainingCompute):
            return None
        line = self.training_lines(run)
        if run.cost_cny is None and s.asks_cost:  # "按量多少钱" on a GPU with no list price: said, not skipped
            line += ("" if self.lang == "zh" else " ") + say("training.no_price", self.lang, gpu=run.gpu)
            line += yield from self.nearest_priced_run(run)
        return line

    def nearest_priced_run(self, run: TrainingCompute) -> Events:
        """Cost the same run on the nearest priced type with as many GPUs (the price tool's stand-in); or ""."""
        same = [i for i in catalog.list_instances(gpu=run.gpu) if i.gpu_count == run.gpus]
        if not same:
            return ""
        near, _ = yield from self.call("nearest_known_price", nearest_known_price, instance_type=same[0].instance_type)
        if not isinstance(near, NearestPrice) or near.gpu is None or near.quote.hourly is None:
            return ""
        count = int(near.gpu_count or run.gpus)
        other, _ = yield from self.call("training_run", training_run, model=run.model, gpu=near.gpu, gpus=count,
                                        tokens=run.training_tokens, task=run.task, mfu=run.mfu,
                                        price_cny_per_hour=near.quote.hourly)  # fmt: skip
        if not isinstance(other, TrainingCompute) or other.cost_cny is None:
            return ""
        return "\n\n" + say("training.nearest_cost", self.lang, gpus=count, gpu=near.gpu,
                             instance_type=near.quote.instance_type, price=render.fig(near.quote.hourly),
                             region=near.quote.region, hours=render.fig(other.hours),
                             cost=render.fig(other.cost_cny))  # fmt: skip

    def job_budget_lines(self, s: Slots, plan: Plan) -> list[str]:
        """'预算 10 万够吗' on a training run: the budget is for the run, against its cheapest priced option."""
        costed = [o for o in plan.options if o.training_cost_cny is not None and o.training_hours is not None]
        if not s.job_budget_cny or not costed:
            return []
        o = min(costed, key=lambda o: o.training_cost_cny or 0.0)
        within = (o.training_cost_cny or 0.0) <= s.job_budget_cny
        return [say("budget.job_yes" if within else "budget.job_no", self.lang, budget=render.fig(s.job_budget_cny),
                    cost=render.fig(o.training_cost_cny), hours=render.fig(o.training_hours), instances=o.instances,
                    instance_type=o.instance_type, gpus=o.total_gpus, gpu=render.gpu_label(o, self.lang))]  # fmt: skip

    def asks_how_long(self) -> bool:
        """Whether this turn asks how long, itself or as a follow-up that changes a previous "how long?"."""
        if re.search(HOW_LONG_RE, self.question, re.IGNORECASE) or re.search(_DURATION_ASK, self.question, re.I):
            return True
        turn = self.conv.turn
        changes = turn.epochs or turn.train_tokens or turn.samples or turn.gpus or turn.gpu or turn.task
        if not (turn.follow_up and changes):
            return False
        earlier = next((m.content for m in reversed(self.history) if m.role == "user"), "")
        return bool(re.search(HOW_LONG_RE, earlier, re.IGNORECASE))


def _per_gpu_hour(plan: Plan | None, gpu: str) -> float | None:
    """Return the cheapest pay-as-you-go price of one GPU of ``gpu`` among the plan's options (None: none priced)."""
    if plan is None:
        return None
    prices = [
        o.price_cny_per_hour / o.total_gpus
        for o in plan.options
        if o.price_cny_per_hour is not None and gpu in (o.gpu_model, o.gpu_model_likely)
    ]
    return min(prices) if prices else None
