"""The largest registry models that fit exactly the named hardware ("一张 L20 最大能跑多大的模型？").

The question runs the other way round from a plan: the hardware is fixed and the model is what is asked
for. Every registry model (or one family's) is judged on that hardware with the same estimator as
:func:`tools.hardware_fit.evaluate_hardware`, at each weight precision the GPU can run, and the largest
that fits is returned per precision together with the next larger one that does not (what the limit is).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog, price_quotes, prices
from tools.errors import ToolInputError, UnknownNameError, input_problem
from tools.hardware_fit import Hardware, evaluate_hardware, resolve_hardware
from tools.models import ModelArchitecture, list_models, normalize_name
from tools.workload import Precision, Quant

WeightFormat = Literal["bf16", "fp8", "awq-int4", "gptq-int4"]
# (precision, quant) the estimator takes for each weight format
_FORMATS: dict[WeightFormat, tuple[Precision, Quant]] = {
    "bf16": ("bf16", "none"),
    "fp8": ("fp8", "fp8"),
    "awq-int4": ("int4", "awq-int4"),
    "gptq-int4": ("int4", "gptq-int4"),
}
# AWQ's kernels need compute capability 7.5+ (the planner turns AWQ away on these too); GPTQ runs there.
_PRE_TURING = frozenset({"Volta", "Pascal", "Maxwell"})
_NEIGHBOURS = 4  # larger models re-checked past the bisection's boundary: memory is not strictly monotone in size
_SIMILAR = 0.85  # fitting models this close in size to the largest are named beside it ("Qwen3-14B or ...")
_MAX_SIMILAR = 3
TIGHT_HEADROOM_PCT = 10.0  # the planner's own line: under 10% headroom fragmentation can still cause OOM


class ModelFit(BaseModel):
    """One model judged on the hardware at one weight format."""

    model_config = ConfigDict(extra="forbid")

    model: str
    params_b: float = Field(description="total parameters, billions (MoE: all experts)")
    per_gpu_needed_gib: float
    per_gpu_usable_gib: float
    headroom_pct: float
    fits: bool
    tight: bool = Field(description=f"fits with under {TIGHT_HEADROOM_PCT:g}% headroom (fragmentation can still OOM)")


class FormatResult(BaseModel):
    """The largest fitting model at one weight format, and the next larger one that does not fit."""

    model_config = ConfigDict(extra="forbid")

    weights: WeightFormat
    largest: ModelFit | None = Field(description="None: not even the smallest candidate fits")
    similar: list[str] = Field(description="other fitting models nearly as large (within 15% of its size)")
    next_larger: ModelFit | None = Field(description="the smallest candidate above it, which does not fit")


class ModelSearch(BaseModel):
    """The largest models that fit the named hardware, per weight format, for one serving workload."""

    model_config = ConfigDict(extra="forbid")

    hardware: Hardware
    family: str | None = Field(description="the family searched, as the user named it; None: every model")
    context: int
    concurrency: int
    candidates: int = Field(description="registry models searched")
    results: list[FormatResult]


def largest_models_that_fit(
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    family: str | None = None,
    context: int = 4096,
    concurrency: int = 1,
) -> ModelSearch:
    """Find the largest registry models that can be served on exactly this hardware, per weight format.

    Use this when the hardware is given and the model is the question ("biggest Qwen on 8 H20?", "一张 L20 最大能跑
    多大的模型"). Judges every registry model (or one family) with the same estimator as evaluate_hardware_fit at
    BF16, FP8 (GPUs with FP8 Tensor Cores) and 4-bit, and returns the largest that fits and the next larger one.

    Args:
        gpu: GPU name when no instance type is named, e.g. "L20".
        gpus: How many of that GPU (per instance).
        instance_type: An ECS instance type, judged as named.
        instances: How many instances together.
        family: Only models of this brand or family ("Qwen", "Qwen3", "Llama"); None searches every model.
        context: Tokens per sequence (prompt + output); models with a shorter maximum context are skipped.
        concurrency: Sequences served at once.

    Raises:
        ToolInputError: unknown hardware, an unknown family, or impossible values.
    """
    if context < 1 or concurrency < 1:
        raise input_problem("error.context_concurrency_positive", context=context, concurrency=concurrency)
    hw = resolve_hardware(gpu, gpus, instance_type, instances)
    candidates = sorted(
        (m for m in _family_models(family) if m.max_context >= context),
        key=lambda m: m.param_breakdown().total,
    )
    gpu_spec = catalog.get_gpu(hw.gpu)
    results = [_search(candidates, hw, weights, context, concurrency) for weights in _formats(gpu_spec)]
    return ModelSearch(
        hardware=hw, family=family, context=context, concurrency=concurrency, candidates=len(candidates),
        results=results,
    )  # fmt: skip


class BudgetSearch(BaseModel):
    """The instance type within a monthly budget that serves the largest model, and that search."""

    model_config = ConfigDict(extra="forbid")

    budget_cny_month: float
    quote: price_quotes.PriceQuote | None = Field(description="the chosen type's prices; None: nothing priced fits")
    instance_types_within_budget: int = Field(description="priced instance types at or under the budget")
    search: ModelSearch | None = Field(description="the largest models on the chosen type")
    part_time: PartTime | None = Field(
        default=None, description="when no type fits the budget all month: the cheapest type by the hour instead"
    )


class PartTime(BaseModel):
    """What a budget too small for a whole month buys: hours of the cheapest pay-as-you-go type that serves a model."""

    model_config = ConfigDict(extra="forbid")

    quote: price_quotes.PriceQuote
    hours_per_month: float = Field(description="budget / hourly price, rounded down to whole hours")
    search: ModelSearch = Field(description="the largest models on that type")


def largest_models_within_budget(
    budget_cny_month: float,
    region: str | None = None,
    family: str | None = None,
    context: int = 4096,
    concurrency: int = 1,
) -> BudgetSearch:
    """Find the one instance type within a monthly budget that serves the largest model, and those models.

    Use this when only a budget is given and the model is the question ("每月 5000 块能跑什么模型"). Each GPU's
    widest instance type at or under the budget is searched like largest_models_that_fit.

    Args:
        budget_cny_month: CNY per month (subscription where listed, else 730 h of pay-as-you-go).
        region: Region whose list prices count; None prices each type where :func:`tools.price_quotes.quote` does.
        family: Only models of this brand or family; None searches every model.
        context: Tokens per sequence (prompt + output).
        concurrency: Sequences served at once.

    Raises:
        ToolInputError: a budget that is not positive, an unknown region or family.
    """
    if budget_cny_month <= 0:
        raise input_problem("error.budget_positive", budget=budget_cny_month)
    if region is not None and not prices.is_region(region):
        raise input_problem("error.region_id", region=region)
    widest: dict[str, tuple[catalog.InstanceType, price_quotes.PriceQuote]] = {}
    by_hour: list[tuple[float, str, price_quotes.PriceQuote]] = []  # every priced GPU type, for a part-time answer
    affordable = 0
    for inst in catalog.list_instances():
        quote = price_quotes.quote(inst.instance_type, region)
        gpu = inst.gpu_model or inst.gpu_model_likely
        if quote is not None and quote.hourly and gpu is not None:
            by_hour.append((quote.hourly, inst.instance_type, quote))
        if quote is None or quote.monthly is None or quote.monthly > budget_cny_month or gpu is None:
            continue
        if not isinstance(inst.gpu_count, int) or not inst.gpu_memory_gib:
            continue
        affordable += 1
        # More of the same GPU never serves a smaller model: keep each GPU's widest type, the cheaper on a tie.
        held = widest.get(gpu)
        if held is None or (inst.gpu_count, -quote.monthly) > (held[0].gpu_count, -held[1].monthly):  # type: ignore[operator]
            widest[gpu] = (inst, quote)
    best: tuple[float, float, ModelSearch, price_quotes.PriceQuote] | None = None
    for inst, quote in widest.values():
        found = largest_models_that_fit(instance_type=inst.instance_type, family=family, context=context,
                               concurrency=concurrency)  # fmt: skip
        size = max((r.largest.params_b for r in found.results if r.largest and r.largest.fits), default=0.0)
        assert quote.monthly is not None
        if size and (best is None or (size, -quote.monthly) > (best[0], -best[1])):
            best = (size, quote.monthly, found, quote)
    return BudgetSearch(
        budget_cny_month=budget_cny_month,
        quote=best[3] if best else None,
        instance_types_within_budget=affordable,
        search=best[2] if best else None,
        part_time=None if best else _part_time(budget_cny_month, by_hour, family, context, concurrency),
    )


def _part_time(
    budget: float, by_hour: list[tuple[float, str, price_quotes.PriceQuote]], family: str | None, context: int,
    concurrency: int,
) -> PartTime | None:
    """Find the cheapest pay-as-you-go type by the hour that serves some model, and the hours ``budget`` buys."""
    for hourly, instance_type, quote in sorted(by_hour, key=lambda row: row[:2]):
        found = largest_models_that_fit(instance_type=instance_type, family=family, context=context,
                                        concurrency=concurrency)  # fmt: skip
        if any(r.largest and r.largest.fits for r in found.results):
            return PartTime(quote=quote, hours_per_month=float(int(budget / hourly)), search=found)
    return None


def _formats(gpu: catalog.GPU) -> list[WeightFormat]:
    """BF16 always; FP8 where the GPU has FP8 Tensor Cores; 4-bit with the kernel family the GPU runs."""
    formats: list[WeightFormat] = ["bf16"]
    if gpu.supports_fp8:
        formats.append("fp8")
    formats.append("gptq-int4" if gpu.arch in _PRE_TURING else "awq-int4")
    return formats


def _family_models(family: str | None) -> list[ModelArchitecture]:
    models = list_models()
    if family is None:
        return models
    brand = normalize_name(family)
    chosen = [m for m in models if normalize_name(m.family).startswith(brand)]
    if not chosen:
        raise UnknownNameError("model family", family, sorted({m.family for m in models})[:3])
    return chosen


def _judge(
    model: ModelArchitecture, hw: Hardware, weights: WeightFormat, context: int, concurrency: int
) -> ModelFit | None:
    precision, quant = _FORMATS[weights]
    try:
        fit = evaluate_hardware(
            model.name, gpu=hw.gpu, gpus=hw.gpus // hw.instances, instance_type=hw.instance_type,
            instances=hw.instances, precision=precision, quant=quant, context=context, concurrency=concurrency,
            arch=model, with_changes=False,
        )  # fmt: skip
    except ToolInputError:  # e.g. tensor parallel cannot split this model's heads over these GPUs
        return None
    return ModelFit(
        model=model.name,
        params_b=round(model.param_breakdown().total / 1e9, 1),
        per_gpu_needed_gib=fit.per_gpu_needed_gib,
        per_gpu_usable_gib=fit.per_gpu_usable_gib,
        headroom_pct=fit.headroom_pct,
        fits=fit.fits,
        tight=fit.fits and fit.headroom_pct < TIGHT_HEADROOM_PCT,
    )


def _search(
    candidates: list[ModelArchitecture], hw: Hardware, weights: WeightFormat, context: int, concurrency: int
) -> FormatResult:
    """Bisect for the size boundary, then re-check a few larger models (architectures differ in KV size)."""
    judged: dict[int, ModelFit | None] = {}

    def fits(i: int) -> bool:
        if i not in judged:
            judged[i] = _judge(candidates[i], hw, weights, context, concurrency)
        fit = judged[i]
        return fit is not None and fit.fits

    lo, hi = 0, len(candidates)  # invariant (if monotone): candidates[:lo] fit, candidates[hi:] do not
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if fits(mid) else (lo, mid)
    best = lo - 1 if lo > 0 and fits(lo - 1) else None
    for i in range(lo, min(len(candidates), lo + _NEIGHBOURS)):
        if fits(i):
            best = i
    if best is None:
        smallest = next((i for i in range(min(len(candidates), _NEIGHBOURS)) if fits(i)), None)
        best = smallest
    start = (best if best is not None else -1) + 1
    above = next((i for i in range(start, len(candidates)) if not fits(i) and judged[i] is not None), None)
    similar: list[str] = []
    if best is not None:
        floor = _SIMILAR * candidates[best].param_breakdown().total
        for i in range(best - 1, -1, -1):
            if len(similar) == _MAX_SIMILAR or candidates[i].param_breakdown().total < floor:
                break
            if fits(i):
                similar.append(candidates[i].name)
    return FormatResult(
        weights=weights,
        largest=judged[best] if best is not None else None,
        similar=similar,
        next_larger=judged[above] if above is not None else None,
    )
