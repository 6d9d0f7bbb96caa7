"""The uncertainty band of a memory estimate: p10-p90 of measured / predicted on held-out measurements.

``tools/data/estimate_bands.yaml`` is written by ``benchmarks/estimator_accuracy.py --write-bands`` from
published measurements that no estimator constant was fitted on (``benchmarks/data/memory_heldout.csv``),
one row per stack and task group. The planner checks fits against the band's upper end.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import data_cache
from tools.memory_stack import is_serving_engine
from tools.notes import Note, note

BANDS_PATH = Path(__file__).parent / "data" / "estimate_bands.yaml"
BandGroup = Literal["inference-transformers", "inference-serving", "fine-tuning"]


class Band(BaseModel):
    """p10 and p90 of measured / predicted for one group of held-out rows."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    group: BandGroup
    basis: str
    p10: float = Field(gt=0, le=1.0, description="low end as a multiple of the estimate")
    p90: float = Field(ge=1.0, description="high end as a multiple of the estimate")
    rows: int = Field(ge=1)
    source: str = Field(min_length=1)

    def note(self, checked: bool = False) -> Note:
        """State the band as an assumption; ``checked`` adds that fits are checked against its upper end."""
        code = "band.pooled_rows" if "pooled" in self.basis else "band.own_rows"
        return note(
            code + ("_checked" if checked else ""),
            p10=self.p10, p90=self.p90, rows=self.rows, group=self.group, source=self.source,
        )  # fmt: skip


class _BandFile(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    bands: list[Band]


@cache
def load_bands() -> dict[str, Band]:
    """Every band by group, validated once (a malformed file is a bug: it raises)."""
    return data_cache.cached("estimate_bands", [BANDS_PATH], _read_bands)


def _read_bands() -> dict[str, Band]:
    import yaml

    data = _BandFile.model_validate(yaml.safe_load(BANDS_PATH.read_text(encoding="utf-8")))
    return {band.group: band for band in data.bands}


def band_group(framework: str, task: str) -> BandGroup:
    """Which held-out group an estimate belongs to."""
    if task != "inference":
        return "fine-tuning"
    return "inference-serving" if is_serving_engine(framework) else "inference-transformers"


def band_for(framework: str, task: str) -> Band:
    """Return the band for an estimate of this stack and task."""
    return load_bands()[band_group(framework, task)]
