"""Deployment planning: which instance type, how many, how laid out, how fast, at what cost.

For every instance type in the catalog the planner finds the smallest layout that fits the workload,
prices it, and either keeps it as an option or records why it was rejected. Options that do not fit are
never recommended. Every memory figure carries the estimator's uncertainty band (p10-p90 of measured /
predicted on held-out published measurements, :mod:`tools.memory_band`); fits are checked against the
band's upper end, and a fit whose band crosses the usable memory is flagged as tight.

Assumptions and limits
----------------------
* Inference is planned for vLLM-style serving: tensor parallel inside an instance, replicas side by side,
  pipeline parallel across instances only for models that do not fit one 8-GPU instance.
* A GPU's usable memory is what CUDA reports when Alibaba/Karpenter publish it, else a stated fraction
  of the nominal size; vLLM may use ``gpu_memory_utilization`` (0.9) of it.
* Speed figures come from :mod:`tools.throughput` (bandwidth-bound decode, compute-bound prefill).
* Prices come from :mod:`tools.prices` with their region, billing mode and date (live DescribePrice
  prices where a refresh has run): ``region`` prices every option there and turns away types that region
  does not list or stock; ``region='any'`` prices each option in its cheapest listed region; no region
  uses the default region order. Pay-as-you-go, subscription and spot are separate fields, never mixed;
  a missing price stays unknown.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple  # internal records: a frozen dataclass compiles its methods on every cold start

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog
from tools.architecture import ModelArchitecture
from tools.memory import MemoryBreakdown, MemoryEstimate
from tools.memory_band import band_for
from tools.models import resolve_model
from tools.notes import Note, NoteValue, note
from tools.plan_layout import (
    TP_SIZES,
    Layout,
    estimate,
    fp8_weights,
    gpu_perf,
    layout_for,
    max_kv_split,
    node_counts,
    precheck,
    tp_problem,
    usable_gib,
    whole_gpus,
)
from tools.plan_notes import (
    VLLM_GPU_MEMORY_UTILIZATION,
    band_note,
    framework_of,
    plan_assumptions,
    plan_warnings,
)
from tools.plan_pricing import (
    CostTotals,
    cost_totals,
    monthly_cost,
    price_fields,
    ranked_options,
    region_problem,
    too_many_gpus,
    too_many_instances,
    usage_fields,
)
from tools.speed_targets import (
    concurrency_for_total,
    request_seconds,
    stream_batch_cap,
    time_to_first_token_s,
    ttft_problem,
)
from tools.throughput import (
    DecodeSpeed,
    GpuPerf,
    decode_speed,
    prefill_tokens_per_s,
    training_hours,
)
from tools.workload import Workload

VLLM_MAX_NUM_SEQS = 256


class DeploymentOption(BaseModel):
    """One way to run the workload that fits, with its speed and cost."""

    model_config = ConfigDict(extra="forbid")

    instance_type: str
    family: str
    gpu_model: str | None = Field(description="GPU as Alibaba names it; None where the tables do not")
    gpu_model_likely: str | None = None
    gpu_confidence: str
    gpu_count: int = Field(description="GPUs per instance")
    instances: int = Field(description="instances to rent")
    total_gpus: int
    tensor_parallel: int = Field(description="GPUs one model copy is split across inside a node")
    pipeline_parallel: int = Field(description="nodes one model copy spans (1 = single node)")
    data_parallel: int = Field(description="model replicas (inference) or data-parallel ranks (training)")
    per_gpu_gib_needed: float = Field(description="memory the workload needs on each GPU, incl. overhead")
    per_gpu_capacity_gib: float = Field(description="usable memory of one GPU")
    headroom_pct: float = Field(description="(capacity - needed) / capacity x 100")
    tight_fit: bool = Field(
        description="the estimate's p90 band crosses the usable memory: it fits at the estimate, not at the upper end"
    )
    per_gpu_gib_upper: float | None = Field(
        default=None, description="upper end (p90) of the per-GPU memory band; compared with the capacity"
    )
    memory: MemoryBreakdown = Field(description="per-GPU memory terms, GiB")
    max_concurrent_sequences: int | None = Field(default=None, description="KV capacity at the context")
    decode_tokens_per_s: float | None = Field(default=None, description="output tokens/s, all replicas")
    decode_tokens_per_s_per_stream: float | None = None
    prefill_tokens_per_s: float | None = Field(default=None, description="prompt tokens/s, all replicas")
    time_to_first_token_s: float | None = Field(
        default=None, description="prefill of one prompt plus a decode step on one replica, s (not queued)"
    )
    request_latency_s: float | None = Field(
        default=None, description="one whole request: the first token, then its output at the per-stream speed, s"
    )
    training_hours: float | None = None
    price_cny_per_hour: float | None = Field(description="all instances together, pay-as-you-go; None = unknown")
    price_cny_per_month: float | None = Field(description="subscription if listed, else 730 h pay-as-you-go")
    price_month_basis: str | None = Field(
        default=None, description="'monthly subscription' or 'pay-as-you-go x 730 h/month'"
    )
    price_region: str | None = Field(default=None, description="region the prices are for")
    price_as_of: str | None = Field(default=None, description="date (or timestamp, for live prices) of the price")
    price_live: bool = Field(default=False, description="from a live DescribePrice refresh, not the shipped list")
    subscription_cny_per_month: float | None = Field(default=None, description="all instances, if listed")
    subscription_as_of: str | None = Field(default=None, description="date of the subscription price")
    spot_cny_per_hour: float | None = Field(default=None, description="all instances, spot (preemptible), if known")
    usage_hours_per_month: float | None = Field(default=None, description="hours a month it runs, when not 730")
    usage_cny_per_month: float | None = Field(
        default=None, description="pay-as-you-go for usage_hours_per_month, all instances"
    )
    price_regions_compared: int | None = Field(
        default=None, description="with region 'any': how many regions list this type"
    )
    cost_cny_per_million_tokens: float | None = None
    totals: CostTotals | None = Field(default=None, description="per day, per year and per 1,000 requests")
    training_cost_cny: float | None = None
    price_source: str | None = Field(description="where the price came from, region and as-of date")
    notes: list[Note] = Field(default_factory=lambda: [])


class Rejection(BaseModel):
    """An instance type the planner did not recommend, and why."""

    model_config = ConfigDict(extra="forbid")

    instance_type: str
    family: str
    gpu_model: str | None
    reason: Note
    needed_gib: float | None = Field(default=None, description="per GPU, when memory is why it was turned away")
    usable_gib: float | None = Field(default=None, description="per GPU, what that layout may use")


class _Shortfall(NamedTuple):
    """Why a type did not fit: not enough memory per GPU, with both figures (for charts, not re-parsing).

    The note is made only for the layout that becomes the rejection: most layouts tried are overwritten.
    """

    code: str
    values: dict[str, NoteValue]
    needed_gib: float
    usable_gib: float


@cache
def _no_layout() -> Note:
    return note("reject.no_layout")


class Plan(BaseModel):
    """The planner's answer: ranked options, rejections, and everything assumed on the way."""

    model_config = ConfigDict(extra="forbid")

    workload: Workload
    model: str
    params_b: float
    active_params_b: float
    options: list[DeploymentOption]
    also_fits: list[str] = Field(
        default_factory=lambda: [], description="instance types that fit but rank below the options shown"
    )
    rejected: list[Rejection]
    assumptions: list[Note]
    warnings: list[Note] = Field(default_factory=lambda: [])


