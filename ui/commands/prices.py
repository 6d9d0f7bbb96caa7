"""``gpu-advisor prices ...``: look prices up by region and billing mode, compare regions, refresh live.

``show`` and ``compare`` read the shipped price list plus the newest live snapshot (``--offline``: the
shipped list only). ``refresh`` calls Alibaba Cloud's ECS OpenAPI with the standard credential chain and
writes a dated snapshot under ``$GPU_ADVISOR_DATA_DIR/prices``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

_BILLINGS = ("pay-as-you-go", "subscription-monthly", "spot")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``prices`` command group."""
    p = sub.add_parser("prices", help="GPU instance prices by region and billing mode; live refresh")
    group = p.add_subparsers(dest="prices_command", metavar="ACTION", required=True)
    show = group.add_parser("show", help="every known price of an instance type, with its source and date")
    show.add_argument("instance_type", help="e.g. ecs.gn7i-c8g1.2xlarge or gn7i-c8g1.2xlarge")
    show.add_argument("--region", help="only this region, e.g. cn-beijing")
    _common(show)
    show.set_defaults(handler=_show)
    compare = group.add_parser("compare", help="the same instance type across regions, cheapest first")
    compare.add_argument("instance_type")
    compare.add_argument("--billing", choices=_BILLINGS, default="pay-as-you-go")
    _common(compare)
    compare.set_defaults(handler=_compare)
    refresh = group.add_parser(
        "refresh",
        help="fetch current prices and stock from Alibaba Cloud (needs an AccessKey)",
        description="Calls DescribeInstanceTypes, DescribeAvailableResource, DescribePrice and "
        "DescribeSpotPriceHistory with the standard Alibaba credential chain "
        "(ALIBABA_CLOUD_ACCESS_KEY_ID/_SECRET, profile files, RAM role) and writes a dated snapshot; "
        "a refresh that fails leaves the previous snapshot in use.",
    )
    refresh.add_argument("--region", action="append", dest="regions", help="repeatable; default: every priced region")
    refresh.add_argument("--instance-type", action="append", dest="instance_types", help="repeatable; default: all")
    refresh.add_argument("--endpoint", help="host[:port] instead of ecs.<region>.aliyuncs.com")
    refresh.add_argument("--protocol", choices=("https", "http"), default="https")
    refresh.add_argument("--concurrency", type=int, default=4, help="API calls in flight at once (1-32)")
    refresh.add_argument("--no-subscription", action="store_true", help="skip monthly subscription prices")
    refresh.add_argument("--no-spot", action="store_true", help="skip spot price history")
    refresh.add_argument("--json", action="store_true", help="print the result as JSON")
    refresh.set_defaults(handler=_refresh)
    status = group.add_parser("status", help="which live snapshot is in use, if any")
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=_status, offline=False)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--offline", action="store_true", help="ignore live snapshots; shipped price list only")
    p.add_argument("--json", action="store_true", help="print JSON")


def use_price_sources(offline: bool) -> None:
    """Point price lookups at the live snapshots of the configured data directory (unless ``offline``)."""
    from tools import prices

    if offline or not _snapshot_possible():
        # Without a snapshot the shipped list is all there is, whatever the settings say; building them
        # (pydantic-settings, ~0.1 s) would only slow a cold `plan` down.
        prices.use_live_prices(None)
        return
    from assistant.settings import Settings
    from tools.price_snapshot import snapshot_root

    settings = Settings()
    prices.use_live_prices(None if settings.prices_offline else snapshot_root(settings.data_dir))


_DATA_DIR_VARIABLE = "GPU_ADVISOR_DATA_DIR"  # Settings.data_dir's variable
_SNAPSHOTS_DIR = "prices"  # under the data directory, as tools.price_snapshot.snapshot_root puts them


def _snapshot_possible() -> bool:
    """Tell whether any data directory the settings could name holds a live snapshot.

    A cheap over-approximation of ``Settings().data_dir``: the directory variable in any letter case (as
    pydantic-settings matches it), else the default directory; a ``.env`` file may name another one, so it
    always answers yes. Where it says yes, Settings decides as before.
    """
    if Path(".env").exists():
        return True
    named = [Path(v) for k, v in os.environ.items() if k.upper() == _DATA_DIR_VARIABLE and v]
    # A bare directory test (tools.price_snapshot.snapshot_root; a test keeps the two in step): importing
    # that module only to list snapshot names would cost more than the rare false yes.
    return any((d / _SNAPSHOTS_DIR).is_dir() for d in named or [default_data_dir()])


