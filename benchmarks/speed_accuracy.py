"""How close the tokens/s estimate comes to published single-stream measurements, dev and held-out apart.

Run: ``.venv/bin/python benchmarks/speed_accuracy.py [--worst N]``

Two sets are scored the same way and reported apart: ``benchmarks/data/speed_dev.csv`` (development rows:
constants in ``tools/data/speed_constants.yaml`` marked ``fitted_on: dev`` were fitted on them, see
``benchmarks/fit_speed_dev.py``) and ``benchmarks/data/speed_heldout.csv`` (see ``HELDOUT.md``; never
used to fit or choose a constant; ``--worst`` lists its rows only when asked).
Each row is one request: a prompt of
``prompt_tokens`` then ``gen_tokens`` generated at batch 1 on ``num_gpus`` GPUs (tensor parallel for
serving engines, a layer split for HF transformers). The predicted wall time is the prefill time plus
one decode step per generated token at the average KV length, using :mod:`tools.throughput` with the
row's engine; the reported speed is turned into the row's own metric (generated tokens / time, or
prompt + generated tokens / time; ``decode_tokens_per_s`` = 1 / decode step time, as engines'
TPOT or ``bench_latency`` report it). Printed per engine family: rows, median and p90 absolute error,
and the share of rows where speed is over-predicted by more than 10% (the optimistic direction).
"""

from __future__ import annotations

import argparse
import csv
import statistics
from dataclasses import dataclass
from pathlib import Path

from tools import throughput as tp_model
from tools.catalog import get_gpu
from tools.memory import EstimateRequest, estimate_memory
from tools.models import resolve_model

ROOT = Path(__file__).resolve().parents[1]
SPEED_CSV = ROOT / "benchmarks" / "data" / "speed_heldout.csv"
DEV_CSV = ROOT / "benchmarks" / "data" / "speed_dev.csv"
_GPU_NAMES = {"A100-80GB": "A100-80GB", "H20-96GB": "H20", "H100-80GB": "H100-SXM"}
_ENGINES: dict[str, tp_model.Engine] = {"vllm": "vllm", "sglang": "sglang", "tensorrt-llm": "vllm"}
SERVING = ("vllm", "sglang", "tensorrt-llm")


@dataclass
class SpeedCase:
    """One held-out tokens/s row."""

    case_id: str
    source_id: str
    model: str
    engine: str
    gpu: str
    gpus: int
    quant: str
    prompt: int
    gen: int
    metric: str
    measured: float


def load_cases(path: Path = SPEED_CSV) -> list[SpeedCase]:
    """Every row of the held-out speed CSV."""
    with path.open(encoding="utf-8") as fh:
        return [
            SpeedCase(
                row["case_id"],
                row["source_id"],
                row["model"],
                row["engine"],
                row["gpu"],
                int(row["num_gpus"]),
                row["quant"],
                int(row["prompt_tokens"]),
                int(row["gen_tokens"]),
                row["speed_metric"],
                float(row["tokens_per_s"]),
            )
            for row in csv.DictReader(fh)
        ]


