"""Tool arguments from the slots, and small name helpers shared by the intent handlers."""

from __future__ import annotations

import re
from typing import Any

from assistant.toolbox import (
    gpu_specs,
)
from assistant.understanding import Slots
from tools.catalog import get_instance
from tools.errors import UnknownNameError
from tools.models import parse_size_b
from tools.workload import DEFAULT_CONTEXT_TOKENS, output_tokens

_HALF_PRECISIONS = ("bf16", "fp16", "fp32")


def plan_args(s: Slots) -> dict[str, Any]:
    """Arguments for ``plan_gpu_deployment`` from the slots, dropping what the task cannot use."""
    task = task_of(s)
    args: dict[str, Any] = {
        "model": s.model,
        "task": task,
        "region": s.region,
        "gpu": s.gpu,
        "budget_cny_month": s.budget_cny_month,
        "architecture": s.architecture,
        "billing": s.billing,
        "max_instances": s.max_instances,
        "max_gpus": s.max_gpus,
        "hours_per_month": s.usage_hours.per_month if s.usage_hours else None,
        "exclude_gpus": [g for g in s.exclude_gpus if g != s.gpu] or None,
    }
    args |= _precision_args(s, task)
    if task == "inference":
        args |= {"context": s.context, "concurrency": s.concurrency or s.batch, "qps": s.qps}
        if s.speed:  # "30 tokens/s each", "first token within 1 s": options that miss are turned away
            args |= {"min_tokens_per_s_per_stream": s.speed.per_stream, "max_ttft_s": s.speed.ttft_s,
                     "min_tokens_per_s_total": s.speed.total}  # fmt: skip
        if s.users and s.asks_user_cost:  # "monthly cost per user, 200 employees": each option's month over them
            args["users"] = round(s.users)
        if s.rental_hours:  # a few days' rental is pay-as-you-go: a subscription month would cost more
            args |= {"rental_hours": s.rental_hours, "billing": s.billing or "pay-as-you-go"}
        # An answer length alone ("replies of about 200 words") still sizes the output within the default context.
        limit = s.context or DEFAULT_CONTEXT_TOKENS // 2
        args["gen_tokens"] = s.gen_tokens if s.gen_tokens and s.gen_tokens < limit else None
    else:
        args |= {"seq_len": s.context, "batch": s.batch, "train_tokens": s.train_tokens}
    return {k: v for k, v in args.items() if v is not None}


def memory_args(s: Slots, gpus: int | None) -> dict[str, Any]:
    """Arguments for ``estimate_gpu_memory``; an inference context is split like the planner splits it."""
    task = task_of(s)
    args: dict[str, Any] = {"model": s.model, "task": task, "gpus": gpus, "architecture": s.architecture}
    args |= _precision_args(s, task)
    if task == "inference":
        # The planner sizes vLLM serving; the estimate uses the same engine so the two agree.
        args |= {"batch": s.concurrency or s.batch, "framework": "vllm"}
        if s.context:
            gen = s.gen_tokens if s.gen_tokens and s.gen_tokens < s.context else None
            args["gen_tokens"] = output_tokens(s.context, gen)
            args["prompt_tokens"] = s.context - args["gen_tokens"]
    else:
        args |= {"batch": s.batch, "seq_len": s.context}
    return {k: v for k, v in args.items() if v is not None}


def task_of(s: Slots) -> str:
    """Return the task the tools get: the slots' task, with LoRA on a 4-bit base read as QLoRA."""
    # "LoRA on a 4-bit base" is QLoRA; the tools would reject lora + int4.
    if s.task == "lora" and (s.precision == "int4" or s.quant == "bnb-nf4"):
        return "qlora"
    return s.task or "inference"


def _precision_args(s: Slots, task: str) -> dict[str, Any]:
    if task == "inference":
        return {"precision": s.precision, "quant": s.quant}
    if task == "qlora":
        return {}
    return {"precision": s.precision if s.precision in _HALF_PRECISIONS else None}


# ---------------------------------------------------------------------------------------------- helpers


def suggestions(message: str) -> list[str]:
    m = re.search(r"Did you mean (.+)\?$", message)
    return [s.strip() for s in m.group(1).split(",")] if m else []


def gpu_token(family: str) -> str | None:
    """Return the GPU a made-up family name refers to ("l20" in "ecs.l20-c32g1.8xlarge"), if any."""
    try:
        return gpu_specs(family).name
    except UnknownNameError:
        return None


def instance_gpu(name: str) -> str | None:
    """Return the GPU of an instance type, or of the GPU word inside a made-up name ("ecs.l20-...")."""
    try:
        return get_instance(name).gpu_name
    except UnknownNameError:
        return gpu_token(re.split(r"[.-]", name.removeprefix("ecs."))[0])


def same_size_suggestion(mention: str, message: str) -> str | None:
    """Return the tool's first suggestion when within 15% of the unknown name's size, else None."""
    named = suggestions(message)
    wanted = parse_size_b(mention)
    if not named or not wanted:
        return None
    size = parse_size_b(named[0])
    return named[0] if size and abs(size - wanted) <= 0.15 * wanted else None


def size_words(size_b: float) -> str:
    return f"{size_b:g}B"
