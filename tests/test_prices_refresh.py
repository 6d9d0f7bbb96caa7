"""``prices refresh`` against a loopback fake of the ECS OpenAPI, driven by the real Alibaba SDK client.

Covers a complete refresh (the snapshot, instance-only prices, spot per zone, stock), throttling with
retries, throttling past the retries, a half-failed refresh that leaves the previous snapshot in use,
wrong and missing credentials, and a plan whose prices then say "live price from DescribePrice".
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alibabacloud_credentials.client import Client as CredentialClient
from alibabacloud_credentials.models import Config as CredentialConfig
from fakes.fake_ecs import EcsWorld, FakeType, fake_ecs

from tools import price_quotes, prices
from tools.plan import plan_deployment
from tools.price_refresh import CredentialsError, RefreshError, RefreshOptions, refresh_prices
from tools.price_snapshot import latest_snapshot, list_snapshots
from tools.workload import Workload

A10 = "ecs.gn7i-c8g1.2xlarge"
A10_WIDE = "ecs.gn7i-c16g1.4xlarge"
T4 = "ecs.gn6i-c4g1.xlarge"


def _world() -> EcsWorld:
    return EcsWorld(
        types=[FakeType(A10, "NVIDIA A10", 1, 24.0), FakeType(A10_WIDE, "NVIDIA A10", 2, 24.0),
               FakeType(T4, "NVIDIA T4", 1, 16.0)],
        stock={
            "cn-beijing": {"cn-beijing-k": [A10, T4], "cn-beijing-l": [A10]},
            "cn-hangzhou": {"cn-hangzhou-j": [A10, A10_WIDE]},
        },
        hourly={("cn-beijing", A10): 7.25, ("cn-beijing", T4): 5.5, ("cn-hangzhou", A10): 7.75},
        spot={("cn-beijing", "cn-beijing-k", A10): 1.9, ("cn-beijing", "cn-beijing-l", A10): 1.6},
    )


def _key(access_key_id: str = "test-ak") -> CredentialClient:
    return CredentialClient(CredentialConfig(type="access_key", access_key_id=access_key_id, access_key_secret="s"))


def _options(endpoint: str, **extra: object) -> RefreshOptions:
    data: dict[str, object] = {
        "regions": ["cn-beijing", "cn-hangzhou"], "instance_types": [A10, A10_WIDE, T4], "endpoint": endpoint,
        "protocol": "http", "backoff_s": 0.01, "concurrency": 3,
    }
    return RefreshOptions.model_validate({**data, **extra})


def _clock(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)


@pytest.fixture
def live_root(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "prices"
    yield root
    prices.use_live_prices(None)  # later tests see the shipped data only


def test_refresh_writes_a_snapshot_and_prices_become_live(live_root: Path) -> None:
    world = _world()
    seen: list[tuple[int, int]] = []
    with fake_ecs(world) as endpoint:
        result = refresh_prices(
            live_root, _options(endpoint), credential=_key(),
            progress=lambda done, total, _: seen.append((done, total)), now=lambda: _clock("2026-12-01T22:10:00Z"),
        )
    assert result.taken_at == "2026-12-01T22:10:00Z" and result.snapshot.name == "20261201T221000Z"
    assert seen and seen[-1][0] == result.calls and all(done <= total for done, total in seen)
    actions = {action for action, _ in world.calls}
    assert actions == {
        "DescribeInstanceTypes", "DescribeAvailableResource", "DescribePrice", "DescribeSpotPriceHistory"
    }
    # Only types with stock in a region are priced there; the API's wire format carried the query.
    priced = {(q["RegionId"], q["InstanceType"], q["PriceUnit"]) for a, q in world.calls if a == "DescribePrice"}
    assert ("cn-beijing", A10, "Hour") in priced and ("cn-hangzhou", T4, "Hour") not in priced
    assert all(q.get("ResourceType") == "instance" for a, q in world.calls if a == "DescribePrice")
    # The fake returns 2 GPUs for A10_WIDE; the catalog has 1: the refresh reports it, it does not overwrite.
    assert result.catalog_differences == [f"{A10_WIDE}: API GPUAmount 2, catalog 1"]

    prices.use_live_prices(live_root)
    q = price_quotes.quote(A10, "cn-beijing")
    assert q is not None and q.live and q.authority == "live"
    # The instance-only DetailInfo price, not the total with the system disk (7.25 + 0.06).
    assert q.hourly == 7.25 and q.subscription_monthly == 7.25 * 500
    assert q.monthly_basis == "monthly subscription"
    assert q.source_line == "live price from DescribePrice, cn-beijing, as of 2026-12-01T22:10:00Z (pay-as-you-go)"
    # Spot: the latest sample per zone, the cheapest zone shown with its zone.
    assert (q.spot_hourly, q.spot_zone) == (1.6, "cn-beijing-l")
    assert prices.in_stock(T4, "cn-beijing") is True and prices.in_stock(A10_WIDE, "cn-beijing") is False
    assert prices.in_stock(A10, "ap-southeast-1") is None  # not refreshed: unknown, not "sold out"
    assert prices.in_stock("ecs.gn7i-c32g1.8xlarge", "cn-beijing") is None  # not asked about: unknown
    # Live prices rank above the official list in the same region; the shipped rows stay listed.
    assert {p.authority for p in prices.prices_for(A10, "cn-beijing", "pay-as-you-go")} == {"official", "live"}


def test_a_plan_after_refresh_uses_live_prices_and_stock(live_root: Path) -> None:
    with fake_ecs(_world()) as endpoint:
        refresh_prices(live_root, _options(endpoint), credential=_key(), now=lambda: _clock("2026-12-01T22:10:00Z"))
    prices.use_live_prices(live_root)
    plan = plan_deployment(Workload(model="qwen2.5-7b", context=4096, region="cn-beijing"))
    top = plan.options[0]
    assert (top.instance_type, top.price_live, top.price_cny_per_hour) == (A10, True, 7.25)
    assert top.price_source and top.price_source.startswith("live price from DescribePrice, cn-beijing")
    assert top.spot_cny_per_hour == 1.6 and top.subscription_cny_per_month == 3625
    # A refreshed type with stock only in cn-hangzhou is not recommended in cn-beijing;
    # types the refresh did not ask about keep the shipped price list's verdict.
    reasons = {r.instance_type: r.reason.text for r in plan.rejected}
    assert "no zone of cn-beijing has stock" in reasons[A10_WIDE]
    assert "stock" not in reasons.get("ecs.gn7i-c32g1.8xlarge", "")
    assert any("live prices from DescribePrice" in w.text for w in plan.warnings)
    prices.use_live_prices(None)
    offline = plan_deployment(Workload(model="qwen2.5-7b", context=4096, region="cn-beijing"))
    assert not any(o.price_live for o in offline.options)


def test_throttled_calls_are_retried(live_root: Path) -> None:
    world = _world()
    world.throttle_first = {"DescribePrice": 3, "DescribeAvailableResource": 1}
    with fake_ecs(world) as endpoint:
        result = refresh_prices(live_root, _options(endpoint), credential=_key())
    assert result.retries == 4
    assert latest_snapshot(live_root) is not None


def test_throttling_past_the_retries_keeps_the_previous_snapshot(live_root: Path) -> None:
    with fake_ecs(_world()) as endpoint:
        first = refresh_prices(live_root, _options(endpoint), credential=_key(),
                               now=lambda: _clock("2026-12-01T22:10:00Z"))
    world = _world()
    world.throttle_first = {"DescribePrice": 1000}
    with fake_ecs(world) as endpoint, pytest.raises(RefreshError, match="Throttling.User.*previous snapshot"):
        refresh_prices(live_root, _options(endpoint, max_attempts=2), credential=_key(),
                       now=lambda: _clock("2026-12-02T08:00:00Z"))
    assert list_snapshots(live_root) == [first.snapshot]
    assert [p.name for p in live_root.iterdir()] == [first.snapshot.name]  # no half-written directory


def test_half_failed_refresh_leaves_the_previous_snapshot_in_use(live_root: Path) -> None:
    with fake_ecs(_world()) as endpoint:
        first = refresh_prices(live_root, _options(endpoint), credential=_key(),
                               now=lambda: _clock("2026-12-01T22:10:00Z"))
    world = _world()
    world.failing_price_regions = {"cn-hangzhou"}  # cn-beijing succeeds, cn-hangzhou keeps failing
    with fake_ecs(world) as endpoint, pytest.raises(RefreshError, match="cn-hangzhou.*nothing was written"):
        refresh_prices(live_root, _options(endpoint, max_attempts=2), credential=_key(),
                       now=lambda: _clock("2026-12-02T08:00:00Z"))
    assert any(a == "DescribePrice" and q["RegionId"] == "cn-beijing" for a, q in world.calls)
    snapshot = latest_snapshot(live_root)
    assert snapshot is not None and snapshot.path == first.snapshot
    assert snapshot.taken_at == "2026-12-01T22:10:00Z"


def test_wrong_credentials_stop_with_a_clear_error(live_root: Path) -> None:
    world = _world()
    with fake_ecs(world) as endpoint, pytest.raises(CredentialsError) as err:
        refresh_prices(live_root, _options(endpoint), credential=_key("not-a-key"))
    message = str(err.value)
    assert "InvalidAccessKeyId.NotFound" in message and "ALIBABA_CLOUD_ACCESS_KEY_ID" in message
    assert len(world.calls) == 1  # no retries on rejected credentials
    assert not live_root.exists() or not list_snapshots(live_root)


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui", *args], capture_output=True, text=True, env=env, timeout=120)


def _clean_env(home: Path) -> dict[str, str]:
    # The child sees no AccessKey, no profile file and no ECS metadata service unless a test adds one.
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("ALIBABA_CLOUD_", "GPU_ADVISOR_"))}
    return {**keep, "HOME": str(home), "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true",
            "ALIBABA_CLOUD_CLI_PROFILE_DISABLED": "true", "GPU_ADVISOR_DATA_DIR": str(home / "data")}


def test_cli_refresh_uses_the_credential_chain_and_plan_shows_live_prices(tmp_path: Path) -> None:
    env = {**_clean_env(tmp_path), "ALIBABA_CLOUD_ACCESS_KEY_ID": "test-ak", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "s"}
    with fake_ecs(_world()) as endpoint:
        out = _cli(["prices", "refresh", "--region", "cn-beijing", "--instance-type", A10, "--endpoint", endpoint,
                    "--protocol", "http"], env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("live snapshot ") and "prices" in out.stdout
    plan = _cli(["plan", "--model", "qwen2.5-7b", "--region", "cn-beijing"], env)
    assert plan.returncode == 0, plan.stderr
    assert "live price from DescribePrice, cn-beijing, as of" in plan.stdout
    offline = _cli(["plan", "--model", "qwen2.5-7b", "--region", "cn-beijing", "--offline"], env)
    assert "live price" not in offline.stdout and "2024-12-30" in offline.stdout


def test_cli_refresh_without_credentials_says_how_to_set_them(tmp_path: Path) -> None:
    out = _cli(["prices", "refresh", "--region", "cn-beijing", "--endpoint", "127.0.0.1:9", "--protocol", "http"],
               _clean_env(tmp_path))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "no Alibaba Cloud credentials found" in lines[0]
    assert "ALIBABA_CLOUD_ACCESS_KEY_ID" in lines[0] and "Traceback" not in out.stderr


def test_a_damaged_snapshot_is_skipped_for_the_previous_valid_one(live_root: Path) -> None:
    with fake_ecs(_world()) as endpoint:
        first = refresh_prices(live_root, _options(endpoint), credential=_key(),
                               now=lambda: _clock("2026-12-01T22:10:00Z"))
        second = refresh_prices(live_root, _options(endpoint), credential=_key(),
                                now=lambda: _clock("2026-12-02T08:00:00Z"))
    assert latest_snapshot(live_root).path == second.snapshot  # type: ignore[union-attr]
    prices_file = second.snapshot / "prices.csv"
    prices_file.write_text(prices_file.read_text(encoding="utf-8").replace(",CNY,", ",RMB,"), encoding="utf-8")
    snapshot = latest_snapshot(live_root)
    assert snapshot is not None and snapshot.path == first.snapshot
