"""Fit the weight-only int4/int8 kernel constants on the DEVELOPMENT speed rows only.

Run: ``.venv/bin/python benchmarks/fit_speed_dev.py``

Reads ``benchmarks/data/speed_dev.csv`` (never the held-out file), keeps the quantised (GPTQ/AWQ)
rows, and grid-searches ``quantized_layer_overhead_s`` and ``eta_bandwidth_quantized`` for the
smallest sum of squared log errors of tokens/s. Prints the best pair; the values are copied into
``tools/data/speed_constants.yaml`` (``kernel_families``, ``fitted_on: dev``) by hand.

``--h20`` instead fits the H20's relative bandwidth share to the one published H20 comparison named
in that file (Llama2-13B FP16 at batch 16: H20 = 1.8 x A100 = 1.1 x H100).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed_accuracy import DEV_CSV, load_cases, predicted_tokens_per_s  # noqa: E402

from tools import catalog  # noqa: E402
from tools.models import resolve_model  # noqa: E402
from tools.throughput import GpuPerf, SpeedAssumptions, decode_speed  # noqa: E402


def _h20_share() -> int:
    arch = resolve_model("Llama-2-13B-Chat")
    weights = arch.param_breakdown().total * 2

    def speed(name: str, scale: float) -> float:
        gpu = catalog.get_gpu(name)
        assert gpu.memory_bandwidth_gb_s and gpu.bf16_dense_tflops
        perf = GpuPerf(
            name=name, memory_bandwidth_gb_s=gpu.memory_bandwidth_gb_s * scale, dense_tflops=gpu.bf16_dense_tflops
        )
        return decode_speed(
            arch, perf, weight_bytes_total=weights, kv_bytes_per_sequence=0, batch=16
        ).tokens_per_s_total

    a100, h100 = speed("A100-80GB", 1.0), speed("H100-SXM", 1.0)
    losses = []
    for pct in range(70, 121):
        h20 = speed("H20", pct / 100)
        losses.append(
            (math.log(h20 / a100 / 1.8) ** 2 + math.log(h20 / h100 / 1.1) ** 2, pct / 100, h20 / a100, h20 / h100)
        )
    _, share, vs_a100, vs_h100 = min(losses)
    print(f"H20 share relative to the A100: {share:.2f} (H20/A100 {vs_a100:.2f} vs 1.8, H20/H100 {vs_h100:.2f} vs 1.1)")
    return 0


def main() -> int:
    if "--h20" in sys.argv[1:]:
        return _h20_share()
    cases = [c for c in load_cases(DEV_CSV) if c.quant not in ("none", "fp8")]
    best: tuple[float, float, float] | None = None
    for overhead_us in range(0, 81, 4):
        for eta_pct in range(40, 101, 2):
            a = SpeedAssumptions(quantized_layer_overhead_s=overhead_us * 1e-6, eta_bandwidth_quantized=eta_pct / 100)
            loss = sum(math.log(predicted_tokens_per_s(c, a) / c.measured) ** 2 for c in cases)
            if best is None or loss < best[0]:
                best = (loss, overhead_us * 1e-6, eta_pct / 100)
    assert best is not None
    loss, overhead, eta = best
    print(f"{len(cases)} quantised dev rows; best layer_overhead_s={overhead:.6f} eta_bandwidth={eta:.2f}")
    print(f"rms log error {math.sqrt(loss / len(cases)):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
