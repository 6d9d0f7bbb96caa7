"""Fit the weight-only int4/int8 kernel constants on the DEVELOPMENT speed rows only.

Run: ``.venv/bin/python benchmarks/fit_speed_dev.py``

Reads ``benchmarks/data/speed_dev.csv`` (never the held-out file), keeps the quantised (GPTQ/AWQ)
rows, and grid-searches ``quantized_layer_overhead_s`` and ``eta_bandwidth_quantized`` for the
smallest sum of squared log errors of tokens/s. Prints the best pair; the values are copied into
``tools/data/speed_constants.yaml`` (``kernel_families``, ``fitted_on: dev``) by hand.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed_accuracy import DEV_CSV, load_cases, predicted_tokens_per_s  # noqa: E402

from tools.throughput import SpeedAssumptions  # noqa: E402


def main() -> int:
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