def predicted_tokens_per_s(case: SpeedCase, assumptions: tp_model.SpeedAssumptions | None = None) -> float:
    """The estimate in the row's own metric."""
    arch = resolve_model(case.model)
    gpu = get_gpu(_GPU_NAMES[case.gpu])
    assert gpu.memory_bandwidth_gb_s and gpu.bf16_dense_tflops
    perf = tp_model.GpuPerf(
        name=gpu.name,
        memory_bandwidth_gb_s=gpu.memory_bandwidth_gb_s,
        dense_tflops=gpu.bf16_dense_tflops,
        link_gb_s=gpu.nvlink_gb_s,
    )
    serving = case.engine in SERVING
    tensor = case.gpus if serving else 1  # HF device_map="auto" runs the layers one GPU after another
    framework = "vllm" if serving else "transformers"
    average = case.prompt + case.gen // 2
    est = estimate_memory(
        EstimateRequest(
            model=arch.name,
            quant=case.quant,  # type: ignore[arg-type]
            prompt_tokens=average,
            gen_tokens=0,
            gpus=case.gpus,
            framework=framework,
        ),
        arch,
    )
    weights = est.per_gpu.weights_gib * 2**30 * (case.gpus if serving else 1)
    if not serving and case.gpus > 1:
        weights = est.total_tensors_gib * 2**30 - est.per_gpu.kv_cache_gib * 2**30 * case.gpus
    kv = est.per_gpu.kv_cache_gib * 2**30 * (case.gpus if serving else 1)
    quantized = case.quant not in ("none", "fp8")
    step = (
        tp_model.decode_speed(
            arch,
            perf,
            weight_bytes_total=weights,
            kv_bytes_per_sequence=kv,
            batch=1,
            tensor_parallel=tensor,
            quantized=quantized,
            assumptions=assumptions,
            engine=_ENGINES[case.engine] if serving else "transformers",
            # TPOT / bench_latency time the decode step; the other metrics time whole requests.
            scope="step" if case.metric == "decode_tokens_per_s" else "request",
        ).step_ms
        / 1e3
    )
    if case.metric == "decode_tokens_per_s":
        return 1 / step
    ttft = tp_model.time_to_first_token_s(
        arch, perf, prompt_tokens=case.prompt, first_step_s=step, tensor_parallel=tensor, assumptions=assumptions
    )
    seconds = ttft + (case.gen - 1) * step
    tokens = case.gen + (case.prompt if case.metric == "prompt_plus_gen_tokens_per_s" else 0)
    return tokens / seconds


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def score(path: Path) -> tuple[list[tuple[SpeedCase, float, float]], list[str]]:
    """(case, predicted, signed % error) for every row the registry knows, and the rows it skipped."""
    scored, skipped = [], []
    for case in load_cases(path):
        try:
            pred = predicted_tokens_per_s(case)
        except ValueError as exc:  # ToolInputError: a model the registry does not know
            skipped.append(f"{case.case_id} {case.model}: {str(exc).splitlines()[0]}")
            continue
        scored.append((case, pred, 100 * (pred - case.measured) / case.measured))
    return scored, skipped


def _table(scored: list[tuple[SpeedCase, float, float]]) -> None:
    print(f"{'group':<40} {'n':>4} {'median':>8} {'p90':>8} {'over>10%':>9}")
    groups: dict[str, list[float]] = {}
    for case, _, err in scored:
        family = "serving engines" if case.engine in SERVING else "HF transformers"
        for key in (family, f"  {family}: {case.engine} {case.gpu}", "overall"):
            groups.setdefault(key, []).append(err)
    for key in sorted(groups, key=lambda k: (k == "overall", k.strip().split(":")[0], k.startswith("  "), k)):
        errs = groups[key]
        absolute = [abs(e) for e in errs]
        over = 100 * sum(1 for e in errs if e > 10) / len(errs)
        print(
            f"{key:<40} {len(errs):>4} {statistics.median(absolute):>7.1f}% {_pct(absolute, 0.9):>7.1f}% {over:>8.0f}%"
        )


def _worst(scored: list[tuple[SpeedCase, float, float]], count: int) -> None:
    print(f"\nworst {count} rows (signed error: + = faster than measured)")
    for case, pred, err in sorted(scored, key=lambda r: -abs(r[2]))[:count]:
        print(
            f"  {case.case_id} {case.engine:<12} {case.model:<24} {case.quant:<9} {case.gpus}x{case.gpu:<10} "
            f"in {case.prompt:>6} measured {case.measured:8.2f} predicted {pred:8.2f} tok/s {err:+6.1f}%"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worst", type=int, default=0, help="how many worst held-out rows to list")
    parser.add_argument("--worst-dev", type=int, default=10, help="how many worst development rows to list")
    args = parser.parse_args(argv)
    dev, dev_skipped = score(DEV_CSV)
    print(f"development set: {DEV_CSV.name} ({len(dev)} rows; constants marked fitted_on: dev were fitted here)")
    _table(dev)
    if args.worst_dev:
        _worst(dev, args.worst_dev)
    scored, skipped = score(SPEED_CSV)
    print(f"\nheld-out speed set: {SPEED_CSV.name} ({len(scored)} rows; never used to fit)")
    _table(scored)
    if args.worst:
        _worst(scored, args.worst)
    for line in dev_skipped + skipped:
        print(f"  not scored: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
