"""Alibaba Cloud region ids and the names people write for them ("华东2（上海）", "上海", "Shanghai").

Data in ``tools/data/regions.yaml``, one row per region with its source; validated on load.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

REGIONS_FILE = Path(__file__).parent / "data" / "regions.yaml"


class RegionName(BaseModel):
    """One region: its id, the console's Chinese name and the words that name it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="region id, e.g. 'cn-shanghai'")
    name_zh: str = Field(description="the console's name, e.g. '华东2（上海）'")
    aliases: list[str] = Field(min_length=1, description="words that name the region, lower-case for Latin script")
    source: str = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z]{2}-[a-z]+(?:-[a-z0-9]+)?", value):
            raise ValueError(f"not a region id: {value!r}")
        return value


class _RegionFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    regions: list[RegionName]


@cache
def region_names() -> tuple[RegionName, ...]:
    """Load the region table; an id or alias listed twice fails here."""
    data = _RegionFile.model_validate(yaml.safe_load(REGIONS_FILE.read_text(encoding="utf-8")))
    ids = [r.id for r in data.regions]
    aliases = [a.lower() for r in data.regions for a in r.aliases]
    for kind, values in (("id", ids), ("alias", aliases)):
        if dupes := sorted({v for v in values if values.count(v) > 1}):
            raise ValueError(f"{REGIONS_FILE.name}: {kind} listed twice: {', '.join(dupes)}")
    return tuple(data.regions)


def region_aliases() -> dict[str, str]:
    """Map every alias (lower-case) to its region id, longest alias first so '华东2' wins over a shorter word."""
    pairs = [(a.lower(), r.id) for r in region_names() for a in r.aliases]
    return dict(sorted(pairs, key=lambda p: -len(p[0])))
