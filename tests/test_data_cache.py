"""The catalog cache: reused while the data files are unchanged, rebuilt when they change or it is damaged."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tools import catalog, data_cache, media_models, memory_band, models, prices


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    previous = data_cache.cache_dir()
    folder = tmp_path / "cache"
    data_cache.set_cache_dir(folder)
    yield folder
    data_cache.set_cache_dir(previous)


def _file(cache: Path, name: str) -> Path:
    """The one cache file of ``name`` (its name also carries an id of this installation)."""
    (found,) = cache.glob(f"{name}-*.pickle")
    return found


class _Builder:
    """Reads a data file the way a catalog loader does, counting how often it really had to."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.calls = 0

    def __call__(self) -> dict[str, str]:
        self.calls += 1
        return {"rows": self.source.read_text(encoding="utf-8")}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "rows.yaml"
    path.write_text("a: 1\n", encoding="utf-8")
    return path


def test_a_second_load_reads_the_cache_instead_of_the_data_file(cache: Path, source: Path) -> None:
    build = _Builder(source)
    first = data_cache.cached("rows", [source], build)
    second = data_cache.cached("rows", [source], build)
    assert first == second == {"rows": "a: 1\n"}
    assert build.calls == 1
    assert [p.name for p in cache.iterdir()] == [_file(cache, "rows").name]


def test_a_changed_data_file_is_read_again(cache: Path, source: Path) -> None:
    build = _Builder(source)
    data_cache.cached("rows", [source], build)
    source.write_text("a: 2\n", encoding="utf-8")
    assert data_cache.cached("rows", [source], build) == {"rows": "a: 2\n"}
    assert build.calls == 2
    assert data_cache.cached("rows", [source], build) == {"rows": "a: 2\n"} and build.calls == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",  # an empty file
        lambda data: data[: len(data) // 2],  # cut short, e.g. a full disk
        lambda data: data[:-40] + b"\x00" * 40,  # a damaged payload behind a valid key
        lambda data: b"not a cache file\n" + data,  # a foreign file under the same name
    ],
)
def test_a_damaged_cache_file_is_ignored_and_rewritten(
    cache: Path, source: Path, damage: Callable[[bytes], bytes]
) -> None:
    build = _Builder(source)
    data_cache.cached("rows", [source], build)
    file = _file(cache, "rows")
    file.write_bytes(damage(file.read_bytes()))
    assert data_cache.cached("rows", [source], build) == {"rows": "a: 1\n"}
    assert build.calls == 2
    assert data_cache.cached("rows", [source], build) == {"rows": "a: 1\n"} and build.calls == 2


def test_a_write_that_fails_half_way_leaves_the_previous_file_whole(cache: Path, source: Path) -> None:
    data_cache.cached("rows", [source], _Builder(source))
    before = _file(cache, "rows").read_bytes()
    source.write_text("a: 3\n", encoding="utf-8")
    # A lambda cannot be pickled: the write fails after the header and part of the payload.
    value = data_cache.cached("rows", [source], lambda: {"rows": "a: 3\n", "bad": lambda: 0})
    assert value["rows"] == "a: 3\n"
    assert _file(cache, "rows").read_bytes() == before
    assert [p.name for p in cache.iterdir()] == [_file(cache, "rows").name]  # no temporary file left behind


def test_a_cache_directory_that_cannot_be_written_only_costs_speed(tmp_path: Path, source: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    previous = data_cache.cache_dir()
    data_cache.set_cache_dir(blocker / "cache")  # a directory cannot be made under a file
    try:
        build = _Builder(source)
        assert data_cache.cached("rows", [source], build) == {"rows": "a: 1\n"}
        assert data_cache.cached("rows", [source], build) == {"rows": "a: 1\n"} and build.calls == 2
    finally:
        data_cache.set_cache_dir(previous)


def test_a_missing_data_file_fails_as_it_would_without_the_cache(cache: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(FileNotFoundError):
        data_cache.cached("rows", [missing], lambda: missing.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("name", "sources", "read"),
    [
        ("gpus", [catalog.GPUS_FILE], lambda: catalog._read_gpu_file(catalog.GPUS_FILE)),
        ("instances", [catalog.INSTANCES_FILE, catalog.GPUS_FILE], lambda: catalog.read_instances()),
        ("prices", [prices.PRICES_FILE], lambda: prices.read_prices()),
        ("models", [models.REGISTRY_PATH], lambda: models.load_registry_file(models.REGISTRY_PATH)),
        ("media_models", [media_models.MEDIA_MODELS_FILE], lambda: media_models.read_media_models()),
        ("estimate_bands", [memory_band.BANDS_PATH], lambda: memory_band._read_bands()),
    ],
)
def test_every_catalog_read_back_from_the_cache_equals_the_validated_files(
    cache: Path, name: str, sources: list[Path], read: Callable[[], object]
) -> None:
    fresh = read()
    data_cache.cached(name, sources, read)
    assert _file(cache, name).is_file()
    from_cache = data_cache.cached(name, sources, lambda: pytest.fail("the cache was not used"))
    assert from_cache == fresh