def plan_deployment(workload: Workload, arch: ModelArchitecture | None = None) -> Plan:
    """Rank the instance layouts that fit ``workload``; explain the ones that do not."""
    arch = arch or resolve_model(workload.model)
    wanted_gpus = catalog.gpu_names_for_filter(workload.gpu) if workload.gpu else None
    excluded = {name for gpu in workload.exclude_gpus for name in catalog.gpu_names_for_filter(gpu)}
    options: list[DeploymentOption] = []
    rejected: list[Rejection] = []
    gpu_offered = wanted_gpus is None
    only = catalog.get_instance(workload.instance_type).instance_type if workload.instance_type else None
    for inst in catalog.list_instances(include_retired=workload.include_retired):
        if only and inst.instance_type != only:
            continue  # "how many ecs.gn8is-4x.16xlarge do I need?": that type alone, no rejection noise
        gpu = catalog.gpu_for_instance(inst)
        gpu_offered = gpu_offered or (gpu is not None and gpu.name in (wanted_gpus or ()))
        reason = precheck(inst, gpu, wanted_gpus, arch, workload) or region_problem(inst, workload.region)
        if not reason and gpu is not None and gpu.name in excluded:
            reason = note("reject.excluded_gpu", gpu=gpu.name)
        if reason:
            rejected.append(_reject(inst, reason))
            continue
        assert gpu is not None
        outcome = _fit(inst, gpu, arch, workload)
        if isinstance(outcome, Note | _Shortfall):
            rejected.append(_reject(inst, outcome))
        elif workload.max_instances and outcome.instances > workload.max_instances:
            rejected.append(_reject(inst, too_many_instances(outcome.instances, workload.max_instances)))
        elif workload.max_gpus and outcome.total_gpus > workload.max_gpus:
            rejected.append(_reject(inst, too_many_gpus(outcome.total_gpus, workload.max_gpus)))
        elif workload.budget_cny_month and (monthly_cost(outcome) or 0) > workload.budget_cny_month:
            rejected.append(_reject(inst, note("reject.over_budget", cny_per_month=monthly_cost(outcome) or 0.0)))
        else:
            options.append(outcome)
    ranked = ranked_options(options, workload.max_options, workload.billing)
    shown = {id(o) for o in ranked}
    breakdown = arch.param_breakdown()
    return Plan(
        workload=workload,
        model=arch.name,
        params_b=round(breakdown.total / 1e9, 3),
        active_params_b=round(breakdown.active / 1e9, 3),
        options=ranked,
        also_fits=[o.instance_type for o in options if id(o) not in shown],
        rejected=rejected,
        assumptions=plan_assumptions(workload),
        warnings=plan_warnings(arch, workload, ranked, rejected, gpu_offered),
    )


