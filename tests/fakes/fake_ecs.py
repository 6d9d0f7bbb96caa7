"""A loopback fake of the ECS OpenAPI (2014-05-26) speaking the wire format the official SDK uses.

RPC style: ``POST /`` with every parameter in the query string (lists flattened as ``Name.1``), the
action in the ``x-acs-action`` header (``Action`` query parameter as a fallback), JSON bodies, and JSON
error bodies with ``Code``/``Message``/``RequestId`` and a 4xx/5xx status. The shapes follow
``shared/reference/alibaba_openapi.md`` §3; the values are the test's own (a :class:`EcsWorld`).

Scripted failures: throttling for the first N calls of an action, a region whose DescribePrice
fails with a server error, and AccessKeys the fake does not know.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlparse

from fakes.loopback import JsonHandler, serve


@dataclass
class FakeType:
    """One instance type as DescribeInstanceTypes returns it."""

    name: str
    gpu_spec: str
    gpu_amount: int
    gpu_memory_gib: float
    cpu: int = 16
    memory_gib: float = 64.0


@dataclass
class EcsWorld:
    """What the fake cloud sells, and the failures it is told to produce."""

    types: list[FakeType]
    # region -> zone -> instance types in stock there
    stock: dict[str, dict[str, list[str]]]
    # (region, instance type) -> hourly pay-as-you-go trade price; monthly = hourly x 500 in the fake
    hourly: dict[tuple[str, str], float]
    # (region, zone, instance type) -> spot price
    spot: dict[tuple[str, str, str], float] = field(default_factory=dict)
    access_keys: set[str] = field(default_factory=lambda: {"test-ak"})
    throttle_first: dict[str, int] = field(default_factory=dict)
    failing_price_regions: set[str] = field(default_factory=set)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seen: dict[str, int] = field(default_factory=dict)

    def record(self, action: str, query: dict[str, str]) -> int:
        """Log a call; return how many calls of ``action`` came before it."""
        with self._lock:
            self.calls.append((action, query))
            before = self._seen.get(action, 0)
            self._seen[action] = before + 1
            return before


_ids = itertools.count(1)


def _error(handler: JsonHandler, status: int, code: str, message: str) -> None:
    handler.send_json(
        status,
        {"RequestId": f"req-{next(_ids)}", "HostId": "ecs.aliyuncs.com", "Code": code, "Message": message,
         "Recommend": "https://api.aliyun.com/troubleshoot"},
    )


def _access_key(headers: Any, query: dict[str, str]) -> str | None:
    # ACS3-HMAC-SHA256: "Authorization: ACS3-HMAC-SHA256 Credential=<AK>,SignedHeaders=...";
    # signature v2 puts AccessKeyId in the query.
    match = re.search(r"Credential=([^,\s]+)", headers.get("Authorization") or "")
    return match.group(1) if match else query.get("AccessKeyId")


def make_handler(world: EcsWorld) -> type[JsonHandler]:
    """A request handler class serving ``world``."""

    class Handler(JsonHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            self._dispatch()

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self._dispatch()

        def _dispatch(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            query = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
            action = self.headers.get("x-acs-action") or query.get("Action") or ""
            before = world.record(action, query)
            if _access_key(self.headers, query) not in world.access_keys:
                _error(self, 404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.")
                return
            if before < world.throttle_first.get(action, 0):
                _error(self, 400, "Throttling.User", "Request was denied due to user flow control.")
                return
            reply = {
                "DescribeInstanceTypes": self._instance_types,
                "DescribeAvailableResource": self._available,
                "DescribePrice": self._price,
                "DescribeSpotPriceHistory": self._spot,
            }.get(action)
            if reply is None:
                _error(self, 400, "InvalidAction.NotFound", f"Specified api {action} is not found.")
                return
            reply(query)

        def _instance_types(self, query: dict[str, str]) -> None:
            wanted = {v for k, v in query.items() if k.startswith("InstanceTypes.")}
            rows = [
                {"InstanceTypeId": t.name, "InstanceTypeFamily": t.name.rsplit(".", 1)[0].split("-")[0],
                 "CpuCoreCount": t.cpu, "MemorySize": t.memory_gib, "GPUAmount": t.gpu_amount,
                 "GPUSpec": t.gpu_spec, "GPUMemorySize": t.gpu_memory_gib,
                 "InstanceCategory": "Compute-optimized with GPU", "CpuArchitecture": "X86"}
                for t in world.types
                if not wanted or t.name in wanted
            ]
            self.send_json(200, {"RequestId": f"req-{next(_ids)}", "NextToken": "",
                                 "InstanceTypes": {"InstanceType": rows}})

        def _available(self, query: dict[str, str]) -> None:
            region = query.get("RegionId", "")
            zones = []
            for zone, types in world.stock.get(region, {}).items():
                resources = [{"Value": t, "Status": "Available", "StatusCategory": "WithStock"} for t in types]
                zones.append({
                    "RegionId": region, "ZoneId": zone, "Status": "Available", "StatusCategory": "WithStock",
                    "AvailableResources": {"AvailableResource": [
                        {"Type": "InstanceType", "SupportedResources": {"SupportedResource": resources}}]},
                })
            self.send_json(200, {"RequestId": f"req-{next(_ids)}", "AvailableZones": {"AvailableZone": zones}})

        def _price(self, query: dict[str, str]) -> None:
            region, name = query.get("RegionId", ""), query.get("InstanceType", "")
            if region in world.failing_price_regions:
                _error(self, 503, "ServiceUnavailable", "The request has failed due to a temporary failure.")
                return
            hourly = world.hourly.get((region, name))
            if hourly is None:
                _error(self, 400, "InvalidInstanceType.ValueNotSupported", f"{name} is not sold in {region}.")
                return
            amount = hourly * 500 if query.get("PriceUnit") == "Month" else hourly
            disk = 30.0 if query.get("PriceUnit") == "Month" else 0.06
            detail = [
                {"Resource": "instanceType", "OriginalPrice": amount, "DiscountPrice": 0.0, "TradePrice": amount},
                {"Resource": "systemDisk", "OriginalPrice": disk, "DiscountPrice": 0.0, "TradePrice": disk},
            ]
            total = round(amount + disk, 4)
            self.send_json(200, {
                "RequestId": f"req-{next(_ids)}",
                "PriceInfo": {
                    "Price": {"Currency": "CNY", "OriginalPrice": total, "DiscountPrice": 0.0, "TradePrice": total,
                              "DetailInfos": {"DetailInfo": detail}},
                    "Rules": {"Rule": []},
                },
            })

        def _spot(self, query: dict[str, str]) -> None:
            region, name = query.get("RegionId", ""), query.get("InstanceType", "")
            samples = []
            for (r, zone, t), price in world.spot.items():
                if r == region and t == name:
                    # Two samples per zone; clients keep the latest.
                    for stamp, value in (("2026-11-30T20:00:00Z", price * 1.5), ("2026-12-01T20:00:00Z", price)):
                        samples.append({"IoOptimized": "optimized", "ZoneId": zone, "SpotPrice": value,
                                        "Timestamp": stamp, "NetworkType": "vpc", "InstanceType": t,
                                        "OriginPrice": world.hourly.get((r, t), price * 5)})
            self.send_json(200, {"RequestId": f"req-{next(_ids)}", "Currency": "CNY", "NextOffset": 0,
                                 "SpotPrices": {"SpotPriceType": samples}})

    return Handler


@contextmanager
def fake_ecs(world: EcsWorld) -> Iterator[str]:
    """Serve ``world`` on 127.0.0.1; yield ``host:port`` for ``Config(endpoint=..., protocol='http')``."""
    with serve(make_handler(world)) as url:
        yield url.removeprefix("http://")
