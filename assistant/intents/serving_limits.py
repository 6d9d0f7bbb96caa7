"""Serving limits of the hardware the user named, answered first.

"8 users on 2 x L20 with a 32B model: how long can each context be?": the named hardware's K/V budget is
shared by the users (:func:`tools.capacity.longest_context`), capped by the model's own window.
"How many requests per second can one gn7e serve?": one instance at full load (:mod:`tools.serving_rate`).
"How many users while each still gets 20 tok/s?": the planner's sequences per replica under that target.
"""

from __future__ import annotations

from typing import Any

from assistant import render
from assistant.intents.arguments import plan_args, task_of
from assistant.messages import say
from assistant.run import Events, Run
from assistant.serving_words import rate_period
from assistant.toolbox import concurrent_users, longest_context_per_user, plan_gpu_deployment, requests_per_second
from assistant.understanding import Slots
from tools import catalog
from tools.capacity import Capacity, ContextBudget
from tools.plan import DeploymentOption, Plan
from tools.serving_rate import RequestRate
from tools.workload import DEFAULT_CONTEXT_TOKENS


class ServingLimits(Run):
    """The longest context per user, and the requests per second, on the hardware the user named."""

    def longest_context_lines(self, s: Slots, hardware: dict[str, Any], label: Any) -> Events:
        """Return the first line on how long each user's context may be (empty when it is not asked)."""
        if task_of(s) != "inference" or not s.asks_longest_context:
            return []
        args = {"model": s.model, "users": s.concurrency or s.batch or 1, "architecture": s.architecture}
        args |= hardware | {"precision": s.precision, "quant": s.quant}
        budget, err = yield from self.call("longest_context_per_user", longest_context_per_user, **args)
        if err or not isinstance(budget, ContextBudget):
            return []
        figures = {"hardware": label(budget.hardware), "users": budget.users, "model": budget.model}
        figures |= {"context": render.fig(budget.context), "kv": render.fig(budget.kv_gib_per_sequence)}
        figures |= {"budget": render.fig(budget.kv_budget_gib_per_gpu), "window": render.fig(budget.model_max_context)}
        code = "context.none" if budget.context == 0 else f"context.{budget.limited_by}"
        return [say(code, self.lang, **figures)]

    def request_rate_lines(self, s: Slots, hardware: dict[str, Any]) -> Events:
        """Return the first line on the requests per second one named instance serves (empty: not asked)."""
        instance_type = hardware.get("instance_type") or _type_with(hardware.get("gpu"), hardware.get("gpus") or 1)
        asked = s.asks_request_rate or s.job_requests or s.asks_full_load
        if task_of(s) != "inference" or not asked or instance_type is None:
            return []
        args = _rate_args(s, instance_type) | {"requests": s.job_requests}
        args["min_tokens_per_s_per_stream"] = s.speed.per_stream if s.speed else None
        rate, err = yield from self.call("requests_per_second", requests_per_second, **args)
        if err or not isinstance(rate, RequestRate):
            return []
        # "要多久跑完" answers in hours; "满载总吞吐" in tokens/s; otherwise the rate, with what bounds it
        full = s.asks_full_load and not s.asks_request_rate  # "满载每秒能处理几个请求": the rate is still asked
        code = "rate.job" if rate.job_hours is not None else "rate.full" if full else f"rate.{rate.bound}"
        lead = []  # "requests per hour on 2 x L20", "一天最多能处理多少请求": that period's count answers first
        if code.startswith("rate.") and rate.job_hours is None and not full and (period := rate_period(self.question)):
            count = rate.requests_per_hour if period == "hour" else rate.requests_per_day
            lead = [say(f"rate.per_{period}", self.lang, count=render.fig(count), rps=render.fig(rate.requests_per_s))]
        return [*lead, say(code, self.lang, hours=render.fig(rate.job_hours), requests=render.fig(rate.requests),
                    rps=render.fig(rate.requests_per_s),
                    instance_type=rate.instance_type, gpus=rate.gpus, gpu=rate.gpu or "?",
                    n=rate.concurrent_sequences, model=rate.model,
                    decode=render.fig(rate.decode_tokens_per_s), stream=render.fig(rate.tokens_per_s_per_stream),
                    prefill=render.fig(rate.prefill_tokens_per_s), prompt=rate.prompt_tokens,
                    output=rate.output_tokens)]  # fmt: skip

    def stated_rate_lines(self, s: Slots, hardware: dict[str, Any]) -> Events:
        """Whether named hardware that holds the model keeps up with the stated requests/s: (short, lines).

        The memory fit says it loads; the stated rate decides whether it keeps up. When it does not, the
        planner's option for that rate on the same GPU is the change that would.
        """
        instances = hardware.get("instances") or 1
        instance_type = hardware.get("instance_type") or _type_with(hardware.get("gpu"), hardware.get("gpus") or 1)
        if task_of(s) != "inference" or not s.qps or instance_type is None:
            return False, []
        rate, err = yield from self.call("requests_per_second", requests_per_second, **_rate_args(s, instance_type))
        if err or not isinstance(rate, RequestRate):
            return False, []
        if rate.requests_per_s * instances >= s.qps:
            return False, [say("rate.keeps_up", self.lang, rps=render.fig(rate.requests_per_s), qps=render.fig(s.qps),
                               prompt=rate.prompt_tokens, output=rate.output_tokens)]  # fmt: skip
        plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment,
                                       **plan_args(s.model_copy(update={"gpus": None, "gpu": rate.gpu})))  # fmt: skip
        top = plan.options[0] if isinstance(plan, Plan) and plan.options else None
        figures = {"rps": render.fig(rate.requests_per_s), "qps": render.fig(s.qps), "instances": instances,
                   "instance_type": instance_type, "gpus": rate.gpus, "gpu": rate.gpu or "?", "model": rate.model,
                   "prompt": rate.prompt_tokens, "output": rate.output_tokens}  # fmt: skip
        if top is None:
            return True, [say("rate.short", self.lang, **figures)]
        return True, [say("rate.short_plan", self.lang, **figures, need_instances=top.instances,
                          need_type=top.instance_type, need_gpus=top.total_gpus)]  # fmt: skip

    def users_at_speed_lines(self, s: Slots, hardware: dict[str, Any], label: Any) -> Events:
        """Return the first line on how many users the named hardware keeps at the per-user speed asked."""
        if task_of(s) != "inference" or not (s.asks_capacity and s.speed and s.speed.per_stream):
            return []
        instance_type = hardware.get("instance_type") or _type_with(hardware.get("gpu"), hardware.get("gpus") or 1)
        if instance_type is None:
            return []
        held = s.model_copy(update={"concurrency": None, "qps": None, "gpus": None, "max_instances": 1})
        plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment,
                                       **plan_args(held) | {"instance_type": instance_type})  # fmt: skip
        figures = {"target": render.fig(s.speed.per_stream), "model": s.model, "instance_type": instance_type}
        top = plan.options[0] if isinstance(plan, Plan) and plan.options else None
        if top is None:
            slow = [r.reason for r in plan.rejected if r.reason.code == "reject.speed_per_stream"] \
                if isinstance(plan, Plan) else []  # fmt: skip
            reached = render.fig(slow[0].values["reached"]) if slow else "?"
            return [say("users_speed.none", self.lang, **figures, reached=reached)]
        n = top.max_concurrent_sequences or 1
        full, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment,
                                       **plan_args(held.model_copy(update={"concurrency": n}))
                                       | {"instance_type": instance_type})  # fmt: skip
        at_n: DeploymentOption = full.options[0] if isinstance(full, Plan) and full.options else top
        context = s.context or DEFAULT_CONTEXT_TOKENS
        cap, _ = yield from self.call("concurrent_users", concurrent_users, model=s.model, context=context,
                                      instance_type=instance_type, precision=s.precision or "bf16",
                                      quant=s.quant or "none", architecture=s.architecture)  # fmt: skip
        memory = cap.sequences if isinstance(cap, Capacity) else n
        code = "users_speed.memory" if n >= memory else "users_speed.speed"
        return [say(code, self.lang, **figures, n=render.fig(n), stream=render.fig(at_n.decode_tokens_per_s_per_stream),
                    context=render.fig(context), memory=render.fig(memory), gpus=top.gpu_count,
                    gpu=top.gpu_model or top.gpu_model_likely or "?")]  # fmt: skip


def _rate_args(s: Slots, instance_type: str) -> dict[str, Any]:
    """Return the request shape ``requests_per_second`` sizes on ``instance_type``: model, lengths, precision."""
    return {"model": s.model, "instance_type": instance_type, "architecture": s.architecture,
            "prompt_tokens": s.prompt_tokens, "gen_tokens": s.gen_tokens, "precision": s.precision, "quant": s.quant}


def _type_with(gpu: str | None, gpus: int) -> str | None:
    """Return the first listed instance type with exactly ``gpus`` of ``gpu`` ("one H20": a 1-GPU H20 type)."""
    return next(
        (i.instance_type for i in catalog.list_instances() if i.gpu_name == gpu and i.gpu_count == gpus and not i.vgpu),
        None,
    )
