"""How close the memory estimator comes to published measurements, and how fast it is.

Run: ``.venv/bin/python benchmarks/estimator_accuracy.py [--csv PATH] [--worst N]``

For each calibration row (``memory_measured_dev.csv``) it builds the request the row describes,
compares the matching quantity (``total_tensors_gib`` for ``torch_max_allocated_sum`` rows, the busiest
GPU's ``per_gpu_tensors_gib`` for torchtune's per-GPU peaks) and prints, per task and overall, the
number of rows, median and p90 absolute percentage error, and the worst rows. Rows whose settings are
not stated well enough (quality C, unpacked batches, unstated recipe flags) are left out of the
scores but, where batch and length are known, shown with their error as if packed.
The CSV is looked up in ``benchmarks/data/`` first, then in the shared calibration folder.

Then it scores the held-out set (``benchmarks/data/memory_heldout.csv``, see ``HELDOUT.md``): published
figures from other stacks, versions and model families that no constant was fitted on. Each row is
compared with the quantity it measured (allocated tensors, vLLM's profiler lines, or the nvidia-smi
view where the source does not say) and reported per task group (inference, fine-tuning) with the
median and p90 absolute error and the share of rows under-predicted by more than 10%.
Then it times 1,000 ``estimate_memory`` calls with an already-resolved architecture, JSON included.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.memory import EstimateRequest, estimate_memory
from tools.models import resolve_model

ROOT = Path(__file__).resolve().parents[1]

HELDOUT_CSV = ROOT / "benchmarks" / "data" / "memory_heldout.csv"
CSV_CANDIDATES = (
    ROOT / "benchmarks" / "data" / "memory_measured_dev.csv",
    Path("/work/shared/calibration/memory_measured_dev.csv"),
)
_TASKS = {"inference": "inference", "full_ft": "full", "lora": "lora", "qlora": "qlora"}
_QUANTS = {"gptq-int4", "gptq-int8", "awq-int4"}
# Recipe facts the rows point to ("exact flags come from the linked recipe configs").
_LORA_QVO_MLP = ("q", "v", "o", "gate", "up", "down")


@dataclass
class Case:
    """One calibration row turned into a request, or the reason it cannot be."""

    case_id: str
    task: str
    quality: str
    measured_gib: float
    metric: str
    request: dict[str, Any] | None
    excluded: str | None
    source_url: str


def _extra(row: dict[str, str]) -> dict[str, str]:
    return dict(part.split("=", 1) for part in row["extra"].split(";") if "=" in part)


def _yes(extra: dict[str, str], *keys: str) -> bool:
    return any(extra.get(k) == "yes" for k in keys)


def case_from_row(row: dict[str, str]) -> Case:
    """Map a calibration row to an :class:`EstimateRequest` dict (None when under-specified)."""
    extra = _extra(row)
    quality = extra.get("quality", "?")
    task = _TASKS[row["task"]]
    measured = float(row["measured_gib"])
    if extra.get("unit") == "GB":
        measured *= 1e9 / 2**30  # the row is in GB (10^9 bytes)
    metric = "sum" if extra.get("metric") == "torch_max_allocated_sum" else "per_gpu"
    case = Case(row["case_id"], task, quality, measured, metric, None, None, row["source_url"])
    gpus = int(extra.get("num_gpus", "1"))
    if task == "inference":
        prompt, gen = re.fullmatch(r"(\d+)\+(\d+)gen", row["seq_len_or_context"]).groups()  # type: ignore[union-attr]
        quant = row["precision_or_quant"]
        case.request = {
            "model": row["model"],
            "task": "inference",
            "prompt_tokens": int(prompt),
            "gen_tokens": int(gen),
            "quant": quant if quant in _QUANTS else "none",
            "gpus": gpus,
            "framework": "transformers",
        }
        return case
    if quality == "C" or row["batch"] == "see_config":
        case.excluded = "quality C: batch and sequence length come from unstated recipe defaults"
        return case
    # Under-specified rows still get a request (as if packed) for the transparency table.
    if extra.get("packed") == "no":
        case.excluded = "unpacked batch: real tokens per batch unknown (well below batch x seq_len)"
    elif "May 2024" in row["notes"]:
        case.excluded = "packing not stated (May 2024, before torchtune shipped packed datasets): tokens unknown"
    elif extra.get("hw", "").endswith("A6000"):
        case.excluded = "recipe flags unstated (about 2x the RTX 4090 row of the same recipe)"
    case.request = _training_request(row, extra, task, gpus)
    return case


def _training_request(row: dict[str, str], extra: dict[str, str], task: str, gpus: int) -> dict[str, Any]:
    notes = row["notes"]
    # The Nov 2024 speed table's Llama 3.x recipes use chunked CE; the ablation rows state it per step.
    nov_2024 = "Nov 2024" in notes and "Optimization flags" not in notes
    req: dict[str, Any] = {
        "model": row["model"],
        "task": task,
        "batch": int(row["batch"]),
        "seq_len": int(row["seq_len_or_context"]),
        "gpus": gpus,
        "master_weights": False,  # torchtune trains in pure bf16
        "torch_compile": _yes(extra, "compile", "torch_compile") or "torch compile" in notes,
        "chunked_ce": _yes(extra, "chunked_ce") or ("chunked_ce" not in extra and nov_2024),
        "grad_ckpt": extra.get("act_ckpt", "yes") != "no",
        "activation_offload": _yes(extra, "act_offload"),
        "optimizer_in_backward": _yes(extra, "opt_in_bwd"),
    }
    if extra.get("opt") == "AdamW8bit":
        req["optimizer"] = "adamw-8bit"
    if "PagedAdamW8bit" in notes:
        req.update(optimizer="paged-adamw-8bit", optimizer_in_backward=True)
    elif "PagedAdamW" in notes:
        req.update(optimizer="paged-adamw", optimizer_in_backward=gpus == 1)
    if gpus > 1:
        req["zero"] = 3  # torchtune distributed recipes shard with FSDP
        if "fsdp_cpu_offload=True" in notes:
            req["offload"] = "optimizer+params"
    if task != "full":
        rank = re.search(r"r=(\d+)", notes) or re.search(r"lora_r=(\d+)", row["extra"])
        # Llama-3.2-3B LoRA/QLoRA configs: rank 64 on q, v, output_proj + MLP; Llama-2 (May 2024):
        # rank 8 on q, v only (LoRA) or q, k, v, output_proj + MLP (QLoRA).
        req["lora_r"] = int(rank.group(1)) if rank else (64 if row["model"] == "Llama-3.2-3B" else 8)
        if "output_proj + MLP" in notes or row["model"] == "Llama-3.2-3B":
            req["lora_targets"] = _LORA_QVO_MLP
        elif task == "qlora":
            req["lora_targets"] = ("q", "k", "v", "o", "gate", "up", "down")
        else:
            req["lora_targets"] = ("q", "v")
    return req


def load_cases(path: Path) -> list[Case]:
    """All rows of the calibration CSV as cases."""
    with path.open(encoding="utf-8") as fh:
        return [case_from_row(row) for row in csv.DictReader(fh)]


def predicted_gib(case: Case) -> float:
    """The estimator's number for the quantity the row measured."""
    assert case.request is not None
    est = estimate_memory(EstimateRequest.model_validate(case.request), resolve_model(case.request["model"]))
    return est.total_tensors_gib if case.metric == "sum" else est.per_gpu_tensors_gib


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _report(title: str, rows: list[tuple[Case, float, float]]) -> None:
    print(f"\n{title}")
    print(f"{'task':<10} {'n':>4} {'median APE':>11} {'p90 APE':>8} {'max APE':>8}")
    groups: dict[str, list[float]] = {}
    for case, _, err in rows:
        groups.setdefault(case.task, []).append(abs(err))
        groups.setdefault("overall", []).append(abs(err))
    for task in ("inference", "full", "lora", "qlora", "overall"):
        errs = groups.get(task)
        if errs:
            print(
                f"{task:<10} {len(errs):>4} {statistics.median(errs):>10.1f}% {_pct(errs, 0.9):>7.1f}% "
                f"{max(errs):>7.1f}%"
            )