def default_data_dir() -> Path:
    """Return the data directory used when none is configured (the default of ``Settings.data_dir``)."""
    from tools.user_dirs import user_data_dir

    return user_data_dir()


def _show(args: argparse.Namespace) -> int:
    from tools import prices

    use_price_sources(args.offline)
    rows = prices.prices_for(args.instance_type, args.region)
    if args.json:
        import json

        print(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False))
        return 0
    if not rows:
        where = f" in {args.region}" if args.region else ""
        print(f"no price known for {args.instance_type}{where}")
        return 0
    for r in rows:
        best = r.exact_region and prices.best_price(r.instance_type, r.region, r.billing) == r
        unit = "h" if r.unit == "per hour" else "month" if r.unit == "per month" else "year"
        mark = "*" if best else " "
        amount = f"¥{r.price:,.4f}" if unit == "h" else f"¥{r.price:,.2f}"
        print(f"{mark} {r.region:<14} {r.billing:<24} {amount}/{unit:<5}  {r.authority:<11} {r.as_of}")
    print("* = the price tools use for that region and billing mode (most authoritative, then newest)")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from tools import price_quotes

    use_price_sources(args.offline)
    result = price_quotes.compare_regions(args.instance_type, args.billing)
    if args.json:
        print(result.model_dump_json())
        return 0
    if result.cheapest is None:
        print(f"no region lists {result.instance_type} under {args.billing}")
        return 0
    unit = "month" if args.billing == "subscription-monthly" else "h"
    for r in result.regions:
        print(f"{r.region:<16} ¥{r.price_cny:,.4f}/{unit}  {r.authority:<9} as of {r.as_of}")
    c = result.cheapest
    print(f"cheapest: {c.region} at ¥{c.price_cny:,.4f}/{unit} ({args.billing}, {c.authority}, as of {c.as_of}) "
          f"of {len(result.regions)} region(s)")
    return 0


def _refresh(args: argparse.Namespace) -> int:
    from assistant.settings import Settings
    from tools.price_refresh import RefreshOptions, default_regions, refresh_prices
    from tools.price_snapshot import snapshot_root

    options = RefreshOptions(
        regions=args.regions or default_regions(), instance_types=args.instance_types, endpoint=args.endpoint,
        protocol=args.protocol, concurrency=max(1, min(args.concurrency, 32)),
        subscription=not args.no_subscription, spot=not args.no_spot,
    )
    root = snapshot_root(Settings().data_dir)
    with _RefreshProgress() as report:
        result = refresh_prices(root, options, progress=report)
    if args.json:
        print(result.model_dump_json())
        return 0
    print(f"live snapshot {result.taken_at}: {result.prices} prices, {result.availability} zone stock rows, "
          f"{result.calls} API calls ({result.retries} retried) -> {result.snapshot}")
    for line in result.catalog_differences:
        print(f"  catalog check: {line}")
    return 0


def _status(args: argparse.Namespace) -> int:
    from assistant.settings import Settings
    from tools.price_snapshot import latest_snapshot, list_snapshots, snapshot_root

    root = snapshot_root(Settings().data_dir)
    latest = latest_snapshot(root)
    info: dict[str, Any] = {
        "snapshot_dir": str(root),
        "snapshots": len(list_snapshots(root)),
        "in_use": latest.taken_at if latest else None,
        "prices": len(latest.prices) if latest else 0,
    }
    if args.json:
        import json

        print(json.dumps(info))
    elif latest is None:
        print(f"no live snapshot under {root}; tools use the shipped price list")
    else:
        print(f"live snapshot in use: {latest.taken_at} ({info['prices']} prices) in {latest.path}")
    return 0


class _RefreshProgress:
    """A progress bar on a terminal, log lines otherwise; the total grows as regions reveal their types."""

    def __enter__(self) -> Any:
        from rich.progress import Progress

        self._bar = Progress(disable=not sys.stderr.isatty(), transient=True)
        self._bar.start()
        self._task = self._bar.add_task("refreshing prices", total=None)

        def report(done: int, total: int, label: str) -> None:
            self._bar.update(self._task, completed=done, total=max(total, done), description=label[:48])

        return report

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()
