"""Training against a deadline: whether the named GPUs finish in time, and an alternative that does.

"64 H800s for two weeks, 50B tokens of continued pretraining, enough?": the H800 is on no Alibaba Cloud
instance type, so the answer must say so and offer GPUs that are rented there, *in a number that meets the
deadline* (an alternative that takes a month answers nothing). "8 A100s, 20B tokens, within 3 days?": too
slow; how many A100s would finish in time. The count is scaled from the 6·N·D run already computed (the same
MFU), rounded up to whole 8-GPU nodes, and checked with the same tool, so every figure is a tool result.
"""

from __future__ import annotations

import math
from typing import Any

from assistant import render
from assistant.answer import ToolCall
from assistant.intents.gpu_job import fastest_offered_gpu
from assistant.intents.verdict_words import offered
from assistant.messages import say
from assistant.question_form import deadline_label
from assistant.run import TRAINING, Events, Run
from assistant.toolbox import training_run
from assistant.understanding import Slots
from tools import catalog
from tools.errors import UnknownNameError
from tools.training_volume import TrainingCompute

_PER_VOLUME = 1e8  # tokens the rate is given for when the user gave no volume
_NODE = 8  # GPUs per training node: a larger count is rounded up to whole nodes
_TRIES = 3


def _tflops(gpu: str) -> float | None:
    try:
        return catalog.get_gpu(gpu).bf16_dense_tflops
    except UnknownNameError:
        return None


class DeadlineLeads(Run):
    """The lines that answer a training deadline: not in time or not rentable, and the set that meets it."""

    def deadline_lines(self, deadline_hours: float, run: TrainingCompute) -> Events:
        """Return [why the named set misses, the set that meets the deadline], or [] when the named set does."""
        rentable = offered(run.gpu)
        if run.hours <= deadline_hours and rentable:
            return []
        gpu = run.gpu if rentable else fastest_offered_gpu()
        mine, theirs = _tflops(run.gpu), _tflops(gpu) if gpu else None
        if gpu is None or not mine or not theirs:
            return []
        needed = run.gpus * run.hours * mine / theirs / deadline_hours
        count = math.ceil(needed)
        count = _NODE * math.ceil(count / _NODE) if count > _NODE else count
        alt: TrainingCompute | None = None
        for _ in range(_TRIES):  # the rounding above makes the first count enough; checked with the tool anyway
            result, _err = yield from self.call("training_run", training_run, model=run.model, gpu=gpu, gpus=count,
                                                tokens=run.training_tokens, task=run.task, mfu=run.mfu)  # fmt: skip
            alt = result if isinstance(result, TrainingCompute) else None
            if alt is None or alt.hours <= deadline_hours:
                break
            count += _NODE
        if alt is None or alt.hours > deadline_hours:
            return []
        figures = {"gpus": alt.gpus, "gpu": alt.gpu, "hours": render.fig(alt.hours), "days": render.fig(alt.days),
                   "deadline": deadline_label(deadline_hours, self.lang)}  # fmt: skip
        if not rentable:
            head = say("deadline.not_offered", self.lang, named=run.gpu, named_gpus=run.gpus,
                       named_days=render.fig(run.days), **figures)  # fmt: skip
            return [head]
        return [say("deadline.more_gpus", self.lang, **figures)]

    def in_time_line(self, run: TrainingCompute, deadline: float) -> str:
        """Return the yes line of a run that finishes within the stated deadline, with its hours."""
        return say("form.deadline_yes", self.lang, hours=render.fig(run.hours), days=render.fig(run.days),
                   deadline=deadline_label(deadline, self.lang), gpus=run.gpus, gpu=run.gpu,
                   mfu=render.fig(run.mfu))  # fmt: skip

    def volume_in_deadline(self, s: Slots, deadline_hours: float) -> Events:
        """'LoRA 7B 一天能搞定吗' with no data volume: how many tokens the named GPUs train within the deadline.

        The count is read off a 100M-token run, rounded down to two significant figures and run again through
        the tool, so the tokens and hours said are both a tool result (None: no fit, or a volume was given).
        """
        if (hw := self._fitted_without_volume(s)) is None:
            return None
        args = {"model": s.model, "gpu": hw["gpu"], "gpus": hw["gpus"], "task": s.task}
        rate, _err = yield from self.call("training_run", training_run, **args, tokens=_PER_VOLUME)
        if not isinstance(rate, TrainingCompute) or rate.hours <= 0:
            return None
        tokens = _PER_VOLUME * deadline_hours / rate.hours
        scale = 10 ** (math.floor(math.log10(tokens)) - 1)
        within = math.floor(tokens / scale) * scale
        run, _err = yield from self.call("training_run", training_run, **args, tokens=within)
        if not isinstance(run, TrainingCompute):
            return None
        return say("deadline.volume", self.lang, tokens=render.fig(run.training_tokens), gpus=run.gpus, gpu=run.gpu,
                   hours=render.fig(run.hours), mfu=render.fig(run.mfu),
                   deadline=deadline_label(deadline_hours, self.lang))  # fmt: skip

    def _fitted_without_volume(self, s: Slots) -> dict[str, Any] | None:
        """Return the named hardware of a training run given no data volume, when it holds the run (else None)."""
        if s.task not in TRAINING or s.train_tokens or s.samples or not s.model or s.architecture:
            return None
        fits = [c for c in self.calls if c.name == "evaluate_hardware_fit" and isinstance(c.result, dict)]
        if not fits or not fits[0].result["fits"]:  # type: ignore[index]
            return None
        return fits[0].result["hardware"]  # type: ignore[index,no-any-return]

    def per_volume_line(self, s: Slots) -> Events:
        """'LoRA 7B 一张 A10 要多久、花多少钱' with no data volume: time and cost per 100M tokens, said as such."""
        if (hw := self._fitted_without_volume(s)) is None:
            return None
        price = _hourly_for(self.calls, hw["gpu"], hw["gpus"])
        result, _err = yield from self.call("training_run", training_run, model=s.model, gpu=hw["gpu"],
                                            gpus=hw["gpus"], tokens=_PER_VOLUME, task=s.task,
                                            price_cny_per_hour=price)  # fmt: skip
        if not isinstance(result, TrainingCompute):
            return None
        figures = {"hours": render.fig(result.hours), "gpus": result.gpus, "gpu": result.gpu,
                   "mfu": render.fig(result.mfu * 100), "cost": render.fig(result.cost_cny or 0)}  # fmt: skip
        code = "volume.per_100m_cost" if result.cost_cny else "volume.per_100m"
        return say(code, self.lang, **figures)


def _hourly_for(calls: list[ToolCall], gpu: str, gpus: int) -> float | None:
    """Return the cheapest planned hourly price of exactly ``gpus`` x ``gpu``, if a plan priced one."""
    prices = [
        o["price_cny_per_hour"]
        for c in calls
        if c.name == "plan_gpu_deployment" and isinstance(c.result, dict)
        for o in c.result.get("options", [])
        if (o.get("gpu_model") or o.get("gpu_model_likely")) == gpu and o.get("total_gpus") == gpus
        and o.get("price_cny_per_hour")
    ]  # fmt: skip
    return min(prices) if prices else None