@dataclass
class HeldoutCase:
    """One held-out row: the request it describes and the quantity it measured (GiB)."""

    case_id: str
    source_id: str
    group: str
    model: str
    measured_gib: float
    metric: str
    request: dict[str, Any]


_UNIT_GIB = {"GiB": 1.0, "GB": 1e9 / 2**30, "MiB": 2**20 / 2**30}
# Rows from sources an estimator constant already cites (tools/memory_terms.py quotes vLLM PR #10511's
# Llama-3-8B profile): not held out, so shown but not scored.
SEEN_SOURCES = frozenset({"https://github.com/vllm-project/vllm/pull/10511"})
BANDS_YAML = ROOT / "tools" / "data" / "estimate_bands.yaml"
MIN_BAND_ROWS = 10


# What a source's published recipe runs, read from the recipe's own scripts (not from the measurements):
# the row names the method, these are the flags the method's script passes. Qwen v1 (QwenLM/Qwen at the
# README's commit): Q-LoRA on one GPU is finetune/finetune_qlora_single_gpu.sh = finetune.py --fp16
# --q_lora --deepspeed finetune/ds_config_zero2.json (stage 2, overlap_comm true, contiguous_gradients
# true, reduce_bucket_size and allgather_bucket_size 2e8); LoRA on one GPU is
# finetune_lora_single_gpu.sh (--bf16, no DeepSpeed: HF Trainer with autocast); full-parameter is
# finetune_ds.sh (ds_config_zero3.json: reduce_bucket_size/prefetch/persistence "auto",
# stage3_max_live_parameters 1e9).
# The rows' "peft=0.7" (from the README's later loading note "peft<0.8", added 2024-02) is not passed as
# the PEFT version: the profiling rows were added on 2023-10-11 (7B) and 2023-11-30 (1.8B/14B/72B), before
# PEFT 0.7.0 was released (huggingface/peft#1214, 2023-12-05), so they ran PEFT <= 0.6 (fp32 adapters).
# Passed, PEFT 0.7-0.10's 16-bit adapters would score this group 5.7% median, 22% under by >10%.
QWEN1_SCRIPTS = "https://github.com/QwenLM/Qwen/tree/2df8e8ac450fa185c421a08b0090ef81826caa6e/finetune"
# finetune.py's LoraArguments default targets c_attn (fused q/k/v), c_proj (attention output and MLP down),
# w1, w2 (the two MLP inputs): "all" linear layers, with q/k/v as ONE fused adapter.
QWEN1_LORA_TARGETS = ("qkv", "o", "gate", "up", "down")
RECIPE_FLAGS: dict[tuple[str, str], dict[str, Any]] = {
    ("qwen1-finetune", "lora"): {"lora_targets": QWEN1_LORA_TARGETS},
    ("qwen1-finetune", "qlora"): {
        "lora_targets": QWEN1_LORA_TARGETS,
        "framework": "deepspeed",
        "precision": "fp16",
        "zero": 2,
        "reduce_bucket_size": 200_000_000,
        "allgather_bucket_size": 200_000_000,
        "overlap_comm": True,
    },
}


