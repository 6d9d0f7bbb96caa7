"""Fit the training reserve (nvidia-smi minus ``max_memory_allocated``) on development rows only.

Run: ``.venv/bin/python benchmarks/fit_reserve_dev.py [--check]``

Rows: ``benchmarks/data/memory_reserve_dev.csv`` (fms-acceleration's A100-80GB HF Trainer runs, one GPU,
both the nvidia-smi peak and the Trainer's peak allocated bytes; selection rule in
``memory_reserve_dev.md``). No row of the held-out set (``memory_heldout.csv``) is read.

Model of what nvidia-smi shows beyond the peak of allocated tensors, one GPU, in GiB::

    gap = CUDA context + weight rounding + base + logits_share x L + mlp_share x M

* ``L``: one block of the loss's logits (tokens x vocab x 4 bytes: the HF loss upcasts to fp32; 0 under
  Liger's fused linear cross-entropy, which never builds them);
* ``M``: one block of the MLP intermediate (tokens x intermediate_size x 2 bytes), the largest
  activation a recomputed decoder layer allocates and frees;
* ``base``: what remains at zero tokens (small-pool segments and blocks of many sizes, kernels the
  lazily loaded CUDA context pulls in for backward and the optimizer): not separable in these data.

The context is the estimator's ``CUDA_CONTEXT_GIB``; the dev models' matrices are all whole multiples
of 2 MiB (or under 10 MiB), so their rounding is the fixed 2 + 20 MiB of the two first segments.
``base`` and the two shares are ordinary least squares over every row; the script also prints
leave-one-model-family-out residuals. ``--check`` compares the fit with ``tools/data/memory_reserve.yaml``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
from pathlib import Path

from tools.memory_allocator import LARGE_BUFFER, SMALL_BUFFER, load_training_reserve
from tools.memory_terms import CUDA_CONTEXT_GIB, GIB

ROOT = Path(__file__).resolve().parents[1]
DEV_CSV = ROOT / "benchmarks" / "data" / "memory_reserve_dev.csv"
FIXED_GIB = CUDA_CONTEXT_GIB + (SMALL_BUFFER + LARGE_BUFFER) / GIB


def features(row: dict[str, str]) -> tuple[float, float]:
    """(L, M) in GiB for one dev row."""
    tokens = int(row["batch"]) * int(row["seq_len"])
    logits = tokens * int(row["vocab_size"]) * 4 / GIB if row["loss"] == "hf_fp32" else 0.0
    mlp = tokens * int(row["intermediate_size"]) * 2 / GIB
    return logits, mlp


def measured_gap(row: dict[str, str]) -> float:
    """nvidia-smi peak minus peak allocated, GiB, minus the context and rounding the estimator already counts."""
    return float(row["nvidia_smi_mib"]) / 1024 - int(row["peak_allocated_bytes"]) / GIB - FIXED_GIB


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (3x3 normal equations)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def least_squares(rows: list[dict[str, str]]) -> tuple[float, float, float]:
    """(base, logits_share, mlp_share) minimising the squared GiB residuals."""
    x = [(1.0, *features(r)) for r in rows]
    y = [measured_gap(r) for r in rows]
    ata = [[sum(xi[i] * xi[j] for xi in x) for j in range(3)] for i in range(3)]
    aty = [sum(xi[i] * yi for xi, yi in zip(x, y, strict=True)) for i in range(3)]
    base, logits_share, mlp_share = _solve(ata, aty)
    return base, logits_share, mlp_share


def predict(coef: tuple[float, float, float], row: dict[str, str]) -> float:
    logits, mlp = features(row)
    return coef[0] + coef[1] * logits + coef[2] * mlp


def family(row: dict[str, str]) -> str:
    """The base model a row trains (a GPTQ checkpoint belongs to its base model's family)."""
    name = row["model"].split("/")[-1].lower()
    return name.removesuffix("-gptq").removesuffix("-hf").removeprefix("meta-")


def load_rows(path: Path = DEV_CSV) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when tools/data/memory_reserve.yaml differs")
    args = parser.parse_args(argv)
    rows = load_rows()
    coef = least_squares(rows)
    print(f"{len(rows)} dev rows ({DEV_CSV.name}); fixed context + rounding {FIXED_GIB:.3f} GiB")
    print(f"fit: base {coef[0]:.3f} GiB, logits share {coef[1]:.3f}, MLP-block share {coef[2]:.3f}")
    fitted = [abs(measured_gap(r) - predict(coef, r)) for r in rows]
    print(f"in-sample |residual| median {statistics.median(fitted):.2f} GiB, max {max(fitted):.2f} GiB")
    held: list[float] = []
    for fam in sorted({family(r) for r in rows}):
        train = [r for r in rows if family(r) != fam]
        test = [r for r in rows if family(r) == fam]
        c = least_squares(train)
        errs = [measured_gap(r) - predict(c, r) for r in test]
        held += [abs(e) for e in errs]
        print(f"  leave out {fam:<28} n={len(test):>2} mean residual {statistics.mean(errs):+.2f} GiB")
    print(f"leave-one-family-out |residual| median {statistics.median(held):.2f} GiB, max {max(held):.2f} GiB")
    old = [abs(measured_gap(r) + FIXED_GIB - (CUDA_CONTEXT_GIB + 0.5 * max(features(r)))) for r in rows]
    print(f"previous model (context + half the largest block): |residual| median {statistics.median(old):.2f} GiB")
    if args.check:
        stored = load_training_reserve()
        pairs = zip((stored.base_gib, stored.logits_share, stored.mlp_share), coef, strict=True)
        if any(abs(s - c) > 0.01 for s, c in pairs):
            print("memory_reserve.yaml differs from the fit: update it from the figures above")
            return 1
        print("memory_reserve.yaml matches the fit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
