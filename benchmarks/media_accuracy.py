"""How close the image/video, speech and embedding estimates come to published measurements.

Run: ``.venv/bin/python benchmarks/media_accuracy.py``

Scores ``tools/media_memory.py`` and ``tools/media_speed.py`` on two sets each, reported apart:
the development rows the constants were fitted on (``benchmarks/data/media_*_dev.csv``) and held-out
rows never used for fitting (``media_*_heldout.csv``). Per set and kind: rows, median and p90 absolute
percentage error, and the share of rows under-predicted by more than 10% (the dangerous direction for a
planner). Every row is printed with its error and source.
"""

from __future__ import annotations

import csv
import statistics
from collections.abc import Iterator
from pathlib import Path

from tools.media_memory import MediaRequest, estimate_media_memory
from tools.media_models import resolve_media_model
from tools.media_speed import diffusion_speed, speech_speed
from tools.throughput import GpuPerf

DATA = Path(__file__).resolve().parent / "data"


def rows(name: str) -> Iterator[dict[str, str]]:
    """CSV rows of ``benchmarks/data/NAME``, comment lines skipped."""
    with (DATA / name).open(encoding="utf-8") as f:
        yield from csv.DictReader(line for line in f if not line.startswith("#"))


def _int(text: str) -> int | None:
    return int(text) if text else None


def memory_error(row: dict[str, str]) -> tuple[str, float, float]:
    """(kind, estimate, measured) in GiB for one memory row."""
    req = MediaRequest(
        model=row["model"], dtype=row["dtype"] or None, batch=int(row["batch"] or 1), width=_int(row["width"]),
        height=_int(row["height"]), frames=_int(row["frames"]), offload=row["offload"],  # type: ignore[arg-type]
        text_encoders_on_cpu=row["text_encoders_on_cpu"] == "true", beams=int(row["beams"] or 1),
        seq_tokens=_int(row["seq_tokens"]),
    )
    est = estimate_media_memory(req)
    value = est.peak_allocated_gib if row["measure"] == "max_memory_allocated" else est.total_gib
    return est.kind, value, float(row["measured_gib"])


def speed_error(row: dict[str, str]) -> tuple[str, float, float]:
    """(kind, estimate, measured) for one speed row: seconds per item, or real-time factor for speech."""
    model = resolve_media_model(row["model"])
    gpu = GpuPerf(name=row["gpu"], memory_bandwidth_gb_s=float(row["bandwidth_gb_s"]),
                  dense_tflops=float(row["dense_tflops"]))
    if model.kind == "diffusion":
        width, height = int(row["width"]), int(row["height"])
        speed = diffusion_speed(model, gpu, width, height, int(row["steps"]), _int(row["frames"]))
        return model.kind, speed.seconds_per_item, float(row["measured"])
    speed = speech_speed(model, gpu, row["dtype"], streams=int(row["streams"] or 1),  # type: ignore[arg-type]
                         beams=int(row["beams"] or 1))
    return model.kind, 1 / speed.items_per_hour, float(row["measured"])


def report(title: str, results: list[tuple[str, str, float, float, str]]) -> None:
    """Print each row and the summary per kind."""
    print(f"\n== {title} ==")
    by_kind: dict[str, list[float]] = {}
    for row_id, kind, est, measured, source in results:
        err = (est - measured) / measured * 100
        by_kind.setdefault(kind, []).append(err)
        print(f"  {row_id:42s} est {est:9.3f}  measured {measured:9.3f}  error {err:+6.1f}%  {source[:60]}")
    for kind, errors in sorted(by_kind.items()):
        abs_errors = sorted(abs(e) for e in errors)
        p90 = abs_errors[min(len(abs_errors) - 1, int(round(0.9 * (len(abs_errors) - 1))))]
        under = sum(e < -10 for e in errors) / len(errors)
        print(f"  {kind:10s} n={len(errors):2d}  median |err| {statistics.median(abs_errors):5.1f}%  "
              f"p90 {p90:5.1f}%  under by >10%: {under:.0%}")


def main() -> int:
    """Score both sets for memory and speed."""
    for what, fn in (("memory", memory_error), ("speed", speed_error)):
        for part in ("dev", "heldout"):
            name = f"media_{what}_{part}.csv"
            results = [(r["id"], *fn(r), r["source"]) for r in rows(name)]
            report(f"{what}: {part} ({name})", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