def heldout_case(row: dict[str, str]) -> HeldoutCase:
    """Turn a held-out row into the request it describes (the row's own facts only)."""
    settings = dict(part.split("=", 1) for part in row["settings"].split(";") if "=" in part)
    task = row["task"]
    gpus = int(row["num_gpus"])
    req: dict[str, Any] = {"model": row["model"], "task": task, "gpus": gpus, "batch": int(row["batch"])}
    if row["precision"] == "fp16":
        req["precision"] = "fp16"
    if row["quant"] != "none":
        req["quant"] = row["quant"]
    req["framework"] = row["stack"]
    version = re.match(r"\d+(\.\d+)*", row["stack_version"])
    if version and row["stack"] in ("transformers", "vllm", "sglang"):
        req["framework_version"] = version.group(0)
    if "modules_to_save" in settings:
        req["modules_to_save"] = ("embed", "lm_head")
    if task == "inference":
        req["prompt_tokens"] = int(row["prompt_tokens"])
        req["gen_tokens"] = int(row["gen_tokens"])
        if row["stack"] == "vllm":
            for key in ("max_num_batched_tokens", "max_num_seqs", "max_model_len"):
                if key in settings:
                    req[key] = int(settings[key])
            if "gpu_memory_utilization" in settings:
                req["gpu_memory_utilization"] = float(settings["gpu_memory_utilization"])
    else:
        req["seq_len"] = int(row["seq_len"])
        if "lora_r" in settings:
            req["lora_r"] = int(settings["lora_r"])
        if settings.get("grad_ckpt") == "no":
            req["grad_ckpt"] = False
        if "zero" in settings:
            req["zero"] = int(settings["zero"])
        if "optim" in settings:  # HF TrainingArguments.optim, e.g. adamw_torch (the foreach step)
            req["optimizer"] = settings["optim"]
        req.update(RECIPE_FLAGS.get((row["source_id"], task), {}))
    measured = float(row["measured"]) * _UNIT_GIB[row["unit"]]
    group = "inference" if task == "inference" else "fine-tuning"
    return HeldoutCase(row["case_id"], row["source_id"], group, row["model"], measured, row["metric"], req)


