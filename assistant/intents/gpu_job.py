"""Whether one GPU suits a job, with no model named: "Is the L20 good for training?", "H20 适合预训练吗？".

The verdict is read off the GPU's spec row against the strongest trainer rented on Alibaba Cloud: training and
pretraining are bound by dense BF16 compute (and, across GPUs, by NVLink); serving by memory and bandwidth, so
its deciding figure is the largest registry model one card holds (``largest_models_that_fit``). Pure functions
of the question and typed rows; the text lives in the message catalogue (``gpu_job.*`` codes).
"""

from __future__ import annotations

from assistant import render
from assistant.answer import Language
from assistant.gpu_job_words import Job
from assistant.messages import say
from tools import catalog
from tools.catalog import GPU
from tools.model_search import ModelSearch

# Training counts as weak when the GPU has half the dense BF16 compute of the reference or less.
_WEAK = 2.0


def fastest_offered_gpu() -> str | None:
    """Return the GPU with the most dense BF16 compute that some current Alibaba instance type carries."""
    rented = {i.gpu_name for i in catalog.load_instances() if not i.retired} - {None}
    gpus = [g for g in catalog.list_gpus() if g.name in rented and g.bf16_dense_tflops]
    best = max(gpus, key=lambda g: (g.bf16_dense_tflops or 0, g.memory_gib), default=None)
    return best.name if best else None


def training_verdict(gpu: GPU, job: Job, reference: GPU | None, lang: Language) -> str:
    """Return the first line for training or pretraining on ``gpu``, against the ``reference`` trainer."""
    tflops = gpu.bf16_dense_tflops if gpu.supports_bf16 else None
    figures = {"gpu": gpu.name, "memory": render.fig(gpu.memory_gib)}
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
        return say(code, lang, **figures, nvlink=nvlink)
    figures |= {"ref": ref.name, "ref_tflops": render.fig(ref_tflops)}
    code = "gpu_job.pretrain_no" if job == "pretraining" else "gpu_job.train_but"
    return say(code, lang, **figures, nvlink=nvlink)


def serving_verdict(gpu: GPU, search: ModelSearch | None, lang: Language) -> str:
    """Return the first line for serving on one ``gpu``: the largest model it holds in BF16 and at 4-bit."""
    figures = {"gpu": gpu.name, "memory": render.fig(gpu.memory_gib),
               "bandwidth": render.fig(gpu.memory_bandwidth_gb_s or 0)}  # fmt: skip
    found = {r.weights: r.largest for r in (search.results if search else []) if r.largest is not None}
    full = found.get("bf16") or found.get("fp16")
    low = next((m for w, m in found.items() if w not in ("bf16", "fp16", "fp8")), None)
    if full is None and low is None:
        return say("gpu_job.serve_small", lang, **figures)
    figures |= {"model": (full or low).model, "params": render.fig((full or low).params_b)}  # type: ignore[union-attr]
    if full is not None and low is not None and low.params_b > full.params_b:
        return say("gpu_job.serve_yes", lang, **figures, low_model=low.model, low_params=render.fig(low.params_b))
    return say("gpu_job.serve_yes_one", lang, **figures)
