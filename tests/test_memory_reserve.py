"""Golden tests of the training reserve: what nvidia-smi shows beyond the allocated peak while training.

Source of every figure: fms-acceleration's A100-80GB HF Trainer reference runs (nvidia-smi peak and the
Trainer's ``max_memory_allocated``), transcribed to ``benchmarks/data/memory_reserve_dev.csv`` with
their commit-pinned URLs; the constants in ``tools/data/memory_reserve.yaml`` are the least-squares fit
of ``benchmarks/fit_reserve_dev.py`` over those development rows.
"""

from __future__ import annotations

import csv
import importlib.util
import statistics
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import ValidationError

from tools.memory import estimate_memory
from tools.memory_allocator import TrainingReserve, load_training_reserve
from tools.memory_terms import CUDA_CONTEXT_GIB, GIB
from tools.models import resolve_model

ROOT = Path(__file__).resolve().parents[1]
DEV_CSV = ROOT / "benchmarks" / "data" / "memory_reserve_dev.csv"
HELDOUT_CSV = ROOT / "benchmarks" / "data" / "memory_heldout.csv"


def _fit_module() -> ModuleType:
    path = ROOT / "benchmarks" / "fit_reserve_dev.py"
    spec = importlib.util.spec_from_file_location("fit_reserve_dev", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fit_reserve_dev", module)
    spec.loader.exec_module(sys.modules["fit_reserve_dev"])
    return sys.modules["fit_reserve_dev"]


def _dev_rows() -> list[dict[str, str]]:
    with DEV_CSV.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _measured_gap(*case_ids: str) -> float:
    """Mean nvidia-smi peak minus peak allocated (GiB) of the named dev rows."""
    rows = {r["case_id"]: r for r in _dev_rows()}
    return statistics.mean(
        float(rows[c]["nvidia_smi_mib"]) / 1024 - int(rows[c]["peak_allocated_bytes"]) / GIB for c in case_ids
    )


def test_reserve_constants_are_the_least_squares_fit_of_the_development_rows_only() -> None:
    fit = _fit_module()
    rows = _dev_rows()
    base, logits_share, mlp_share = fit.least_squares(rows)
    stored = load_training_reserve()
    assert (stored.base_gib, stored.logits_share, stored.mlp_share) == pytest.approx(
        (base, logits_share, mlp_share), abs=0.01
    )
    assert stored.rows == len(rows) and stored.fitted_on == "dev"
    with HELDOUT_CSV.open(encoding="utf-8") as fh:
        heldout_sources = {r["source_url"] for r in csv.DictReader(fh)}
    dev_sources = {r["source_url"] for r in rows}
    assert not dev_sources & heldout_sources
    # Every row points at a commit-pinned file, and the fit's source names both files.
    assert all("/blob/" in url and len(url.split("/blob/")[1].split("/")[0]) == 40 for url in dev_sources)
    assert all(url.split("/blob/")[1].split("/")[0] in stored.source for url in dev_sources)


def test_training_reserve_grows_with_the_logits_and_the_mlp_blocks() -> None:
    # Mistral-7B-v0.1 LoRA r16 on q, k, v, o, 4096-token packed rows, one A100-80GB (dev rows R004, R034,
    # R037, R040). Mistral-7B-Instruct-v0.3 has the same shapes (vocab 32768 instead of 32000).
    arch = resolve_model("Mistral-7B-Instruct-v0.3")
    lora = {"model": arch.name, "task": "lora", "seq_len": 4096, "lora_r": 16, "lora_targets": ("q", "k", "v", "o")}
    hf_loss = estimate_memory({**lora, "batch": 4}, arch)
    liger = estimate_memory({**lora, "batch": 16, "fused_linear_ce": True}, arch)
    # HF loss (fp32 upcast logits): measured gap 4.01 GiB at batch 4.
    assert hf_loss.per_gpu.overhead_gib == pytest.approx(_measured_gap("R004"), rel=0.15)
    # Liger's fused linear cross-entropy never builds the logits: the MLP blocks alone, batch 16.
    assert liger.per_gpu.overhead_gib == pytest.approx(_measured_gap("R034", "R037", "R040"), rel=0.15)
    same_batch_liger = estimate_memory({**lora, "batch": 4, "fused_linear_ce": True}, arch)
    assert same_batch_liger.per_gpu.overhead_gib < hf_loss.per_gpu.overhead_gib
    # At a short sequence the reserve is the base: context + fitted base + rounding, a little more.
    short = estimate_memory({**lora, "batch": 1, "seq_len": 256}, arch)
    floor = CUDA_CONTEXT_GIB + load_training_reserve().base_gib
    assert floor <= short.per_gpu.overhead_gib < floor + 0.25
    # The reserve is the allocator's: reserved = tensors + slack, nvidia-smi adds the context.
    assert short.per_gpu_reserved_gib == pytest.approx(short.per_gpu_nvidia_smi_gib - CUDA_CONTEXT_GIB, abs=0.002)


def test_inference_does_not_take_the_training_reserve() -> None:
    # The fit is on training runs only; inference keeps its unfitted share of the largest prefill block.
    arch = resolve_model("Qwen2.5-7B-Instruct")
    est = estimate_memory({"model": arch.name, "prompt_tokens": 16, "gen_tokens": 16}, arch)
    assert est.per_gpu.overhead_gib < CUDA_CONTEXT_GIB + load_training_reserve().base_gib


@pytest.mark.parametrize(
    ("change", "field"),
    [({"fitted_on": "heldout"}, "fitted_on"), ({"source": ""}, "source"), ({"unknown": 1}, "unknown")],
)
def test_reserve_file_rejects_a_row_not_fitted_on_dev_or_without_source(change: dict[str, object], field: str) -> None:
    row = load_training_reserve().model_dump() | change
    with pytest.raises(ValidationError, match=field):
        TrainingReserve.model_validate(row)
