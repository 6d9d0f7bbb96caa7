"""Training volume as people state it (samples x tokens per sample x epochs) and its time and cost.

Time comes from the usual compute rule: 6·N·D FLOPs for full training (pretraining, continued
pretraining, full fine-tuning) and 4·N·D for LoRA/QLoRA (no weight gradients), plus 2·N·D when
activations are recomputed, divided by the GPUs' dense BF16 throughput at a stated model FLOPs
utilisation (MFU). The MFU is an assumption, not a measurement of the user's cluster.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog
from tools.errors import input_problem
from tools.models import resolve_model
from tools.throughput import SpeedAssumptions, TrainTask, training_flops

MAX_TOKENS = 1e14


class TrainingVolume(BaseModel):
    """Tokens a training run processes."""

    model_config = ConfigDict(extra="forbid")

    samples: float
    tokens_per_sample: float
    epochs: float
    training_tokens: float = Field(description="samples x tokens per sample x epochs")


class TrainingCompute(BaseModel):
    """Time and cost of a training run on given GPUs at a stated MFU."""

    model_config = ConfigDict(extra="forbid")

    model: str
    task: TrainTask
    active_params_b: float = Field(description="parameters used per token, billions (N in 6·N·D)")
    training_tokens: float = Field(description="D in 6·N·D")
    flops: float = Field(description="total training FLOPs")
    flops_rule: str = Field(description="e.g. '6·N·D + 2·N·D recompute'")
    gpu: str
    gpus: int
    bf16_dense_tflops_per_gpu: float
    mfu: float
    hours: float = Field(description="wall-clock hours")
    days: float = Field(description="wall-clock days")
    gpu_hours: float
    price_cny_per_hour: float | None = Field(default=None, description="price of the whole set of GPUs per hour")
    cost_cny: float | None = None


def training_tokens(samples: float, tokens_per_sample: float, epochs: float = 1) -> TrainingVolume:
    """Multiply samples x tokens per sample x epochs into training tokens.

    Args:
        samples: Number of examples (dialogues, documents), positive.
        tokens_per_sample: Average tokens per example, positive.
        epochs: Passes over the data, positive (1 by default).

    Raises:
        ToolInputError: a value that is not positive, or a total above 10^14 tokens.
    """
    for name, value in (("samples", samples), ("tokens_per_sample", tokens_per_sample), ("epochs", epochs)):
        if not math.isfinite(value) or value <= 0:
            raise input_problem("error.positive_number", name=name, value=float(value))
    total = samples * tokens_per_sample * epochs
    if total > MAX_TOKENS:
        raise input_problem("error.training_tokens_max", total=float(total))
    return TrainingVolume(samples=samples, tokens_per_sample=tokens_per_sample, epochs=epochs, training_tokens=total)


def training_compute(
    model: str,
    tokens: float,
    gpu: str,
    gpus: int,
    task: TrainTask = "full",
    mfu: float | None = None,
    price_cny_per_hour: float | None = None,
    grad_ckpt: bool = True,
) -> TrainingCompute:
    """Training time (and cost, given a price) from 6·N·D at a stated MFU.

    Args:
        model: Registry name or alias.
        tokens: Training tokens (D), positive, at most 1e14.
        gpu: GPU name or alias (its dense BF16 TFLOPS are used).
        gpus: Number of GPUs training together.
        task: full (pretraining, continued pretraining, full fine-tuning), lora or qlora.
        mfu: Model FLOPs utilisation, 0-1; default the estimator's training assumption (0.4).
        price_cny_per_hour: Price of all ``gpus`` per hour, CNY; gives the cost.
        grad_ckpt: Activation recomputation adds 2·N·D.

    Raises:
        ToolInputError: unknown model or GPU, or values out of range.
    """
    if not math.isfinite(tokens) or tokens <= 0 or tokens > MAX_TOKENS:
        raise input_problem("error.tokens_range", tokens=float(tokens))
    if gpus < 1 or gpus > 100_000:
        raise input_problem("error.gpus_range", most=100_000, gpus=gpus)
    rate = SpeedAssumptions().mfu_training if mfu is None else mfu
    if not 0 < rate <= 1:
        raise input_problem("error.mfu_range", mfu=float(rate))
    arch = resolve_model(model)
    spec = catalog.get_gpu(gpu)
    tflops = spec.bf16_dense_tflops or spec.fp16_dense_tflops
    if not tflops:
        raise input_problem("error.no_dense_tflops", gpu=spec.name)
    flops = training_flops(arch, tokens, task, grad_ckpt)
    hours = flops / (gpus * tflops * 1e12 * rate) / 3600
    rule = ("6·N·D" if task == "full" else "4·N·D") + (" + 2·N·D recompute" if grad_ckpt else "")
    return TrainingCompute(
        model=arch.name,
        task=task,
        active_params_b=arch.param_breakdown().active / 1e9,
        training_tokens=tokens,
        flops=flops,
        flops_rule=rule,
        gpu=spec.name,
        gpus=gpus,
        bf16_dense_tflops_per_gpu=tflops,
        mfu=rate,
        hours=hours,
        days=hours / 24,
        gpu_hours=hours * gpus,
        price_cny_per_hour=price_cny_per_hour,
        cost_cny=hours * price_cny_per_hour if price_cny_per_hour is not None else None,
    )
