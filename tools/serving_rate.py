"""Requests per second one instance serves at full load: "how many requests per second can gn7e serve?".

The planner sizes the instance (:mod:`tools.plan`): first how many sequences one replica holds (memory, the
vLLM cap of 256, and a per-user speed target if one is set) and how many replicas the instance runs, then
the decode and prefill speed with every replica full. Each request costs its prompt's prefill and its
output's decode, so at full load ``requests/s = 1 / (output / decode tokens/s + prompt / prefill tokens/s)``,
the same balance the planner uses to meet a QPS. A planning figure (±30%), not a benchmark.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import ModelArchitecture
from tools.errors import input_problem
from tools.plan import DeploymentOption, plan_deployment
from tools.workload import Workload


class RequestRate(BaseModel):
    """The request rate one instance sustains with every replica full."""

    model_config = ConfigDict(extra="forbid")

    model: str
    instance_type: str
    gpu: str | None
    gpus: int = Field(description="GPUs of the instance")
    replicas: int = Field(description="model copies on the instance")
    tensor_parallel: int
    concurrent_sequences: int = Field(description="sequences in flight at full load, all replicas")
    prompt_tokens: int
    output_tokens: int
    requests_per_s: float = Field(description="requests finished per second at full load")
    requests_per_hour: float = Field(default=0.0, description="requests finished in an hour at full load")
    requests_per_day: float = Field(default=0.0, description="requests finished in 24 h at full load, all day")
    decode_tokens_per_s: float = Field(description="output tokens/s at full load, all replicas")
    tokens_per_s_per_stream: float = Field(description="output tokens/s each request sees at full load")
    prefill_tokens_per_s: float = Field(description="prompt tokens/s, all replicas")
    bound: Literal["decode", "prefill"] = Field(description="which takes more of a request's GPU time")
    requests: float | None = Field(default=None, description="a batch job's requests, when one was given")
    job_hours: float | None = Field(default=None, description="hours the batch job takes at this rate")


def max_request_rate(
    workload: Workload, arch: ModelArchitecture | None = None, requests: float | None = None
) -> RequestRate:
    """Return the requests per second one instance of ``workload.instance_type`` serves at full load.

    With ``requests`` (a batch job: "100k prompts"), also the hours the job takes at that rate.

    Raises:
        ToolInputError: no instance type named, or the model does not fit one instance of it.
    """
    if not workload.instance_type or workload.task != "inference":
        raise input_problem("error.rate_needs_type")
    one = _option(workload.model_copy(update={"concurrency": 1, "qps": None, "max_instances": 1}), arch)
    per_replica = one.max_concurrent_sequences or 1
    full = per_replica * (one.gpu_count // one.tensor_parallel)
    top = _option(workload.model_copy(update={"concurrency": full, "qps": None, "max_instances": 1}), arch)
    prompt, output = max(1, workload.context_tokens - workload.output_tokens), workload.output_tokens
    decode_s = output / (top.decode_tokens_per_s or 1.0)
    prefill_s = prompt / (top.prefill_tokens_per_s or 1.0)
    rate = 1 / (decode_s + prefill_s)
    return RequestRate(
        model=workload.model,
        instance_type=top.instance_type,
        gpu=top.gpu_model or top.gpu_model_likely,
        gpus=top.gpu_count,
        replicas=top.data_parallel,
        tensor_parallel=top.tensor_parallel,
        concurrent_sequences=full,
        prompt_tokens=prompt,
        output_tokens=output,
        requests_per_s=round(rate, 2),
        requests_per_hour=round(rate * 3600, -1),
        requests_per_day=round(rate * 86_400, -2),
        decode_tokens_per_s=top.decode_tokens_per_s or 0.0,
        tokens_per_s_per_stream=top.decode_tokens_per_s_per_stream or 0.0,
        prefill_tokens_per_s=top.prefill_tokens_per_s or 0.0,
        bound="decode" if decode_s >= prefill_s else "prefill",
        requests=requests,
        job_hours=round(requests / rate / 3600, 2) if requests else None,
    )


def _option(workload: Workload, arch: ModelArchitecture | None) -> DeploymentOption:
    plan = plan_deployment(workload, arch)
    if not plan.options:
        raise input_problem("error.rate_no_fit", model=plan.model, instance_type=workload.instance_type or "?")
    return plan.options[0]