def heldout_predicted_gib(case: HeldoutCase) -> float:
    """The estimator's number for the quantity the held-out row measured."""
    est = estimate_memory(EstimateRequest.model_validate(case.request), resolve_model(case.request["model"]))
    gpus = case.request["gpus"]
    match case.metric:
        case "vllm_weights":
            return est.per_gpu.weights_gib
        case "vllm_activation_peak":
            return est.per_gpu.activations_gib
        case "allocated_sum":
            return est.total_tensors_gib
        case "allocated":
            return est.total_tensors_gib if gpus > 1 else est.per_gpu_tensors_gib
        case "unknown_sum":
            return est.total_gib
    return est.per_gpu_total_gib


def score_heldout(path: Path = HELDOUT_CSV) -> list[tuple[HeldoutCase, float | None, float | None, str]]:
    """Every held-out row with its prediction and signed error in % (None + reason when not scorable)."""
    out: list[tuple[HeldoutCase, float | None, float | None, str]] = []
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            case = heldout_case(row)
            if row["source_url"] in SEEN_SOURCES:
                out.append((case, None, None, "source already cited by an estimator constant (not held out)"))
                continue
            try:
                pred = heldout_predicted_gib(case)
            except ValueError as exc:  # ToolInputError: unknown model, impossible request
                out.append((case, None, None, str(exc).splitlines()[0]))
                continue
            out.append((case, pred, 100 * (pred - case.measured_gib) / case.measured_gib, ""))
    return out


def summarise(errors: list[float]) -> tuple[int, float, float, float, float]:
    """n, median |error| %, p90 |error| %, shares (%) of rows under- and over-predicted by more than 10%."""
    absolute = [abs(e) for e in errors]
    under = 100 * sum(1 for e in errors if e < -10) / len(errors)
    over = 100 * sum(1 for e in errors if e > 10) / len(errors)
    return len(errors), statistics.median(absolute), _pct(absolute, 0.9), under, over


def _heldout_report(rows: list[tuple[HeldoutCase, float | None, float | None, str]], worst: int) -> None:
    scored = [(c, p, e) for c, p, e, _ in rows if e is not None]
    print(f"\nheld-out set: {HELDOUT_CSV.name} ({len(rows)} rows, {len(scored)} scored; never used to fit)")
    print(f"{'group':<28} {'n':>4} {'median':>8} {'p90':>8} {'under>10%':>10} {'over>10%':>9}")
    groups: dict[str, list[float]] = {}
    for case, _, err in scored:
        assert err is not None
        for key in (case.group, f"  {case.group}: {case.source_id}", "overall"):
            groups.setdefault(key, []).append(err)
    for key in sorted(groups, key=lambda k: (k == "overall", k.strip().split(":")[0], k.startswith("  "), k)):
        n, med, p90, under, over = summarise(groups[key])
        print(f"{key:<28} {n:>4} {med:>7.1f}% {p90:>7.1f}% {under:>9.0f}% {over:>8.0f}%")
    print(f"\nheld-out worst {worst} rows (signed error: + = over-estimate)")
    for case, pred, err in sorted(scored, key=lambda r: -abs(r[2] or 0))[:worst]:
        print(
            f"  {case.case_id} {case.source_id:<15} {case.model:<22} {case.metric:<20} measured "
            f"{case.measured_gib:7.2f} predicted {pred:7.2f} GiB {err:+6.1f}%"
        )
    for case, _, _, why in rows:
        if why:
            print(f"  not scored: {case.case_id} {case.model}: {why}")


def band_group(case: HeldoutCase) -> str:
    """The band a held-out row informs: transformers or serving-engine inference, or fine-tuning."""
    if case.group == "fine-tuning":
        return "fine-tuning"
    return (
        "inference-serving"
        if case.request.get("framework") in ("vllm", "sglang", "tensorrt-llm")
        else ("inference-transformers")
    )


