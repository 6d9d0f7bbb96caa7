"""The tools both engines call: plain typed functions over ``tools/`` and ``knowledge/``.

The LLM layer builds its tool schemas from these signatures and docstrings (never by hand), and the
deterministic engine calls the very same functions, so both engines state the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from assistant.toolbox_catalog import (
    cheapest_region_for_gpu,
    compare_instance_prices,
    compare_region_prices,
    find_instance_types,
    nearest_known_price,
    price_of_instance,
)
from assistant.toolbox_media import (
    estimate_media_gpu_memory,
    evaluate_media_fit,
    plan_media_deployment,
    plan_vlm_deployment,
)
from assistant.toolbox_serving import longest_context_per_user, requests_per_second
from knowledge.models import Passage
from tools import capacity, catalog, hardware_fit, lengths, training_volume
from tools.colocation import evaluate_colocation, evaluate_models_on_one_gpu
from tools.errors import input_problem
from tools.gpu_lineup import gpu_lineup
from tools.hf_config import architecture_from_config
from tools.memory import MemoryEstimate, estimate_memory, parse_request
from tools.model_search import largest_models_that_fit, largest_models_within_budget
from tools.models import ModelArchitecture, resolve_model
from tools.plan import Plan, plan_deployment
from tools.workload import BillingBasis, Precision, Quant, Task, parse_workload

if TYPE_CHECKING:
    from knowledge.base import KnowledgeBase  # numpy and the retrieval stack: not needed to describe the tools


def estimate_gpu_memory(
    model: str,
    task: Task = "inference",
    precision: Precision = "bf16",
    quant: Quant = "none",
    batch: int = 1,
    prompt_tokens: int | None = None,
    gen_tokens: int | None = None,
    seq_len: int | None = None,
    framework: Literal["transformers", "vllm"] = "transformers",
    gpus: int = 1,
    zero: Literal[0, 1, 2, 3] = 0,
    grad_ckpt: bool = True,
    lora_r: int = 16,
    optimizer: Literal["adamw", "adamw-8bit", "sgd"] = "adamw",
    architecture: dict[str, int] | None = None,
) -> MemoryEstimate:
    """Estimate GPU memory per GPU for running or fine-tuning a model, term by term (GiB).

    Args:
        model: Model name or alias, e.g. "Qwen2.5-72B-Instruct", "llama3-70b", "DeepSeek-R1".
        task: "inference", "full" (full fine-tuning), "lora" or "qlora".
        precision: Compute/weight precision: fp32, bf16, fp16, fp8, int8 or int4.
        quant: Checkpoint quantisation format: none, gptq-int4, gptq-int8, awq-int4, bnb-nf4, bnb-int8, fp8.
        batch: Sequences processed together (inference) or micro-batch per GPU (training).
        prompt_tokens: Inference prompt length in tokens.
        gen_tokens: Inference output length in tokens.
        seq_len: Training sequence length in tokens.
        framework: "transformers" (HF generate) or "vllm" (adds the vLLM memory budget view).
        gpus: Number of GPUs the model is split across (tensor parallel / ZeRO data parallel).
        zero: DeepSpeed ZeRO stage for training (0-3).
        grad_ckpt: Gradient (activation) checkpointing during training.
        lora_r: LoRA rank.
        optimizer: "adamw", "adamw-8bit" or "sgd".
        architecture: A model not in the registry, by its config.json dimensions (num_hidden_layers,
            hidden_size, num_attention_heads, num_key_value_heads, intermediate_size, vocab_size,
            num_local_experts, num_experts_per_tok, max_position_embeddings); ``model`` then only names it.
    """
    request = parse_request(
        {
            "model": model,
            "task": task,
            "precision": precision,
            "quant": quant,
            "batch": batch,
            "prompt_tokens": prompt_tokens,
            "gen_tokens": gen_tokens,
            "seq_len": seq_len,
            "framework": framework,
            "gpus": gpus,
            "zero": zero,
            "grad_ckpt": grad_ckpt,
            "lora_r": lora_r,
            "optimizer": optimizer,
        }
    )
    return estimate_memory(request, custom_architecture(model, architecture) if architecture else None)


def plan_gpu_deployment(
    model: str,
    task: Task = "inference",
    precision: Precision = "bf16",
    quant: Quant = "none",
    context: int | None = None,
    concurrency: int | None = None,
    qps: float | None = None,
    batch: int | None = None,
    seq_len: int | None = None,
    train_tokens: float | None = None,
    budget_cny_month: float | None = None,
    region: str | None = None,
    gpu: str | None = None,
    billing: BillingBasis = "pay-as-you-go",
    gen_tokens: int | None = None,
    architecture: dict[str, int] | None = None,
    max_instances: int | None = None,
    hours_per_month: float | None = None,
    instance_type: str | None = None,
    max_gpus: int | None = None,
    exclude_gpus: list[str] | None = None,
    min_tokens_per_s_per_stream: float | None = None,
    max_ttft_s: float | None = None,
    min_tokens_per_s_total: float | None = None,
    rental_hours: float | None = None,
    users: int | None = None,
) -> Plan:
    """Rank Alibaba Cloud GPU instance options that fit a workload, with speed and price; list rejections.

    Args:
        model: Model name or alias, e.g. "Qwen2.5-72B-Instruct", "Qwen3-30B-A3B", "llama3.1-8b".
        task: "inference", "full" (full fine-tuning), "lora" or "qlora".
        precision: bf16, fp16, fp8, int8, int4 or fp32.
        quant: none, gptq-int4, gptq-int8, awq-int4, bnb-nf4, bnb-int8 or fp8.
        context: Inference tokens per sequence (prompt + output).
        concurrency: Inference sequences served at the same time.
        qps: Inference requests per second to sustain.
        batch: Training micro-batch per GPU.
        seq_len: Training sequence length in tokens.
        train_tokens: Total training tokens (for training time and cost).
        budget_cny_month: Monthly budget in CNY; dearer options are rejected.
        region: Alibaba Cloud region id for prices and stock, e.g. "cn-shanghai"; "any" prices each option
            in its cheapest region and names it.
        gpu: Only consider this GPU, e.g. "L20", "A10", "A100-80GB".
        billing: Price that ranks the options: "pay-as-you-go", "subscription" or "spot"; the others are
            still reported beside it.
        gen_tokens: Inference output tokens per request (part of ``context``); default a quarter, at most 512.
        architecture: A model not in the registry, by its config.json dimensions (num_hidden_layers,
            hidden_size, num_attention_heads, num_key_value_heads, intermediate_size, vocab_size,
            num_local_experts, num_experts_per_tok, max_position_embeddings); ``model`` then only names it.
        max_instances: At most this many instances ("we can run at most 2"); layouts needing more are rejected.
        hours_per_month: Hours a month the deployment runs when not around the clock (e.g. 10 h on weekdays
            is about 217); each option then also gets its pay-as-you-go cost for those hours.
        instance_type: Only this instance type, e.g. "ecs.gn8is-4x.16xlarge": how many of it the workload needs.
        max_gpus: At most this many GPUs in all ("no more than 16 GPUs"); layouts needing more are rejected.
        exclude_gpus: GPUs the user ruled out ("not on A10s"), e.g. ["A10"]; their instance types are rejected.
        min_tokens_per_s_per_stream: Inference: each user's decode speed at least this many output tokens/s
            ("30 tokens/s per user"); a TPOT of 40 ms is 25. Layouts too slow are rejected with their figure.
        max_ttft_s: Inference: time to first token at most this many seconds (prefill plus one decode step).
        min_tokens_per_s_total: Inference: all users' output tokens/s together at least this ("200 tok/s total").
        rental_hours: How long it is rented in all when only for a while (a 2-day hackathon: 48); each priced
            option's totals then give its pay-as-you-go cost for that time.
        users: People served in all, not at once ("200 employees"); each priced option's totals then give
            its month per user.
    """
    workload = parse_workload(
        {
            "model": model,
            "task": task,
            "precision": precision,
            "quant": quant,
            "context": context,
            "concurrency": concurrency,
            "qps": qps,
            "batch": batch,
            "seq_len": seq_len,
            "train_tokens": train_tokens,
            "budget_cny_month": budget_cny_month,
            "region": region,
            "gpu": gpu,
            "billing": billing,
            "gen_tokens": gen_tokens,
            "max_instances": max_instances,
            "hours_per_month": hours_per_month,
            "instance_type": instance_type,
            "max_gpus": max_gpus,
            "exclude_gpus": exclude_gpus or [],
            "min_tokens_per_s_per_stream": min_tokens_per_s_per_stream,
            "max_ttft_s": max_ttft_s,
            "min_tokens_per_s_total": min_tokens_per_s_total,
            "rental_hours": rental_hours,
            "users": users,
        }
    )
    return plan_deployment(workload, custom_architecture(model, architecture) if architecture else None)


# Dimensions a custom architecture may leave out, and what is assumed for them (stated in the notes).
_CUSTOM_DEFAULTS = {"vocab_size": 128_000, "max_position_embeddings": 131_072}


def custom_architecture(name: str, dims: dict[str, int]) -> ModelArchitecture:
    """Build an architecture from dimensions given in a question, like a config.json would.

    Raises:
        ToolInputError: a required dimension (layers, hidden size, attention heads) is missing or impossible.
    """
    missing = [k for k in ("num_hidden_layers", "hidden_size", "num_attention_heads") if not dims.get(k)]
    if missing:
        raise input_problem("error.custom_arch_missing", missing=missing)
    cfg: dict[str, object] = {**_CUSTOM_DEFAULTS, **dims}
    assumed = [f"{k} {v}" for k, v in _CUSTOM_DEFAULTS.items() if k not in dims]
    if "intermediate_size" not in dims:
        cfg["intermediate_size"] = 4 * dims["hidden_size"]
        assumed.append("intermediate_size 4 x hidden_size")
    cfg["model_type"] = "mixtral" if dims.get("num_local_experts") else "llama"
    arch = architecture_from_config(cfg, name=name, source_url="dimensions given in the question")
    if assumed:
        notes = "; ".join(x for x in (arch.notes, "assumed: " + ", ".join(assumed)) if x)
        arch = arch.model_copy(update={"notes": notes})
    return arch


def model_card(model: str) -> ModelArchitecture:
    """Look up a model's architecture: parameters, layers, attention heads, KV heads and maximum context.

    Args:
        model: Model name, e.g. "Qwen2.5-72B-Instruct", "Llama-3.1-8B-Instruct", "DeepSeek-V3".
    """
    return resolve_model(model)


def gpu_specs(name: str) -> catalog.GPU:
    """Look up a GPU's spec-sheet figures: memory, bandwidth, dense TFLOPS by precision, NVLink.

    Args:
        name: GPU name, e.g. "A10", "H800", "A100 80GB", "L20", "H20".
    """
    return catalog.get_gpu(name)


def evaluate_hardware_fit(
    model: str,
    task: Task = "inference",
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    precision: Precision = "bf16",
    quant: Quant = "none",
    context: int | None = None,
    gen_tokens: int | None = None,
    concurrency: int | None = None,
    batch: int | None = None,
    seq_len: int | None = None,
    architecture: dict[str, int] | None = None,
) -> hardware_fit.HardwareFit:
    """Check a workload on exactly the hardware the user named; if it does not fit, the smallest change that does.

    Use this when the user fixes the hardware ("we have 4 L20", "on ecs.gn8is.4xlarge", "at most 2 instances")
    instead of planning on other hardware. Changes tried: quantisation, fewer sequences, a shorter sequence,
    ZeRO-3 (+ CPU offload), LoRA/QLoRA, more GPUs.

    Args:
        model: Model name or alias, e.g. "Qwen2.5-72B-Instruct".
        task: "inference", "full" (full fine-tuning or pretraining), "lora" or "qlora".
        gpu: GPU name when no instance type is named, e.g. "L20".
        gpus: How many of that GPU (per instance).
        instance_type: An ECS instance type, evaluated as named, e.g. "ecs.gn8is.4xlarge".
        instances: How many instances together.
        precision: bf16, fp16, fp8, int8, int4 or fp32.
        quant: none, gptq-int4, gptq-int8, awq-int4, bnb-nf4, bnb-int8 or fp8.
        context: Inference tokens per sequence (prompt + output).
        gen_tokens: Inference output tokens per sequence.
        concurrency: Inference sequences served at once.
        batch: Training micro-batch per GPU.
        seq_len: Training sequence length in tokens.
        architecture: A model not in the registry, by its config.json dimensions (see plan_gpu_deployment).
    """
    arch = custom_architecture(model, architecture) if architecture else None
    return hardware_fit.evaluate_hardware(
        model, task, gpu, gpus, instance_type, instances, precision, quant, context, gen_tokens, concurrency, batch,
        seq_len, arch,
    )  # fmt: skip


def concurrent_users(
    model: str,
    context: int,
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    precision: Precision = "bf16",
    quant: Quant = "none",
    architecture: dict[str, int] | None = None,
) -> capacity.Capacity:
    """Count how many sequences of a given length the named hardware holds at once, from its KV-cache budget.

    Args:
        model: Model name or alias.
        context: Tokens per sequence (prompt + output), e.g. 32768.
        gpu: GPU name when no instance type is named.
        gpus: How many of that GPU.
        instance_type: An ECS instance type, e.g. "ecs.gn7e-c16g1.16xlarge".
        instances: Instances serving independently (the count is summed).
        precision: bf16, fp16, fp8, int8, int4 or fp32.
        quant: none, gptq-int4, gptq-int8, awq-int4, bnb-nf4, bnb-int8 or fp8.
        architecture: A model not in the registry, by its config.json dimensions (see plan_gpu_deployment).
    """
    arch = custom_architecture(model, architecture) if architecture else None
    return capacity.concurrent_sequences(model, context, gpu, gpus, instance_type, instances, precision, quant, arch)


def text_length_tokens(amount: float, unit: lengths.TextUnit) -> lengths.TokenCount:
    """Convert a text length in characters, words or pages into tokens, with the ratio's source.

    Args:
        amount: How much text, e.g. 800.
        unit: tokens, zh_characters (Chinese characters), en_characters, en_words or pages (English pages).
    """
    return lengths.text_tokens(amount, unit)


def training_run(
    model: str,
    gpu: str,
    gpus: int,
    tokens: float | None = None,
    samples: float | None = None,
    tokens_per_sample: float | None = None,
    epochs: float = 1,
    task: Literal["full", "lora", "qlora"] = "full",
    mfu: float | None = None,
    price_cny_per_hour: float | None = None,
) -> training_volume.TrainingCompute:
    """Estimate training time and cost from 6·N·D (full, incl. pretraining) or 4·N·D (LoRA) at a stated MFU.

    Give either ``tokens`` or ``samples`` and ``tokens_per_sample`` (times ``epochs``).

    Args:
        model: Model name or alias.
        gpu: GPU name, e.g. "H800".
        gpus: GPUs training together.
        tokens: Training tokens in total.
        samples: Training examples, e.g. 40000 dialogues.
        tokens_per_sample: Average tokens per example.
        epochs: Passes over the data.
        task: "full" (pretraining, continued pretraining, full fine-tuning), "lora" or "qlora".
        mfu: Model FLOPs utilisation between 0 and 1 (default 0.4).
        price_cny_per_hour: Price of all the GPUs per hour, CNY, for the cost.
    """
    if tokens is None:
        if samples is None or tokens_per_sample is None:
            raise input_problem("error.training_volume_missing")
        tokens = training_volume.training_tokens(samples, tokens_per_sample, epochs).training_tokens
    return training_volume.training_compute(model, tokens, gpu, gpus, task, mfu, price_cny_per_hour)


class GuidanceSearch:
    """Binds the guidance search tool to one knowledge base (no global state)."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self._kb = kb

    def search_guidance(self, query: str, k: int = 4) -> list[Passage]:
        """Search the gpu-advisor guidance (instance families, sizing rules, serving, training, cost).

        Args:
            query: What to look up, in Chinese or English, e.g. "gn7i 是什么 GPU", "H800 vs A100".
            k: Number of passages to return (1-8).
        """
        return self._kb.search(query, k=max(1, min(k, 8)))

    def term_shares(self, text: str) -> dict[str, float]:
        """Each search token of ``text`` with the share of guidance sections using it (not a tool for the LLM)."""
        return self._kb.term_shares(text)


DOMAIN_TOOLS: tuple[Callable[..., Any], ...] = (
    plan_gpu_deployment,
    estimate_gpu_memory,
    evaluate_hardware_fit,
    largest_models_that_fit,
    largest_models_within_budget,
    evaluate_colocation,
    evaluate_models_on_one_gpu,
    concurrent_users,
    longest_context_per_user,
    requests_per_second,
    text_length_tokens,
    training_run,
    find_instance_types,
    gpu_lineup,
    gpu_specs,
    price_of_instance,
    nearest_known_price,
    compare_region_prices,
    compare_instance_prices,
    cheapest_region_for_gpu,
    model_card,
    plan_media_deployment,
    estimate_media_gpu_memory,
    evaluate_media_fit,
    plan_vlm_deployment,
)
"""The domain tools every agent face offers (the LLM engine, the MCP server), in the order they list them."""
