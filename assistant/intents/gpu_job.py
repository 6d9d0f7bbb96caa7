"""Whether one GPU suits a job or is worth its price, with no model named.

"Is the L20 good for training?", "H20 适合预训练吗？", "Is gn6v still worth it?".

The verdict is read off the GPU's spec row against the strongest trainer rented on Alibaba Cloud: training and
pretraining are bound by dense BF16 compute (and, across GPUs, by NVLink); serving by memory and bandwidth, so
its deciding figure is the largest registry model one card holds (``largest_models_that_fit``). Pure functions
of the question and typed rows; the text lives in the message catalogue (``gpu_job.*`` codes). Value is judged
per GPU-hour against GPUs with at least as much memory (``gpu_lineup``; ``gpu_value.*`` codes).
"""

from __future__ import annotations

from assistant import render
from assistant.answer import Language
from assistant.gpu_job_words import Job
from assistant.messages import say
from tools import catalog
from tools.catalog import GPU
from tools.errors import UnknownNameError
from tools.gpu_lineup import GpuLineup, GpuLineupRow
from tools.model_search import ModelSearch

# Training counts as weak when the GPU has half the dense BF16 compute of the reference or less.
_WEAK = 2.0


def fastest_offered_gpu() -> str | None:
    """Return the GPU with the most dense BF16 compute that some current Alibaba instance type carries."""
    rented = {i.gpu_name for i in catalog.load_instances() if not i.retired} - {None}
    gpus = [g for g in catalog.list_gpus() if g.name in rented and g.bf16_dense_tflops]
    best = max(gpus, key=lambda g: (g.bf16_dense_tflops or 0, g.memory_gib), default=None)
    return best.name if best else None


def training_verdict(
    gpu: GPU, job: Job, reference: GPU | None, lang: Language, rented: bool = True, label: str | None = None
) -> str:
    """Return the first line for training or pretraining on ``gpu``, against the ``reference`` trainer.

    A strong trainer no Alibaba Cloud instance type carries (``rented`` False, the H800) is a "yes, but": it is
    a good training GPU, just not one to rent here.
    """
    tflops = gpu.bf16_dense_tflops if gpu.supports_bf16 else None
    figures = {"gpu": label or gpu.name, "memory": render.fig(gpu.memory_gib)}
    if tflops is None:
        return say("gpu_job.no_bf16", lang, **figures)
    figures["tflops"] = render.fig(tflops)
    nvlink = say("gpu_job.with_nvlink" if gpu.nvlink_gb_s else "gpu_job.without_nvlink", lang,
                 nvlink=render.fig(gpu.nvlink_gb_s))  # fmt: skip
    ref = reference if reference is not None and reference.name != gpu.name else None
    ref_tflops = ref.bf16_dense_tflops if ref is not None else None
    if ref is None or not ref_tflops or tflops * _WEAK > ref_tflops:
        code = "gpu_job.pretrain_yes" if job == "pretraining" and gpu.nvlink_gb_s else "gpu_job.train_yes"
        if job == "pretraining" and not gpu.nvlink_gb_s:
            code = "gpu_job.pretrain_no_nvlink"
        elif not rented:
            code = "gpu_job.train_yes_unrented"
        return say(code, lang, **figures, nvlink=nvlink)
    figures |= {"ref": ref.name, "ref_tflops": render.fig(ref_tflops)}
    code = "gpu_job.pretrain_no" if job == "pretraining" else "gpu_job.train_but"
    return say(code, lang, **figures, nvlink=nvlink)


def serving_verdict(gpu: GPU, search: ModelSearch | None, lang: Language, label: str | None = None) -> str:
    """Return the first line for serving on one ``gpu`` (named ``label``): the largest model it holds."""
    figures = {"gpu": label or gpu.name, "memory": render.fig(gpu.memory_gib),
               "bandwidth": render.fig(gpu.memory_bandwidth_gb_s or 0)}  # fmt: skip
    found = {r.weights: r.largest for r in (search.results if search else []) if r.largest is not None}
    full = found.get("bf16") or found.get("fp16")
    low = next((m for w, m in found.items() if w not in ("bf16", "fp16", "fp8")), None)
    if full is None and low is None:
        return say("gpu_job.serve_small", lang, **figures)
    figures |= {"model": (full or low).model, "params": render.fig((full or low).params_b)}  # type: ignore[union-attr]
    if full is not None and low is not None and low.params_b > full.params_b:
        dtype = "BF16" if gpu.supports_bf16 else "FP16"  # a T4 or V100 has no BF16: its full precision is FP16
        return say("gpu_job.serve_yes", lang, **figures, low_model=low.model, low_params=render.fig(low.params_b),
                   dtype=dtype)  # fmt: skip
    return say("gpu_job.serve_yes_one", lang, **figures)


# A GPU with more memory is worth naming beside a "yes" when it costs at most this much more per GPU-hour.
_NEAR_PRICE = 1.5


def value_verdict(gpu: str, lineup: GpuLineup, lang: Language) -> str | None:
    """Return the first line of "is the V100 still worth it?": whether a GPU with as much memory is cheaper.

    Judged per GPU-hour at each GPU's cheapest listed price (``gpu_lineup``), against GPUs whose memory
    bandwidth is published (a card without one cannot be weighed for LLM work). None: the GPU has no price.
    """
    rows = {r.gpu: r for r in lineup.rows}
    mine = rows.get(gpu)
    if mine is None or mine.cny_per_gpu_hour is None:
        return None
    rivals = [r for r in lineup.rows if r.gpu != gpu and r.cny_per_gpu_hour is not None and _bandwidth(r.gpu)]
    figures = {"gpu": gpu, "memory": render.fig(mine.memory_gib), "price": render.fig(mine.cny_per_gpu_hour),
               "type": mine.cheapest_instance_type, "region": mine.cheapest_region}  # fmt: skip
    cheaper = [r for r in rivals if r.memory_gib >= mine.memory_gib and r.cny_per_gpu_hour < mine.cny_per_gpu_hour]
    if cheaper:  # the one with the most memory for less: the clearest reason it is not worth it
        best = max(cheaper, key=lambda r: (r.memory_gib, -(r.cny_per_gpu_hour or 0)))
        return say("gpu_value.no", lang, **figures, **_other(best))
    bigger = [r for r in rivals if r.memory_gib > mine.memory_gib
              and (r.cny_per_gpu_hour or 0) <= mine.cny_per_gpu_hour * _NEAR_PRICE]  # fmt: skip
    if bigger:
        best = min(bigger, key=lambda r: (r.cny_per_gpu_hour or 0, -r.memory_gib))
        return say("gpu_value.yes_but", lang, **figures, **_other(best))
    return say("gpu_value.yes", lang, **figures)


def _other(row: GpuLineupRow) -> dict[str, str | None]:
    return {"other": row.gpu, "other_memory": render.fig(row.memory_gib),
            "other_price": render.fig(row.cny_per_gpu_hour), "other_type": row.cheapest_instance_type,
            "other_region": row.cheapest_region}  # fmt: skip


def _bandwidth(gpu: str) -> float | None:
    try:
        return catalog.get_gpu(gpu).memory_bandwidth_gb_s
    except UnknownNameError:
        return None