def bands_yaml(rows: list[tuple[HeldoutCase, float | None, float | None, str]]) -> str:
    """p10/p90 of measured / predicted per band group, as the YAML ``tools/data/estimate_bands.yaml`` holds."""
    ratios: dict[str, list[float]] = {}
    for case, pred, _, _ in rows:
        if pred:
            ratios.setdefault(band_group(case), []).append(case.measured_gib / pred)
    lines = [
        "# Uncertainty band of the memory estimate: p10 and p90 of measured / predicted on the held-out set",
        "# (benchmarks/data/memory_heldout.csv), per stack and task. Generated by",
        "# `python benchmarks/estimator_accuracy.py --write-bands`; the point estimate's constants are not",
        "# fitted on these rows, only this band is derived from them.",
        "bands:",
    ]
    pooled = ratios.get("inference-transformers", []) + ratios.get("inference-serving", [])
    for group in ("inference-transformers", "inference-serving", "fine-tuning"):
        values = ratios.get(group, [])
        note = "this group's rows"
        if len(values) < MIN_BAND_ROWS:  # too few rows for quantiles: pool all inference rows
            values, note = (pooled if group.startswith("inference") else values) or [1.0], "all inference rows (pooled)"
        lines += [
            f"  - group: {group}",
            f"    basis: {note}",
            f"    p10: {_pct(values, 0.1):.3f}",
            f"    p90: {_pct(values, 0.9):.3f}",
            f"    rows: {len(values)}",
            "    source: benchmarks/data/memory_heldout.csv",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, help="memory_measured_dev.csv (default: benchmarks/data, then shared)")
    parser.add_argument("--worst", type=int, default=8, help="how many worst rows to list")
    parser.add_argument("--write-bands", action="store_true", help=f"rewrite {BANDS_YAML.name} from the held-out set")
    args = parser.parse_args(argv)
    if args.write_bands:
        BANDS_YAML.write_text(bands_yaml(score_heldout()), encoding="utf-8")
        print(f"wrote {BANDS_YAML}")
        return 0
    path = args.csv or next((p for p in CSV_CANDIDATES if p.exists()), None)
    if path is None:
        print("calibration CSV not found; pass --csv PATH", file=sys.stderr)
        return 2
    cases = load_cases(path)
    every = []
    for case in cases:
        if case.request is None:
            continue
        pred = predicted_gib(case)
        every.append((case, pred, 100 * (pred - case.measured_gib) / case.measured_gib))
    scored = [r for r in every if r[0].excluded is None]
    print(f"calibration: {path} ({len(cases)} rows, {len(scored)} scored)")
    _report("quality A / A- rows (well specified)", [r for r in scored if r[0].quality.startswith("A")])
    _report("all scored rows (A, A-, B)", scored)
    _report("for transparency: also the under-specified rows, scored as if packed", every)
    print(f"\nworst {args.worst} rows (signed error: + = over-estimate)")
    for case, pred, err in sorted(scored, key=lambda r: -abs(r[2]))[: args.worst]:
        print(
            f"  {case.case_id} {case.task:<9} q={case.quality:<2} measured {case.measured_gib:7.2f} "
            f"predicted {pred:7.2f} GiB  {err:+6.1f}%  {case.request['model'] if case.request else ''}"
        )
    print("\nexcluded rows (error if scored as if packed, where batch and length are known)")
    errors = {case.case_id: err for case, _, err in every}
    for case in cases:
        if case.excluded:
            err = f"{errors[case.case_id]:+6.1f}%" if case.case_id in errors else "   n/a"
            print(f"  {case.case_id} {case.task:<9} q={case.quality:<2} {err}  {case.excluded}")
    if HELDOUT_CSV.exists():
        _heldout_report(score_heldout(), args.worst)
    print(f"\nspeed: {_speed_ms():.0f} ms for 1,000 estimate_memory calls (resolved architecture, JSON included)")
    return 0


def _speed_ms() -> float:
    arch = resolve_model("Qwen2.5-72B-Instruct")
    requests = [
        EstimateRequest(
            model=arch.name,
            prompt_tokens=4096 + i,
            gen_tokens=512,
            framework="vllm",
            gpus=4,
            gpu_memory_gib=80,
        )
        if i % 2
        else EstimateRequest(model=arch.name, task="lora", seq_len=2048 + i, gpus=8, zero=3)
        for i in range(1000)
    ]
    estimate_memory(requests[0], arch)
    start = time.perf_counter()
    for req in requests:
        estimate_memory(req, arch).model_dump_json()
    return (time.perf_counter() - start) * 1e3


if __name__ == "__main__":
    raise SystemExit(main())