def _reject(inst: catalog.InstanceType, reason: Note | _Shortfall) -> Rejection:
    if isinstance(reason, _Shortfall):
        return Rejection(
            instance_type=inst.instance_type,
            family=inst.family,
            gpu_model=inst.gpu_model,
            reason=note(reason.code, **reason.values),
            needed_gib=round(reason.needed_gib, 2),
            usable_gib=round(reason.usable_gib, 2),
        )
    return Rejection(instance_type=inst.instance_type, family=inst.family, gpu_model=inst.gpu_model, reason=reason)


def _fit(
    inst: catalog.InstanceType, gpu: catalog.GPU, arch: ModelArchitecture, w: Workload
) -> DeploymentOption | Note | _Shortfall:
    if w.task == "inference":
        return _fit_inference(inst, gpu, arch, w)
    return _fit_training(inst, gpu, arch, w)


def _fit_inference(
    inst: catalog.InstanceType, gpu: catalog.GPU, arch: ModelArchitecture, w: Workload
) -> DeploymentOption | Note | _Shortfall:
    """Try every tensor/pipeline layout on this instance type; keep the one needing the fewest GPUs."""
    capacity = usable_gib(inst, gpu)
    budget = capacity * VLLM_GPU_MEMORY_UTILIZATION
    perf = gpu_perf(gpu, w, arch)
    best: _Sizing | None = None
    last_problem: Note | _Shortfall = _no_layout()
    too_slow: Note | None = None  # a layout that fits but misses a speed target: said rather than a later misfit
    for nodes in node_counts(inst):
        for tp in (t for t in TP_SIZES if t <= whole_gpus(inst) and whole_gpus(inst) % t == 0):
            if nodes > 1 and tp != whole_gpus(inst):
                continue
            if problem := tp_problem(arch, tp):
                last_problem = problem
                continue
            one = layout_for(arch, w, tp, nodes, 1, capacity)
            kv_per_seq = one.memory.kv_cache_gib
            fixed = one.total_gib - kv_per_seq
            if one.total_gib > budget:
                last_problem = _Shortfall(
                    "reject.memory_one_sequence",
                    {
                        "need": round(one.total_gib, 2),
                        "context": w.context_tokens,
                        "gpus": tp * nodes,
                        "gpu": gpu.name,
                        "budget": round(budget, 2),
                    },
                    one.total_gib,
                    budget,
                )
                continue
            seqs = int((budget - fixed) // kv_per_seq) if kv_per_seq > 0 else VLLM_MAX_NUM_SEQS
            sized, slow = _sized_for_targets(inst, perf, arch, w, tp, nodes, seqs, capacity)
            if sized is None:
                too_slow = slow
                continue
            if best is None or (sized.instances, -tp) < (best.instances, -best.tp):  # fewest GPUs, then larger TP
                best = sized
        if best is not None:
            break  # a single-node layout beats any that spans nodes
    # Only the layout kept becomes a priced option: building one for every layout tried was a third of a plan.
    return _inference_option(inst, gpu, arch, w, best, capacity) if best is not None else too_slow or last_problem


def _sized_for_targets(
    inst: catalog.InstanceType,
    perf: GpuPerf,
    arch: ModelArchitecture,
    w: Workload,
    tp: int,
    nodes: int,
    seqs: int,
    capacity: float,
) -> tuple[_Sizing | None, Note | None]:
    """Size one layout within the workload's speed targets (tools/speed_targets.py); None and why if it misses."""
    def speed_at(batch: int) -> DecodeSpeed:
        return _replica_speed(arch, perf, w, tp, nodes, batch, capacity)

    most = max(1, min(seqs, VLLM_MAX_NUM_SEQS))
    cap, slow = stream_batch_cap(w.min_tokens_per_s_per_stream, most, speed_at, gpus=tp * nodes)
    if slow is not None:
        return None, slow
    load = concurrency_for_total(w.min_tokens_per_s_total, w.concurrency, cap, speed_at)
    loaded = w if load == w.concurrency else w.model_copy(update={"concurrency": load})
    sized = _inference_sizing(inst, perf, arch, loaded, tp, nodes, cap, capacity)
    prompt = max(1, w.context_tokens - w.output_tokens)
    late = ttft_problem(w.max_ttft_s, time_to_first_token_s(prompt, sized.prefill_tokens_s, sized.speed))
    return (None, late) if late else (sized, None)


class _Sizing(NamedTuple):
    """How one tensor/pipeline layout serves the load: replicas, instances and speed, before pricing."""

    tp: int
    nodes: int
    replicas: int
    instances: int
    capacity_batch: int
    layout: Layout
    speed: DecodeSpeed
    prefill_tokens_s: float


def _inference_sizing(
    inst: catalog.InstanceType,
    perf: GpuPerf,
    arch: ModelArchitecture,
    w: Workload,
    tp: int,
    nodes: int,
    seqs_per_replica: int,
    capacity: float,
) -> _Sizing:
    capacity_batch = max(1, min(seqs_per_replica, VLLM_MAX_NUM_SEQS))
    prompt = max(1, w.context_tokens - w.output_tokens)
    prefill = prefill_tokens_per_s(arch, perf, prompt_tokens=prompt, tensor_parallel=tp)
    if w.concurrency is None and w.qps:
        # Only a rate is given: run each replica at the batch Little's law asks for (requests in flight
        # = rate x latency), at most its KV capacity, then add replicas until the rate is met.
        batch = capacity_batch
        for _ in range(3):
            speed = _replica_speed(arch, perf, w, tp, nodes, batch, capacity)
            in_flight = w.qps * (w.output_tokens / speed.tokens_per_s_per_stream + prompt / prefill)
            batch = max(1, min(capacity_batch, math.ceil(in_flight)))
        replicas = max(math.ceil(in_flight / batch), _replicas_for_rate(w, prompt, speed, prefill))
    else:
        concurrency = w.concurrency or 1
        replicas = math.ceil(concurrency / capacity_batch)
        batch = math.ceil(concurrency / replicas)
    layout = layout_for(arch, w, tp, nodes, batch, capacity)
    speed = _replica_speed(arch, perf, w, tp, nodes, batch, capacity)
    if w.qps and w.concurrency is not None:
        replicas = max(replicas, _replicas_for_rate(w, prompt, speed, prefill))
    replicas_per_node = whole_gpus(inst) // tp if nodes == 1 else 1
    instances = math.ceil(replicas / replicas_per_node) * nodes
    return _Sizing(tp, nodes, replicas, instances, capacity_batch, layout, speed, prefill)


def _inference_option(
    inst: catalog.InstanceType, gpu: catalog.GPU, arch: ModelArchitecture, w: Workload, sized: _Sizing, capacity: float
) -> DeploymentOption:
    tp, nodes, replicas, speed = sized.tp, sized.nodes, sized.replicas, sized.speed
    total_tokens_s = speed.tokens_per_s_total * replicas
    option = _priced_option(inst, gpu, w, sized.instances, sized.layout, capacity)
    option.tensor_parallel, option.pipeline_parallel, option.data_parallel = tp, nodes, replicas
    option.max_concurrent_sequences = sized.capacity_batch * replicas
    option.decode_tokens_per_s = round(total_tokens_s, 1)
    option.decode_tokens_per_s_per_stream = round(speed.tokens_per_s_per_stream, 1)
    option.prefill_tokens_per_s = round(sized.prefill_tokens_s * replicas, 0)
    prompt = max(1, w.context_tokens - w.output_tokens)
    option.time_to_first_token_s = round(time_to_first_token_s(prompt, sized.prefill_tokens_s, speed), 2)
    option.request_latency_s = round(request_seconds(option.time_to_first_token_s, w.output_tokens, speed), 1)
    if option.price_cny_per_hour is not None and total_tokens_s > 0:
        option.cost_cny_per_million_tokens = round(option.price_cny_per_hour / (total_tokens_s * 3600) * 1e6, 2)
    option.totals = cost_totals(option, w)
    if nodes > 1:
        option.notes.append(note("option.pipeline_rdma", instances=nodes))
    if tp > 1 and gpu.nvlink_gb_s is None:
        option.notes.append(note("option.tp_pcie"))
    _note_precision(option, gpu, arch, w)
    return option


def _replicas_for_rate(w: Workload, prompt: int, speed: DecodeSpeed, prefill_tokens_s: float) -> int:
    """Replicas that keep up with ``qps``: each spends time on prefill and on decode for every request."""
    assert w.qps is not None
    load = w.qps * (w.output_tokens / speed.tokens_per_s_total + prompt / prefill_tokens_s)
    return max(1, math.ceil(load))


def _replica_speed(
    arch: ModelArchitecture, perf: GpuPerf, w: Workload, tp: int, nodes: int, batch: int, capacity: float
) -> DecodeSpeed:
    """Decode speed of one replica running ``batch`` sequences of the workload's context.

    Pipeline stages do not speed up a token (they run in turn), so speed is that of the ``tp`` GPUs of
    one stage reading the whole model.
    """
    est = estimate(arch, w, gpus=tp, batch=batch, capacity=capacity)
    # KV read per step: every sequence's cache at its average length while generating.
    average_fill = 1 - w.output_tokens / (2 * w.context_tokens)
    kv_split = min(tp, max_kv_split(arch))
    kv_per_sequence = est.per_gpu.kv_cache_gib * 2**30 * kv_split / batch * average_fill
    quantized = w.quant not in ("none", "fp8") or w.precision in ("int8", "int4")
    return decode_speed(
        arch,
        perf,
        weight_bytes_total=est.per_gpu.weights_gib * 2**30 * tp,
        kv_bytes_per_sequence=kv_per_sequence,
        batch=batch,
        tensor_parallel=tp,
        quantized=quantized,
    )


def _note_precision(option: DeploymentOption, gpu: catalog.GPU, arch: ModelArchitecture, w: Workload) -> None:
    # Same bytes per parameter, so the memory plan holds; only numerics or kernels differ.
    if w.precision == "bf16" and gpu.supports_bf16 is False:
        option.notes.append(note("option.no_bf16", gpu=gpu.name))
    if fp8_weights(arch, w) and not gpu.supports_fp8:
        option.notes.append(note("option.fp8_weight_only", gpu=gpu.name))


def _fit_training(
    inst: catalog.InstanceType, gpu: catalog.GPU, arch: ModelArchitecture, w: Workload
) -> DeploymentOption | Note | _Shortfall:
    capacity = usable_gib(inst, gpu)
    batch = w.batch or 1
    last: Note | _Shortfall = _no_layout()
    for nodes in node_counts(inst):
        gpus = whole_gpus(inst) * nodes
        # Full fine-tuning shards everything (ZeRO-3); (Q)LoRA tries plain data parallel first and shards
        # the frozen base only when one GPU cannot hold it.
        stages = (3,) if w.task == "full" and gpus > 1 else (0, 3) if gpus > 1 else (0,)
        # A stage whose band's upper end fits beats one that fits only at the estimate (then tight).
        fitting = []
        for zero in stages:
            est = estimate(arch, w, gpus=gpus, batch=batch, capacity=capacity, zero=zero)
            if est.per_gpu_total_gib <= capacity:
                fitting.append((est.per_gpu_band_high_gib > capacity, zero, est))
            else:
                last = _Shortfall(
                    "reject.memory_per_gpu",
                    {
                        "need": round(est.per_gpu_total_gib, 2),
                        "gpus": gpus,
                        "gpu": gpu.name,
                        "usable": round(capacity, 2),
                    },
                    est.per_gpu_total_gib,
                    capacity,
                )
        if fitting:
            _, zero, est = min(fitting, key=lambda item: item[0])
            return _training_option(inst, gpu, arch, w, nodes, zero, est, capacity)
    return last


def _training_option(
    inst: catalog.InstanceType,
    gpu: catalog.GPU,
    arch: ModelArchitecture,
    w: Workload,
    nodes: int,
    zero: int,
    est: MemoryEstimate,
    capacity: float,
) -> DeploymentOption:
    gpus = whole_gpus(inst) * nodes
    option = _priced_option(inst, gpu, w, nodes, Layout(1, 1, est.per_gpu, est.per_gpu_total_gib), capacity)
    option.tensor_parallel, option.pipeline_parallel, option.data_parallel = 1, 1, gpus
    if w.train_tokens:
        assert w.task != "inference"
        hours = training_hours(
            arch, gpu_perf(gpu, w, arch), tokens=w.train_tokens, gpus=gpus, task=w.task, grad_ckpt=w.grad_ckpt
        )
        option.training_hours = round(hours, 2)
        if option.price_cny_per_hour is not None:
            option.training_cost_cny = round(hours * option.price_cny_per_hour, 0)
    option.notes.append(note("option.zero", stage=zero) if zero else note("option.ddp"))
    if nodes > 1:
        option.notes.append(note("option.multi_node_dp", instances=nodes))
    _note_precision(option, gpu, arch, w)
    return option


def _priced_option(
    inst: catalog.InstanceType,
    gpu: catalog.GPU,
    w: Workload,
    instances: int,
    layout: Layout,
    capacity: float,
) -> DeploymentOption:
    needed = layout.total_gib
    headroom = (capacity - needed) / capacity * 100
    band = band_for(framework_of(w), w.task)
    upper = needed * band.p90
    tight = upper > capacity
    return DeploymentOption(
        instance_type=inst.instance_type,
        family=inst.family,
        gpu_model=inst.gpu_model,
        gpu_model_likely=inst.gpu_model_likely,
        gpu_confidence=inst.gpu_confidence,
        gpu_count=whole_gpus(inst),
        instances=instances,
        total_gpus=whole_gpus(inst) * instances,
        tensor_parallel=1,
        pipeline_parallel=1,
        data_parallel=1,
        per_gpu_gib_needed=round(needed, 2),
        per_gpu_capacity_gib=round(capacity, 2),
        headroom_pct=round(headroom, 1),
        tight_fit=tight,
        per_gpu_gib_upper=round(upper, 2),
        memory=layout.memory.model_copy(),
        notes=[band_note(needed, upper, capacity)],
        **price_fields(inst, w.region, instances),
        **usage_fields(inst, w, instances),
    )
