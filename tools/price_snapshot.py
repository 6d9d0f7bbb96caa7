"""Live price snapshots: what ``gpu-advisor prices refresh`` wrote, read back with the shipped models.

A snapshot is one directory ``<root>/<YYYYmmddTHHMMSSZ>/`` with ``prices.csv`` (the :class:`~tools.prices.Price`
columns) and ``availability.csv`` (:class:`Availability`). It is written into a hidden temporary
directory and renamed into place in one step, so a refresh that fails half-way never leaves a partial
snapshot and the previous one stays the newest. Reading validates every row exactly as the shipped files.
"""

from __future__ import annotations

import csv
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.data_files import DataFileError, read_csv_rows
from tools.prices import Price, read_prices

SNAPSHOTS_DIR = "prices"
"""Sub-directory of the data directory that holds the live snapshots."""
PRICES_NAME = "prices.csv"
AVAILABILITY_NAME = "availability.csv"
_SNAPSHOT_DIR = re.compile(r"^\d{8}T\d{6}Z$")

log = logging.getLogger(__name__)

StockStatus = Literal["WithStock", "ClosedWithStock", "WithoutStock", "ClosedWithoutStock"]
"""DescribeAvailableResource's StatusCategory: only WithStock can be bought now."""


class Availability(BaseModel):
    """Whether one zone sells one instance type now (DescribeAvailableResource)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    region: str
    zone: str
    instance_type: str
    status: StockStatus
    as_of: str = Field(description="ISO timestamp of the refresh")
    source: str = Field(description="the API call, e.g. 'DescribeAvailableResource'")

    @property
    def in_stock(self) -> bool:
        """The zone can sell the type now."""
        return self.status == "WithStock"


class LiveSnapshot(BaseModel):
    """One complete refresh, read back and validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    taken_at: str = Field(description="ISO timestamp, e.g. '2026-12-01T22:10:00Z'")
    prices: tuple[Price, ...]
    availability: tuple[Availability, ...]


def snapshot_root(data_dir: Path) -> Path:
    """Return where live snapshots live for a data directory (``GPU_ADVISOR_DATA_DIR``)."""
    return data_dir / SNAPSHOTS_DIR


def snapshot_name(taken_at: str) -> str:
    """Directory name for a timestamp: '2026-12-01T22:10:00Z' -> '20261201T221000Z'."""
    return re.sub(r"[-:]", "", taken_at)


def _taken_at(name: str) -> str:
    return f"{name[0:4]}-{name[4:6]}-{name[6:8]}T{name[9:11]}:{name[11:13]}:{name[13:15]}Z"


def list_snapshots(root: Path) -> list[Path]:
    """Complete snapshot directories under ``root``, oldest first (temporary ones are hidden)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and _SNAPSHOT_DIR.match(p.name))


def read_snapshot(path: Path) -> LiveSnapshot:
    """Read and validate one snapshot directory.

    Raises:
        DataFileError: a file is missing or a row does not validate (file and row named).
    """
    for name in (PRICES_NAME, AVAILABILITY_NAME):
        if not (path / name).is_file():
            raise DataFileError(f"{path / name}: missing from the live price snapshot")
    return LiveSnapshot(
        path=path,
        taken_at=_taken_at(path.name),
        prices=read_prices(path / PRICES_NAME),
        availability=read_csv_rows(path / AVAILABILITY_NAME, Availability, "instance_type"),
    )


def latest_snapshot(root: Path) -> LiveSnapshot | None:
    """Return the newest snapshot under ``root`` that validates; None when there is none.

    A snapshot that no longer validates (edited by hand, damaged) is skipped with a warning in the log,
    so one bad file cannot stop every answer; the next older valid snapshot is used instead.
    """
    for path in reversed(list_snapshots(root)):
        try:
            return read_snapshot(path)
        except DataFileError as exc:
            log.warning("ignoring live price snapshot %s: %s", path, exc)
    return None


def _write_csv(path: Path, rows: Sequence[BaseModel], model: type[BaseModel]) -> None:
    columns = list(model.model_fields)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            data = row.model_dump(mode="json")
            writer.writerow({k: _cell(data[k]) for k in columns})


def _cell(value: object) -> object:
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else value


def write_snapshot(root: Path, taken_at: str, prices: Sequence[Price], availability: Sequence[Availability]) -> Path:
    """Write a complete snapshot atomically and return its directory.

    The files go to a temporary directory under ``root`` first and are read back with the same
    validation as the shipped data; only then is the directory renamed to its dated name.

    Raises:
        DataFileError: the rows do not validate when read back (nothing is left behind).
    """
    root.mkdir(parents=True, exist_ok=True)
    final = root / snapshot_name(taken_at)
    tmp = Path(tempfile.mkdtemp(prefix=".refresh-", dir=root))
    try:
        _write_csv(tmp / PRICES_NAME, prices, Price)
        _write_csv(tmp / AVAILABILITY_NAME, availability, Availability)
        _validate(tmp)
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def _validate(directory: Path) -> None:
    read_prices(directory / PRICES_NAME)
    read_csv_rows(directory / AVAILABILITY_NAME, Availability, "instance_type")
