"""Serving tools on named hardware beyond fit and capacity: each user's longest context, requests per second.

Plain typed functions over :mod:`tools.capacity` and :mod:`tools.serving_rate`, listed with the other tools in
:data:`assistant.toolbox.DOMAIN_TOOLS`; their schemas come from these signatures.
"""

from __future__ import annotations

from tools import capacity
from tools.serving_rate import RequestRate, max_request_rate
from tools.workload import Precision, Quant, parse_workload


def longest_context_per_user(
    model: str,
    users: int,
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    precision: Precision = "bf16",
    quant: Quant = "none",
    architecture: dict[str, int] | None = None,
) -> capacity.ContextBudget:
    """Find the longest context (prompt + output tokens) each of N concurrent users gets on the named hardware.

    From the KV-cache budget left after the weights, capped by the model's own context window.

    Args:
        model: Model name or alias.
        users: Sequences served at the same time, e.g. 8.
        gpu: GPU name when no instance type is named.
        gpus: How many of that GPU.
        instance_type: An ECS instance type, e.g. "ecs.gn8is-2x.8xlarge".
        instances: Instances sharing the users.
        precision: bf16, fp16, fp8, int8, int4 or fp32.
        quant: none, gptq-int4, gptq-int8, awq-int4, bnb-nf4, bnb-int8 or fp8.
        architecture: A model not in the registry, by its config.json dimensions (see plan_gpu_deployment).
    """
    from assistant.toolbox import custom_architecture  # the toolbox lists this module's tools: import when called

    arch = custom_architecture(model, architecture) if architecture else None
    return capacity.longest_context(model, users, gpu, gpus, instance_type, instances, precision, quant, arch)


def requests_per_second(
    model: str,
    instance_type: str,
    prompt_tokens: int | None = None,
    gen_tokens: int | None = None,
    precision: Precision = "bf16",
    quant: Quant = "none",
    min_tokens_per_s_per_stream: float | None = None,
    requests: float | None = None,
    architecture: dict[str, int] | None = None,
) -> RequestRate:
    """Estimate the requests per second one instance serves at full load (every replica holding its most sequences).

    Args:
        model: Model name or alias.
        instance_type: An ECS instance type, e.g. "ecs.gn7e-c16g1.4xlarge".
        prompt_tokens: Prompt tokens per request (default: the planner's 4,096-token context minus the output).
        gen_tokens: Output tokens per request (default: a quarter of the context, at most 512).
        precision: bf16, fp16, fp8, int8, int4 or fp32.
        quant: none, gptq-int4, gptq-int8, awq-int4, bnb-nf4, bnb-int8 or fp8.
        min_tokens_per_s_per_stream: Keep each request's decode at least this fast (fewer in flight if needed).
        requests: A batch job's size ("100k prompts"): the result also gives the hours it takes.
        architecture: A model not in the registry, by its config.json dimensions (see plan_gpu_deployment).
    """
    from assistant.toolbox import custom_architecture  # the toolbox lists this module's tools: import when called

    context = prompt_tokens + (gen_tokens or 512) if prompt_tokens else None
    workload = parse_workload(
        {"model": model, "instance_type": instance_type, "context": context, "gen_tokens": gen_tokens,
         "precision": precision, "quant": quant, "min_tokens_per_s_per_stream": min_tokens_per_s_per_stream}
    )  # fmt: skip
    return max_request_rate(workload, custom_architecture(model, architecture) if architecture else None, requests)
