"""``gpu-advisor prices refresh``: current prices and stock from Alibaba Cloud's own ECS OpenAPI.

Calls, with the official SDK (``alibabacloud_ecs20140526``, imported only here and only when a refresh
runs, so ``tools`` imports without it):

* ``DescribeInstanceTypes`` once: GPU spec, count and memory per GPU, compared with the catalog;
* per region ``DescribeAvailableResource``: which zones have stock of which instance type;
* per region and type sold there ``DescribePrice`` for pay-as-you-go (``PriceUnit=Hour``) and a
  one-month subscription (``PriceUnit=Month``), reading the instance-only ``DetailInfos`` entry
  (``Resource == "instanceType"``), not the disk-inclusive total;
* per region and type ``DescribeSpotPriceHistory``: the latest spot price per zone.

Credentials come from the standard Alibaba credential chain (``ALIBABA_CLOUD_ACCESS_KEY_ID`` /
``ALIBABA_CLOUD_ACCESS_KEY_SECRET``, the profile files, a RAM role) unless one is passed in. Calls run
with bounded concurrency and retry on throttling and server errors with backoff. The snapshot is written
only when every call succeeded (:func:`tools.price_snapshot.write_snapshot`); any other failure raises
:class:`RefreshError` and the previous snapshot stays in use.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog, prices
from tools.errors import ToolInputError
from tools.price_snapshot import Availability, write_snapshot
from tools.prices import Price

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
"""Called after each API call: (done, total so far, what was just done)."""

# Errors that mean "this type is not sold like this here": skip the row, not a failure.
_NOT_SOLD = (
    "InvalidInstanceType.ValueNotSupported",
    "InvalidInstanceType.NotFound",
    "PriceNotFound",
    "InvalidResourceType.NotSupported",
    "InvalidParam.Period",
)
_BAD_CREDENTIALS = (
    "InvalidAccessKeyId.NotFound",
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "InvalidAccessKeySecret",
    "Forbidden.AccessKeyDisabled",
    "IncompleteSignature",
)
_CREDENTIAL_HELP = (
    "set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET, or configure a profile in "
    "~/.alibabacloud/credentials.ini or ~/.aliyun/config.json, or run on an ECS instance with a RAM role"
)


class RefreshError(ToolInputError):
    """The refresh stopped; the message says why and what to do. No snapshot was written."""


class CredentialsError(RefreshError):
    """No usable Alibaba Cloud credentials, or Alibaba Cloud rejected them."""


class RefreshOptions(BaseModel):
    """What to refresh and how hard to push the API."""

    model_config = ConfigDict(extra="forbid")

    regions: list[str] = Field(min_length=1, description="region ids to price")
    instance_types: list[str] | None = Field(
        default=None, description="only these types; None = every current GPU type of the catalog"
    )
    endpoint: str | None = Field(default=None, description="host[:port] instead of ecs.<region>.aliyuncs.com")
    protocol: Literal["https", "http"] = "https"
    concurrency: int = Field(default=4, ge=1, le=32, description="API calls in flight at once")
    max_attempts: int = Field(default=5, ge=1, le=10, description="tries per call on throttling/5xx")
    backoff_s: float = Field(default=1.0, ge=0, description="first retry delay; doubles each retry")
    subscription: bool = True
    spot: bool = True


class RefreshResult(BaseModel):
    """What a completed refresh wrote."""

    model_config = ConfigDict(extra="forbid")

    snapshot: Path
    taken_at: str
    prices: int
    availability: int
    calls: int
    retries: int
    catalog_differences: list[str] = Field(
        default_factory=lambda: [], description="where DescribeInstanceTypes disagrees with the catalog"
    )


class _Api:
    """The SDK clients (one per region), with retries and error translation."""

    def __init__(self, options: RefreshOptions, credential: Any | None, progress: Progress | None) -> None:
        from alibabacloud_ecs20140526.client import Client
        from alibabacloud_tea_openapi.models import Config

        self._options = options
        self._credential = credential or _default_credential()
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._progress = progress
        self._client_class, self._config_class = Client, Config
        self.calls = 0
        self.retries = 0
        self.total = 0

    def client(self, region: str) -> Any:
        with self._lock:
            if region not in self._clients:
                config = self._config_class(
                    credential=self._credential,
                    region_id=region,
                    protocol=self._options.protocol,
                    endpoint=self._options.endpoint or f"ecs.{region}.aliyuncs.com",
                    read_timeout=30_000,
                    connect_timeout=10_000,
                )
                self._clients[region] = self._client_class(config)
            return self._clients[region]

    def expect(self, calls: int) -> None:
        with self._lock:
            self.total += calls

    def call(self, region: str, action: str, request: Any, label: str) -> dict[str, Any] | None:
        """Run one API call; None when the type is not sold that way (a skipped row)."""
        from alibabacloud_tea_util.models import RuntimeOptions

        method = getattr(self.client(region), _snake(action) + "_with_options")
        delay = self._options.backoff_s
        for attempt in range(1, self._options.max_attempts + 1):
            try:
                body = method(request, RuntimeOptions(autoretry=False)).body.to_map()
                self._done(label)
                return dict(body)
            except Exception as exc:  # the SDK raises several unrelated types; sorted out below
                code = str(getattr(exc, "code", "") or "")
                if code in _NOT_SOLD:
                    self._done(label)
                    return None
                if _is_credential_problem(exc, code):
                    raise CredentialsError(
                        f"Alibaba Cloud rejected the credentials ({code or exc}): {_CREDENTIAL_HELP}"
                    ) from None
                if not _retryable(exc, code) or attempt == self._options.max_attempts:
                    raise RefreshError(
                        f"{action} failed for {label} after {attempt} attempt(s): {code or type(exc).__name__}: "
                        f"{_short(exc)}; nothing was written, the previous snapshot stays in use"
                    ) from None
                with self._lock:
                    self.retries += 1
                log.info("%s %s: %s, retry %d in %.1fs", action, label, code or exc, attempt, delay)
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _done(self, label: str) -> None:
        with self._lock:
            self.calls += 1
            done, total = self.calls, self.total
        if self._progress:
            self._progress(done, total, label)


def _default_credential() -> Any:
    from alibabacloud_credentials.client import Client as CredentialClient

    try:
        credential = CredentialClient()
        credential.get_credential()
    except Exception as exc:  # CredentialException, or a provider's own error
        raise CredentialsError(f"no Alibaba Cloud credentials found: {_CREDENTIAL_HELP}") from exc
    return credential


def _snake(action: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in action).lstrip("_")


def _short(exc: BaseException) -> str:
    text = str(getattr(exc, "message", "") or exc)
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _is_credential_problem(exc: BaseException, code: str) -> bool:
    return code in _BAD_CREDENTIALS or type(exc).__name__ == "CredentialException"


def _retryable(exc: BaseException, code: str) -> bool:
    name = type(exc).__name__
    if name in ("ThrottlingException", "ServerException") or code.startswith("Throttling"):
        return True
    if code in ("ServiceUnavailable", "InternalError", "UnknownError"):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status >= 500:
        return True
    # Connection resets and timeouts come as requests/aiohttp/darabonba errors without a code.
    return not code and name not in ("ClientException", "ValidateException")


# ---------------------------------------------------------------------------------------------- the refresh


def default_instance_types() -> list[str]:
    """List the current GPU instance types of the catalog (whole GPUs, not retired), the default refresh set."""
    return [i.instance_type for i in catalog.list_instances() if isinstance(i.gpu_count, int) and i.gpu_count >= 1]


def default_regions() -> list[str]:
    """List the regions that have prices in the shipped data, the default refresh set."""
    return [p for p in dict.fromkeys(r.region for r in prices.load_shipped_prices() if r.exact_region)]


def refresh_prices(
    root: Path,
    options: RefreshOptions,
    credential: Any | None = None,
    progress: Progress | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RefreshResult:
    """Fetch current prices and stock for ``options.regions`` and write them as a dated snapshot.

    Args:
        root: directory that holds the snapshots (``<data dir>/prices``).
        options: regions, types, endpoint and limits.
        credential: an ``alibabacloud_credentials`` client; None = the standard credential chain.
        progress: called after every API call.
        now: the clock (tests pin it).

    Raises:
        CredentialsError: no credentials, or Alibaba Cloud rejected them.
        RefreshError: a call kept failing (throttled past the retries, server errors, unreachable
            endpoint) or the SDK is missing; the previous snapshot is untouched.
    """
    try:
        import alibabacloud_ecs20140526  # noqa: F401 - fail early with the install hint
    except ImportError:
        raise RefreshError("the Alibaba Cloud SDK is not installed: pip install 'gpu-advisor[alibaba]'") from None
    wanted = set(options.instance_types or default_instance_types())
    taken_at = now().strftime("%Y-%m-%dT%H:%M:%SZ")
    api = _Api(options, credential, progress)
    api.expect(1 + len(options.regions))
    differences = _check_catalog(api, options.regions[0], wanted)
    with ThreadPoolExecutor(max_workers=options.concurrency) as pool:
        stock = dict(
            zip(options.regions, pool.map(lambda r: _stock(api, r, wanted, taken_at), options.regions), strict=True)
        )
        jobs = [(region, name) for region, rows in stock.items() for name in sorted({a.instance_type for a in rows})]
        per_job = 1 + int(options.subscription) + int(options.spot)
        api.expect(per_job * len(jobs))
        found = list(pool.map(lambda job: _price_rows(api, options, job[0], job[1], taken_at), jobs))
    rows = [p for group in found for p in group]
    availability = [a for group in stock.values() for a in group]
    path = write_snapshot(root, taken_at, rows, availability)
    return RefreshResult(
        snapshot=path,
        taken_at=taken_at,
        prices=len(rows),
        availability=len(availability),
        calls=api.calls,
        retries=api.retries,
        catalog_differences=differences,
    )


def _check_catalog(api: _Api, region: str, wanted: set[str]) -> list[str]:
    """DescribeInstanceTypes for the wanted types; list where the API and the catalog disagree."""
    from alibabacloud_ecs20140526 import models

    names = sorted(wanted)
    seen: dict[str, dict[str, Any]] = {}
    for start in range(0, len(names), 10):  # the API takes at most 10 InstanceTypes.N
        request = models.DescribeInstanceTypesRequest(instance_types=names[start : start + 10], max_results=100)
        if start:
            api.expect(1)
        body = api.call(region, "DescribeInstanceTypes", request, f"instance types {start + 1}-")
        for row in ((body or {}).get("InstanceTypes") or {}).get("InstanceType") or []:
            seen[row["InstanceTypeId"]] = row
    return [d for name in names for d in _differences(name, seen.get(name))]


def _differences(name: str, row: dict[str, Any] | None) -> Iterable[str]:
    if row is None:
        return [f"{name}: not returned by DescribeInstanceTypes (retired or renamed?)"]
    inst = catalog.get_instance(name)
    out = []
    if row.get("GPUAmount") is not None and inst.gpu_count is not None and row["GPUAmount"] != inst.gpu_count:
        out.append(f"{name}: API GPUAmount {row['GPUAmount']}, catalog {inst.gpu_count}")
    memory = row.get("GPUMemorySize")
    if memory and inst.gpu_memory_gib and abs(float(memory) - inst.gpu_memory_gib) > 1.5:
        out.append(f"{name}: API GPUMemorySize {memory} GiB, catalog {inst.gpu_memory_gib} GiB")
    return out


def _stock(api: _Api, region: str, wanted: set[str], taken_at: str) -> list[Availability]:
    from alibabacloud_ecs20140526 import models

    request = models.DescribeAvailableResourceRequest(
        region_id=region, destination_resource="InstanceType", instance_charge_type="PostPaid"
    )
    body = api.call(region, "DescribeAvailableResource", request, f"{region} stock") or {}
    out = []
    for zone in (body.get("AvailableZones") or {}).get("AvailableZone") or []:
        for resource in (zone.get("AvailableResources") or {}).get("AvailableResource") or []:
            for item in (resource.get("SupportedResources") or {}).get("SupportedResource") or []:
                if item.get("Value") in wanted and item.get("StatusCategory"):
                    out.append(
                        Availability(
                            region=region,
                            zone=zone["ZoneId"],
                            instance_type=item["Value"],
                            status=item["StatusCategory"],
                            as_of=taken_at,
                            source="DescribeAvailableResource",
                        )
                    )
    return out


def _price_rows(api: _Api, options: RefreshOptions, region: str, name: str, taken_at: str) -> list[Price]:
    rows = []
    for billing, unit in (("pay-as-you-go", "Hour"), ("subscription-monthly", "Month")):
        if billing == "subscription-monthly" and not options.subscription:
            continue
        amount = _describe_price(api, region, name, unit)
        if amount is not None:
            rows.append(_live_row(name, region, None, billing, amount, taken_at, "DescribePrice"))
    if options.spot:
        for zone, amount in _spot_prices(api, region, name).items():
            rows.append(_live_row(name, region, zone, "spot", amount, taken_at, "DescribeSpotPriceHistory"))
    return rows


def _describe_price(api: _Api, region: str, name: str, unit: str) -> float | None:
    """Return the instance-only trade price (the ``instanceType`` DetailInfo), not the disk-inclusive total."""
    from alibabacloud_ecs20140526 import models

    request = models.DescribePriceRequest(
        region_id=region,
        resource_type="instance",
        instance_type=name,
        price_unit=unit,
        period=1,
        amount=1,
    )
    body = api.call(region, "DescribePrice", request, f"{region} {name} {unit.lower()}")
    if body is None:
        return None
    price = (body.get("PriceInfo") or {}).get("Price") or {}
    if price.get("Currency") not in (None, "CNY"):
        raise RefreshError(
            f"DescribePrice returned {price.get('Currency')} prices; only the China site (CNY) is supported"
        )
    for detail in (price.get("DetailInfos") or {}).get("DetailInfo") or []:
        if str(detail.get("Resource", "")).lower() == "instancetype" and detail.get("TradePrice"):
            return float(detail["TradePrice"])
    return None


def _spot_prices(api: _Api, region: str, name: str) -> dict[str, float]:
    """Return the latest spot price per zone from DescribeSpotPriceHistory."""
    from alibabacloud_ecs20140526 import models

    request = models.DescribeSpotPriceHistoryRequest(
        region_id=region, network_type="vpc", instance_type=name, ostype="linux"
    )
    body = api.call(region, "DescribeSpotPriceHistory", request, f"{region} {name} spot") or {}
    latest: dict[str, tuple[str, float]] = {}
    for sample in (body.get("SpotPrices") or {}).get("SpotPriceType") or []:
        zone, stamp, value = sample.get("ZoneId"), sample.get("Timestamp", ""), sample.get("SpotPrice")
        if zone and value and (zone not in latest or stamp > latest[zone][0]):
            latest[zone] = (stamp, float(value))
    return {zone: value for zone, (_, value) in latest.items()}


def _live_row(name: str, region: str, zone: str | None, billing: str, amount: float, taken_at: str, call: str) -> Price:
    unit = "per month" if billing == "subscription-monthly" else "per hour"
    return Price.model_validate(
        {
            "instance_type": name,
            "region": region,
            "zone": zone,
            "billing": billing,
            "price": round(amount, 4),
            "unit": unit,
            "currency": "CNY",
            "as_of": taken_at,
            "authority": "live",
            "source": call,
            "notes": f"{call} with the user's AccessKey; instance only (the instanceType entry), after the "
            "account's discounts"
            if call == "DescribePrice"
            else f"{call}: latest sample for the zone",
        }
    )
