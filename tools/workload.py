"""What the user wants to run: the input of the planner, validated with clear messages."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from tools.errors import input_error
from tools.memory_stack import VERSION_PATTERN, Framework, is_serving_engine

Task = Literal["inference", "full", "lora", "qlora"]
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
Quant = Literal["none", "gptq-int4", "gptq-int8", "awq-int4", "bnb-nf4", "bnb-int8", "fp8"]
BillingBasis = Literal["pay-as-you-go", "subscription", "spot"]
"""Which price ranks the options; the others are still shown beside it, each labelled."""

DEFAULT_CONTEXT_TOKENS = 4096
DEFAULT_TRAIN_SEQ_LEN = 2048
MAX_TOKENS = 10_000_000


def check_region_id(value: str | None) -> str | None:
    """Accept an Alibaba Cloud region id ("cn-shanghai", "ap-southeast-1") or "any"; refuse anything else."""
    if value is not None and not re.fullmatch(r"(?:[a-z]{2}-[a-z]+(?:-\d+)?|any)", value):
        raise ValueError(f"{value!r} is not an Alibaba Cloud region id; use e.g. cn-shanghai, cn-beijing, or any")
    if value is not None and value != "any":
        from tools.prices import price_regions  # loaded by the plan anyway: a priced region is a known one

        if value in price_regions():
            return value
        from tools.regions import region_names  # an unpriced region: only then the region table (YAML)

        known = [r.id for r in region_names()]
        if value not in known:
            # A well-formed id that no table knows would price nothing and read as "nothing fits".
            raise PydanticCustomError(
                "unknown_region",
                "unknown region '{region}'; known regions: {known}, or any",
                {"region": value, "known": ", ".join(known), "ids": known},
            )
    return value


class Workload(BaseModel):
    """A deployment question: model, task, numeric targets and constraints."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, description="registry name, alias, or path to a config.json")
    task: Task = "inference"
    precision: Precision = "bf16"
    quant: Quant = "none"
    context: int | None = Field(default=None, gt=0, le=MAX_TOKENS, description="tokens per sequence")
    gen_tokens: int | None = Field(default=None, gt=0, le=MAX_TOKENS, description="output tokens per request")
    concurrency: int | None = Field(default=None, gt=0, le=100_000, description="sequences served at once")
    qps: float | None = Field(default=None, gt=0, le=100_000, description="requests per second to sustain")
    batch: int | None = Field(default=None, gt=0, le=4096, description="training micro-batch per GPU")
    seq_len: int | None = Field(default=None, gt=0, le=MAX_TOKENS, description="training sequence length")
    train_tokens: float | None = Field(default=None, gt=0, le=1e14, description="tokens to train on")
    budget_cny_month: float | None = Field(default=None, gt=0, description="monthly budget, CNY")
    region: str | None = Field(
        default=None,
        description="Alibaba Cloud region id, e.g. cn-shanghai; 'any' compares regions and prices each option "
        "in its cheapest one",
    )
    billing: BillingBasis = Field(default="pay-as-you-go", description="the price that ranks the options")
    gpu: str | None = Field(default=None, description="only instances with this GPU")
    exclude_gpus: list[str] = Field(
        default_factory=lambda: [], max_length=20, description="never these GPUs ('not on A10')"
    )
    max_instances: int | None = Field(default=None, gt=0, le=1024, description="at most this many instances")
    max_gpus: int | None = Field(default=None, gt=0, le=8192, description="at most this many GPUs in all")
    instance_type: str | None = Field(default=None, description="only this instance type ('how many X do I need')")
    rental_hours: float | None = Field(
        default=None,
        gt=0,
        le=8760,
        description="how long the deployment is rented in all, when only for a while (a 2-day hackathon is 48)",
    )
    users: int | None = Field(
        default=None, gt=0, le=100_000_000, description="people served in all, not at once (200 employees)"
    )
    hours_per_month: float | None = Field(
        default=None, gt=0, le=744, description="hours a month the deployment runs (pay-as-you-go at partial use)"
    )
    min_tokens_per_s_per_stream: float | None = Field(
        default=None, gt=0, le=10_000, description="each user's decode speed at least this, output tokens/s"
    )
    max_ttft_s: float | None = Field(default=None, gt=0, le=3600, description="time to first token at most, s")
    min_tokens_per_s_total: float | None = Field(
        default=None, gt=0, le=10_000_000, description="all users' output tokens/s together at least this"
    )
    grad_ckpt: bool = True
    max_options: int = Field(default=5, gt=0, le=50)
    include_retired: bool = False
    # Software stack (issue 12): None = vLLM-style serving for inference, HF Trainer for training.
    framework: Framework | None = Field(default=None, description="software stack the memory estimate models")
    framework_version: str | None = Field(default=None, max_length=40, pattern=VERSION_PATTERN)

    @field_validator("region")
    @classmethod
    def _region_id(cls, value: str | None) -> str | None:
        return check_region_id(value)

    @model_validator(mode="after")
    def _consistent(self) -> "Workload":
        if self.task == "inference" and (self.train_tokens is not None or self.seq_len is not None):
            raise ValueError("train_tokens and seq_len are for training tasks; use context for inference")
        speed = (self.min_tokens_per_s_per_stream, self.max_ttft_s, self.min_tokens_per_s_total)
        if self.task != "inference" and any(target is not None for target in speed):
            raise ValueError("speed targets (tokens/s, time to first token) are for inference")
        if self.task != "inference" and (self.concurrency is not None or self.qps is not None):
            raise ValueError("concurrency and qps are for inference; training uses batch and seq_len")
        if self.task == "full" and self.quant != "none":
            raise ValueError(f"full fine-tuning cannot train a {self.quant} checkpoint; use qlora or quant=none")
        if self.task == "qlora" and self.quant not in ("none", "bnb-nf4"):
            raise ValueError("qlora trains LoRA adapters on a bnb-nf4 base; drop the quant option")
        if self.framework is not None and self.task != "inference" and is_serving_engine(self.framework):
            raise ValueError(
                f"{self.framework} is an inference engine; train with transformers, deepspeed, torchtune or peft"
            )
        if self.framework is not None and self.task == "inference" and not is_serving_engine(self.framework):
            raise ValueError("the planner sizes inference for a serving engine: framework vllm, sglang or tensorrt-llm")
        if self.context is not None and self.gen_tokens is not None and self.gen_tokens >= self.context:
            raise ValueError("gen_tokens must be smaller than context (context = prompt + generated tokens)")
        return self

    @property
    def context_tokens(self) -> int:
        """Tokens one sequence holds: the context, or the training sequence length."""
        if self.task == "inference":
            return self.context or DEFAULT_CONTEXT_TOKENS
        return self.seq_len or self.context or DEFAULT_TRAIN_SEQ_LEN

    @property
    def output_tokens(self) -> int:
        """Generated tokens per request (default: a quarter of the context, at most 512)."""
        return output_tokens(self.context_tokens, self.gen_tokens)


def output_tokens(context: int, gen_tokens: int | None = None) -> int:
    """Return the generated tokens of a request of ``context`` tokens: as stated, else a quarter, at most 512."""
    return gen_tokens or min(512, max(1, context // 4))


def parse_workload(data: dict[str, object]) -> Workload:
    """Validate a workload dict, turning pydantic's report into one actionable line."""
    try:
        return Workload.model_validate({k: v for k, v in data.items() if v is not None})
    except ValidationError as exc:
        raise input_error(exc) from None
