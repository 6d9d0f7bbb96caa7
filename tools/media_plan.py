"""Rank Alibaba Cloud GPU instances for a diffusion, speech or embedding workload.

One model replica per GPU (these models fit one GPU or are offloaded, never split): an instance type
qualifies when one replica fits one of its GPUs; the load (images per hour, audio hours within a time,
documents to index within a time) then decides how many GPUs, and so how many instances, to rent.
Options are ranked: comfortable fits first, then by the hourly price of the whole fleet.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools import catalog
from tools.errors import ToolInputError
from tools.media_memory import MediaMemoryEstimate, MediaRequest, estimate_media_memory
from tools.media_models import MediaModel, resolve_media_model
from tools.media_speed import MediaSpeed, diffusion_speed, encoder_speed, replicas_for, speech_speed
from tools.notes import Note, NoteValue, note
from tools.plan import Rejection
from tools.plan_layout import usable_memory_gib
from tools.plan_pricing import price_fields, price_warnings, region_problem
from tools.throughput import GpuPerf
from tools.workload import check_region_id

MAX_OPTIONS = 20
_SKIP: Literal["skip"] = "skip"

QUERY_TOKENS = 32
"""Tokens of one search query (stated)."""

TIGHT_HEADROOM_PCT = 10.0
"""Below this headroom a fit is tight: these estimates have no measured band yet, so a thin margin is
flagged rather than trusted."""

QUANTISED_TIGHT_HEADROOM_PCT = 30.0
"""Tight margin for fp8/int8/nf4 pipelines: loaders keep norms, embeddings and some layers in 16-bit and
add scales, which the per-weight byte count leaves out (published quantised FLUX.1 runs measured 20-45%
above it in benchmarks/media_accuracy.py)."""


class MediaWorkload(BaseModel):
    """A non-LLM workload: the model, its settings and the load to serve.

    Give the load of the model's kind: ``images_per_hour`` (diffusion), ``audio_hours`` or ``streams``
    (speech), ``docs`` with ``doc_tokens`` or ``qps`` (embedding, reranker). With no load, one GPU.
    """

    model_config = ConfigDict(extra="forbid")

    request: MediaRequest
    steps: int | None = Field(default=None, ge=1, le=1000, description="denoising steps; None = model default")
    images_per_hour: float | None = Field(default=None, gt=0, le=10_000_000, description="images or videos")
    audio_hours: float | None = Field(default=None, gt=0, le=10_000_000, description="audio to transcribe")
    streams: int | None = Field(default=None, ge=1, le=100_000, description="live audio streams at once")
    docs: int | None = Field(default=None, ge=1, le=10_000_000_000, description="documents to embed")
    doc_tokens: int | None = Field(default=None, ge=1, le=131_072, description="tokens per document")
    qps: float | None = Field(default=None, gt=0, le=1_000_000, description="queries per second")
    candidates: int | None = Field(default=None, ge=1, le=10_000, description="reranker: documents per query")
    budget_cny_month: float | None = Field(default=None, gt=0, description="monthly budget, CNY")
    within_hours: float = Field(default=24.0, gt=0, le=8760, description="time allowed for a batch job")
    gpu: str | None = Field(default=None, description="only this GPU (name or family filter)")
    gpus: int | None = Field(
        default=None, ge=1, le=1024, description="a fixed fleet of exactly this many GPUs; a batch job's time follows"
    )
    region: str | None = None
    max_options: int = Field(default=5, ge=1, le=MAX_OPTIONS)

    @field_validator("region")
    @classmethod
    def _region_id(cls, value: str | None) -> str | None:
        return check_region_id(value)

    @model_validator(mode="after")
    def _one_load(self) -> MediaWorkload:
        loads = [x for x in (self.images_per_hour, self.audio_hours, self.streams, self.docs, self.qps) if x]
        if len(loads) > 1 and not (self.docs and self.qps):
            raise ValueError("give one load: images per hour, audio hours, streams, documents or QPS")
        if self.candidates is not None and self.qps is None:
            raise ValueError("candidates are reranked per query: give --qps too")
        return self


class MediaOption(BaseModel):
    """One instance type that serves the workload, with its speed and cost."""

    model_config = ConfigDict(extra="forbid")

    instance_type: str
    family: str
    gpu_model: str | None
    gpu_model_likely: str | None = None
    gpu_count: int
    instances: int
    total_gpus: int = Field(description="GPUs the load needs (one replica each), rounded up to instances")
    per_gpu_gib_needed: float
    per_gpu_capacity_gib: float
    headroom_pct: float
    tight_fit: bool
    speed_per_gpu: MediaSpeed
    load_gpus: int = Field(description="GPUs the load needs before rounding up to whole instances")
    price_cny_per_hour: float | None = Field(description="all instances, pay-as-you-go; None = unknown")
    price_cny_per_month: float | None
    price_month_basis: str | None = None
    price_region: str | None = None
    price_as_of: str | None = None
    price_live: bool = False
    subscription_cny_per_month: float | None = None
    subscription_as_of: str | None = None
    spot_cny_per_hour: float | None = None
    price_regions_compared: int | None = None
    cost_cny_per_unit: float | None = Field(
        default=None, description="CNY per 1,000 images / video / audio hour / million tokens at full use of one GPU"
    )
    cost_unit: str
    batch_job_hours: float | None = Field(default=None, description="time for the batch load on the fleet")
    price_source: str | None = None


class MediaPlan(BaseModel):
    """Ranked options, rejections and assumptions for a non-LLM workload."""

    model_config = ConfigDict(extra="forbid")

    workload: MediaWorkload
    model: str
    kind: str
    memory: MediaMemoryEstimate
    options: list[MediaOption]
    rejected: list[Rejection]
    assumptions: list[Note]
    warnings: list[Note] = Field(default_factory=lambda: [])


def plan_media(workload: MediaWorkload | dict[str, object]) -> MediaPlan:
    """Rank instance types for a diffusion, speech, embedding or reranker workload.

    Raises:
        UnknownNameError: the model or GPU filter is unknown.
        ToolInputError: settings or loads that do not apply to the model's kind.
    """
    w = workload if isinstance(workload, MediaWorkload) else MediaWorkload.model_validate(workload)
    model = resolve_media_model(w.request.model)
    _check_load(model, w)
    memory = estimate_media_memory(w.request)
    wanted = catalog.gpu_names_for_filter(w.gpu) if w.gpu else None
    options: list[MediaOption] = []
    rejected: list[Rejection] = []
    for inst in catalog.load_instances():
        gpu = catalog.gpu_for_instance(inst)
        problem = _precheck(inst, gpu, wanted, w.request.dtype or model.default_dtype) or region_problem(inst, w.region)
        if problem is None:
            assert gpu is not None
            option, shortfall = _option(model, w, memory, inst, gpu)
            monthly = option.price_cny_per_month if option is not None else None
            if shortfall is not None:
                rejected.append(shortfall)
                continue
            assert option is not None
            if not (w.budget_cny_month and monthly and monthly > w.budget_cny_month):
                options.append(option)
                continue
            problem = note("reject.over_budget", cny_per_month=monthly)
        if isinstance(problem, Note):
            rejected.append(
                Rejection(instance_type=inst.instance_type, family=inst.family, gpu_model=inst.gpu_name, reason=problem)
            )
    ranked = sorted(options, key=_rank_key)[: w.max_options]
    return MediaPlan(
        workload=w,
        model=model.name,
        kind=model.kind,
        memory=memory,
        options=ranked,
        rejected=rejected,
        assumptions=[*memory.assumptions, *_load_assumptions(model, w)],
        warnings=_warnings(model, w, memory, ranked, rejected),
    )


def _warnings(
    model: MediaModel,
    w: MediaWorkload,
    memory: MediaMemoryEstimate,
    ranked: list[MediaOption],
    rejected: list[Rejection],
) -> list[Note]:
    out = price_warnings(w.region, "pay-as-you-go", ranked)
    dtype = w.request.dtype or model.default_dtype
    if dtype not in ("fp32", "fp16", "bf16"):
        out.append(note("media.quantised_tight", dtype=dtype, pct=QUANTISED_TIGHT_HEADROOM_PCT))
    if not ranked:
        over = any(r.reason.code == "reject.over_budget" for r in rejected)
        why: dict[str, NoteValue] = (
            {"budget": w.budget_cny_month or 0.0} if over else {"need": round(memory.total_gib, 2)}
        )
        code = "media.nothing_fits." + ("budget" if over else "memory") + ("_on" if w.gpu else "")
        out.append(note(code, model=model.display_name, **why, **({"gpu": w.gpu} if w.gpu else {})))
        if tries := [f"{flag} ({gib:.1f} GiB)" for flag, gib in smaller_settings(model, w.request)]:
            out.append(note("media.try_settings", settings=tries))
    return out


def smaller_settings(model: MediaModel, request: MediaRequest) -> list[tuple[str, float]]:
    """List settings that need less memory than ``request``: (flags, GiB per GPU), diffusion pipelines only."""
    if model.kind != "diffusion":
        return []
    out = []
    for flag, change in (
        ("--offload model", {"offload": "model"}),
        ("--dtype nf4", {"dtype": "nf4"}),
        ("--dtype nf4 --offload model", {"dtype": "nf4", "offload": "model"}),
    ):
        smaller = request.model_copy(update=change)
        if smaller != request:
            out.append((flag, estimate_media_memory(smaller).total_gib))
    return out


def gpu_usable_gib(gpu: catalog.GPU) -> float:
    """Return the usable memory of one such GPU (see :func:`tools.plan_layout.usable_memory_gib`)."""
    return usable_memory_gib(gpu)


_KINDS_OF_LOAD: dict[str, tuple[str, ...]] = {
    "images_per_hour": ("diffusion",),
    "steps": ("diffusion",),
    "audio_hours": ("speech",),
    "streams": ("speech",),
    "docs": ("embedding",),
    "doc_tokens": ("embedding", "reranker"),
    "qps": ("embedding", "reranker"),
    "candidates": ("reranker",),
}


def _check_load(model: MediaModel, w: MediaWorkload) -> None:
    for field, kinds in _KINDS_OF_LOAD.items():
        if getattr(w, field) is not None and model.kind not in kinds:
            flag = "--" + field.replace("_", "-")
            said = note(f"error.media.load_flag.{model.kind}", flag=flag, model=model.display_name)
            if field != "docs":
                raise ToolInputError(said.text, [said])
            hint = note("error.media.docs_hint")  # a reranker's load is candidates per query
            raise ToolInputError(f"{said.text} ({hint.text})", [said, hint])


def _precheck(
    inst: catalog.InstanceType, gpu: catalog.GPU | None, wanted: set[str] | None, dtype: str
) -> Note | Literal["skip"] | None:
    """Why a type cannot serve the model; "skip" for types not worth a rejection line (slices, other GPUs)."""
    if not isinstance(inst.gpu_count, int) or inst.gpu_count < 1:
        return _SKIP
    if gpu is None or not inst.gpu_memory_gib:
        return _SKIP
    if wanted is not None and gpu.name not in wanted:
        return _SKIP
    if not (gpu.bf16_dense_tflops or gpu.fp16_dense_tflops) or gpu.memory_bandwidth_gb_s is None:
        return note("media.reject.no_16bit", gpu=gpu.name)
    if dtype == "bf16" and gpu.supports_bf16 is False:
        return note("media.reject.no_bf16", gpu=gpu.name)
    return None


def usable_gib(inst: catalog.InstanceType, gpu: catalog.GPU) -> float:
    """Usable memory of one GPU of an instance type (see :func:`tools.plan_layout.usable_memory_gib`)."""
    assert inst.gpu_memory_gib is not None
    return usable_memory_gib(gpu, inst.gpu_memory_gib)


def _option(
    model: MediaModel, w: MediaWorkload, memory: MediaMemoryEstimate, inst: catalog.InstanceType, gpu: catalog.GPU
) -> tuple[MediaOption | None, Rejection | None]:
    capacity = usable_gib(inst, gpu)
    needed = memory.total_gib
    if needed > capacity:
        return None, Rejection(
            instance_type=inst.instance_type,
            family=inst.family,
            gpu_model=inst.gpu_name,
            reason=note("media.reject.memory", need=needed, gpu=gpu.name, usable=round(capacity, 2)),
            needed_gib=needed,
            usable_gib=round(capacity, 2),
        )
    speed = _speed(model, w, gpu)
    assert isinstance(inst.gpu_count, int)
    if w.gpus is not None and w.gpus % inst.gpu_count:
        return None, Rejection(
            instance_type=inst.instance_type,
            family=inst.family,
            gpu_model=inst.gpu_name,
            reason=note("media.reject.fleet", per_instance=inst.gpu_count, gpus=w.gpus),
        )
    load_gpus = w.gpus or _gpus_for_load(model, w, speed)
    instances = math.ceil(load_gpus / inst.gpu_count)
    price = price_fields(inst, w.region, instances)
    hourly = price["price_cny_per_hour"]
    per_gpu_hour = hourly / (instances * inst.gpu_count) if hourly is not None else None
    scale = 1000 if speed.unit == "image" else 1
    cost_unit = {"image": "1,000 images"}.get(speed.unit, speed.unit)
    headroom = (capacity - needed) / capacity * 100
    return MediaOption(
        instance_type=inst.instance_type,
        family=inst.family,
        gpu_model=inst.gpu_model,
        gpu_model_likely=inst.gpu_model_likely,
        gpu_count=inst.gpu_count,
        instances=instances,
        total_gpus=instances * inst.gpu_count,
        per_gpu_gib_needed=needed,
        per_gpu_capacity_gib=round(capacity, 2),
        headroom_pct=round(headroom, 1),
        tight_fit=headroom < _tight_pct(w.request.dtype or model.default_dtype),
        speed_per_gpu=speed,
        load_gpus=load_gpus,
        cost_cny_per_unit=round(per_gpu_hour / speed.items_per_hour * scale, 2) if per_gpu_hour else None,
        cost_unit=cost_unit,
        batch_job_hours=_batch_hours(model, w, speed, instances * inst.gpu_count),
        **price,
    ), None


def _tight_pct(dtype: str) -> float:
    return TIGHT_HEADROOM_PCT if dtype in ("fp32", "fp16", "bf16") else QUANTISED_TIGHT_HEADROOM_PCT


def _speed(model: MediaModel, w: MediaWorkload, gpu: catalog.GPU) -> MediaSpeed:
    dtype = w.request.dtype or model.default_dtype
    tflops = (gpu.fp8_dense_tflops if dtype == "fp8" and gpu.supports_fp8 else None) or (
        gpu.bf16_dense_tflops or gpu.fp16_dense_tflops
    )
    assert tflops is not None and gpu.memory_bandwidth_gb_s is not None
    perf = GpuPerf(name=gpu.name, memory_bandwidth_gb_s=gpu.memory_bandwidth_gb_s, dense_tflops=tflops)
    if model.kind == "diffusion":
        assert model.default_resolution and model.default_steps
        width, height = (w.request.width, w.request.height) if w.request.width else model.default_resolution
        assert width and height
        return diffusion_speed(
            model,
            perf,
            width,
            height,
            w.steps or model.default_steps,
            w.request.frames,
            offload=w.request.offload,
            dtype=dtype,
        )
    if model.kind == "speech":
        return speech_speed(model, perf, dtype, streams=w.request.batch, beams=w.request.beams)
    return encoder_speed(model, perf, w.doc_tokens or w.request.seq_tokens or 512)


def _gpus_for_load(model: MediaModel, w: MediaWorkload, speed: MediaSpeed) -> int:
    if w.images_per_hour:
        return replicas_for(w.images_per_hour, speed.items_per_hour)
    if w.audio_hours:
        return replicas_for(w.audio_hours / w.within_hours, speed.items_per_hour)
    if w.streams:
        # Live streams: each GPU transcribes `items_per_hour` audio hours per hour, i.e. that many streams.
        return replicas_for(w.streams, speed.items_per_hour)
    if w.docs:
        million_tokens = w.docs * (w.doc_tokens or 512) / 1e6
        gpus = replicas_for(million_tokens / w.within_hours, speed.items_per_hour)
        if w.qps:
            gpus = max(gpus, _query_gpus(w.qps, speed, w))
        return gpus
    if w.qps:
        return _query_gpus(w.qps, speed, w)
    return 1


def _query_gpus(qps: float, speed: MediaSpeed, w: MediaWorkload, query_tokens: int = QUERY_TOKENS) -> int:
    # A reranker scores every (query, candidate) pair: one pass over query + document per candidate.
    per_query = query_tokens + (w.candidates * ((w.doc_tokens or 512) + query_tokens) if w.candidates else 0)
    tokens_per_hour = qps * per_query * 3600 / 1e6
    return replicas_for(tokens_per_hour, speed.items_per_hour)


def _batch_hours(model: MediaModel, w: MediaWorkload, speed: MediaSpeed, gpus: int) -> float | None:
    if w.audio_hours:
        return round(w.audio_hours / (speed.items_per_hour * gpus), 2)
    if w.docs:
        return round(w.docs * (w.doc_tokens or 512) / 1e6 / (speed.items_per_hour * gpus), 2)
    return None


def _rank_key(option: MediaOption) -> tuple[bool, bool, float, float]:
    price = option.price_cny_per_hour
    return (option.tight_fit, price is None, price if price is not None else 0.0, -option.headroom_pct)


def _load_assumptions(model: MediaModel, w: MediaWorkload) -> list[Note]:
    notes = [note("media.replica_per_gpu")]
    if w.gpus is not None:
        notes.append(note("media.fixed_fleet", gpus=w.gpus))
    elif w.audio_hours or w.docs:
        notes.append(note("media.within_hours", hours=w.within_hours))
    if w.qps and w.candidates:
        notes.append(
            note("media.queries_rerank", tokens=QUERY_TOKENS, candidates=w.candidates, doc_tokens=w.doc_tokens or 512)
        )
    elif w.qps:
        notes.append(note("media.queries", tokens=QUERY_TOKENS))
    return notes


class SmallerSetting(BaseModel):
    """A setting that needs less memory, and what it needs per GPU."""

    model_config = ConfigDict(extra="forbid")

    flags: str = Field(description="the CLI flags, e.g. '--dtype nf4 --offload model'")
    needed_gib: float


class MediaFit(BaseModel):
    """Whether a non-LLM model fits exactly the GPUs the user named (one replica per GPU)."""

    model_config = ConfigDict(extra="forbid")

    model: str
    gpu: str
    gpus: int
    needed_gib: float = Field(description="per GPU, incl. the CUDA context")
    usable_gib: float = Field(description="usable memory of one such GPU")
    fits: bool
    headroom_pct: float = Field(description="(usable - needed) / usable x 100; negative when it does not fit")
    short_gib: float = Field(description="GiB missing per GPU; 0 when it fits")
    smaller: list[SmallerSetting] = Field(default_factory=lambda: [], description="settings that need less memory")
    assumptions: list[Note]


def evaluate_media_fit(request: MediaRequest, gpu: str, gpus: int = 1) -> MediaFit:
    """Check a non-LLM model on exactly the named GPU(s); list settings that need less when it does not fit.

    Raises:
        UnknownNameError: the model or the GPU is unknown.
        ToolInputError: settings that do not apply to the model's kind.
    """
    model = resolve_media_model(request.model)
    card = catalog.get_gpu(gpu)
    est = estimate_media_memory(request)
    usable = gpu_usable_gib(card)
    headroom = (usable - est.total_gib) / usable * 100
    smaller = [SmallerSetting(flags=f, needed_gib=g) for f, g in smaller_settings(model, request)]
    return MediaFit(
        model=model.name,
        gpu=card.name,
        gpus=gpus,
        needed_gib=est.total_gib,
        usable_gib=round(usable, 2),
        fits=est.total_gib <= usable,
        headroom_pct=round(headroom, 1),
        short_gib=round(max(0.0, est.total_gib - usable), 2),
        smaller=smaller,
        assumptions=est.assumptions,
    )
