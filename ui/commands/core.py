"""``estimate``, ``plan``, ``instances``, ``gpus``, ``models``: the computing core on the command line.

External scripts rely on these flag names and on the ``--json`` shapes; human output is tables.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ui.commands import media

_TASKS = ("inference", "full", "lora", "qlora")
_PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
_OPTIMIZERS = ("adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd")
_QUANTS = ("none", "gptq-int4", "gptq-int8", "awq-int4", "bnb-nf4", "bnb-int8", "fp8")
_FRAMEWORKS = ("transformers", "vllm", "sglang", "tensorrt-llm", "deepspeed", "torchtune", "peft")
_BILLINGS = ("pay-as-you-go", "subscription", "spot")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the core subcommands."""
    register_estimate(sub)
    register_plan(sub)
    p = sub.add_parser("instances", help="Alibaba Cloud GPU instance types")
    p.add_argument("--family", help="e.g. gn7i, gn8is, ebmgn7ex")
    p.add_argument("--gpu", help="e.g. A10, L20, A100-80GB")
    p.add_argument("--min-gpu-memory", type=_non_negative, dest="min_gpu_memory_gib", help="GiB per GPU")
    p.add_argument("--include-retired", action="store_true")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=_instances)
    p = sub.add_parser("gpus", help="GPU spec-sheet figures")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=_gpus)
    p = sub.add_parser("models", help="model architectures the advisor knows")
    p.add_argument("--family", help="e.g. Qwen2.5, Llama 3.1")
    p.add_argument("--kind", choices=("llm", "media"), default="llm",
                   help="llm: text LLMs (default); media: image/video, vision-language, speech, embedding models")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(handler=_models)


def register_estimate(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``estimate`` alone (``gpu-advisor estimate`` builds no other parser)."""
    p = sub.add_parser("estimate", help="GPU memory per GPU, term by term")
    p.add_argument("--model", help="registry name, alias, or path to a config.json")
    p.add_argument("--task", choices=_TASKS, default="inference")
    p.add_argument("--precision", choices=_PRECISIONS, default="bf16")
    p.add_argument("--quant", choices=_QUANTS, default="none")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--prompt-tokens", type=int)
    p.add_argument("--gen-tokens", type=int)
    p.add_argument("--seq-len", type=int)
    p.add_argument("--framework", choices=_FRAMEWORKS, default="transformers", help="software stack")
    p.add_argument("--framework-version", help="stack version, e.g. 4.38.2 (older versions allocate differently)")
    p.add_argument("--gpus", type=int, default=1)
    p.add_argument("--zero", type=int, choices=(0, 1, 2, 3), default=0)
    p.add_argument("--grad-ckpt", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--optimizer", choices=_OPTIMIZERS, default="adamw")
    p.add_argument("--gpu-memory", type=float, dest="gpu_memory_gib", help="GiB per GPU, for the vLLM view")
    p.add_argument("--from", dest="from_file", help="JSONL file, one request per line; prints JSONL")
    p.add_argument("--json", action="store_true", help="print JSON")
    media.add_estimate_flags(p)
    p.set_defaults(handler=_estimate)


def register_plan(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``plan`` alone (``gpu-advisor plan`` builds no other parser)."""
    p = sub.add_parser("plan", help="ranked instance options for a workload, with speed and cost")
    p.add_argument("--model", required=True, help="registry name, alias, or path to a config.json")
    p.add_argument("--task", choices=_TASKS, default="inference")
    p.add_argument("--precision", choices=_PRECISIONS, default="bf16")
    p.add_argument("--quant", choices=_QUANTS, default="none")
    p.add_argument("--context", type=int, help="inference tokens per sequence (prompt + output)")
    p.add_argument("--gen-tokens", type=int, help="inference output tokens per request")
    p.add_argument("--concurrency", type=int, help="sequences served at once")
    p.add_argument("--qps", type=float, help="requests per second to sustain")
    p.add_argument("--batch", type=int, help="training micro-batch per GPU")
    p.add_argument("--seq-len", type=int, help="training sequence length")
    p.add_argument("--train-tokens", type=float, help="tokens to train on, e.g. 1e9")
    p.add_argument("--budget-cny-month", type=float)
    p.add_argument("--min-tokens-per-s-per-stream", type=float, help="each user's decode speed at least, tokens/s")
    p.add_argument("--max-ttft-s", type=float, help="time to first token at most, seconds")
    p.add_argument("--min-tokens-per-s-total", type=float, help="all users' output tokens/s together at least")
    p.add_argument(
        "--region", help="price and stock in this region, e.g. cn-shanghai; 'any' = each option's cheapest region"
    )
    p.add_argument(
        "--billing", choices=_BILLINGS, default="pay-as-you-go",
        help="the price that ranks options; the others are shown beside it",
    )
    p.add_argument("--offline", action="store_true", help="ignore live price snapshots (prices refresh)")
    p.add_argument("--gpu", help="only instances with this GPU, e.g. L20")
    p.add_argument("--max-options", type=int, default=5)
    p.add_argument("--include-retired", action="store_true")
    p.add_argument("--framework", choices=_FRAMEWORKS, help="stack (default: vllm to serve, transformers to train)")
    p.add_argument("--framework-version", help="stack version, e.g. 0.6.5")
    p.add_argument("--json", action="store_true", help="print JSON")
    media.add_plan_flags(p)
    p.set_defaults(handler=_plan)


def _non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _dump(obj: Any) -> str:
    from pydantic import BaseModel

    if isinstance(obj, BaseModel):
        return obj.model_dump_json()
    import json  # here: a plan prints its JSON with pydantic, its tables without json (~0.5% of a cold start)

    if isinstance(obj, list):
        return json.dumps([o.model_dump(mode="json") if isinstance(o, BaseModel) else o for o in obj])
    return json.dumps(obj)


_ESTIMATE_KEYS = (
    "model", "task", "precision", "quant", "batch", "prompt_tokens", "gen_tokens", "seq_len", "framework",
    "framework_version", "gpus", "zero", "grad_ckpt", "lora_r", "optimizer", "gpu_memory_gib",
)


def _estimate(args: argparse.Namespace) -> int:
    from tools.memory import estimate_memory, parse_request

    if args.from_file:
        return _estimate_batch(args.from_file)
    if not args.model:
        raise _error("--model is required (or --from FILE.jsonl)")
    if media.is_media_model(args.model):
        return media.run_estimate(args)
    media.refuse_media_flags(args)
    with _as_flags(_ESTIMATE_KEYS):
        request = parse_request({k: getattr(args, k) for k in _ESTIMATE_KEYS if getattr(args, k) is not None})
    with media.with_media_suggestions(args.model):
        result = estimate_memory(request)
    if args.json:
        print(_dump(result))
    else:
        from ui.tables import print_estimate

        print_estimate(result)
    return 0


_MAX_LINE_BYTES = 64 * 1024


def _estimate_batch(path: str) -> int:
    """One JSON result per input line; a bad line yields {"error": ...} and the rest go on."""
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise _error(f"cannot read {path}: {exc.strerror}") from None
    out = sys.stdout
    with stream:
        try:
            for number, raw in enumerate(stream, start=1):
                # One output line per input line, so scripts can zip them; a blank line is an error line.
                out.write(_estimate_line(number, raw) + "\n")
        except OSError as exc:  # e.g. a directory, or a read error mid-file
            raise _error(f"cannot read {path}: {exc.strerror or exc}") from None
    return 0


def _estimate_line(number: int, raw: bytes) -> str:
    """Return the JSON result (or ``{"error": ...}``) of one ``--from`` line."""
    import json

    from tools.errors import ToolInputError
    from tools.memory import estimate_memory, parse_request

    def error(message: str) -> str:
        return json.dumps({"error": f"line {number}: {message}"})

    if len(raw) > _MAX_LINE_BYTES:
        return error(f"longer than {_MAX_LINE_BYTES // 1024} KiB")
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return error("not UTF-8 text")
    if not line.strip():
        return error("empty line")
    try:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ToolInputError("each line must be a JSON object")
        return media.estimate_line(data) or estimate_memory(parse_request(data)).model_dump_json()
    except json.JSONDecodeError as exc:
        return error(f"invalid JSON ({exc.msg})")
    except RecursionError:
        return error("nested too deeply")
    except ToolInputError as exc:
        return error(str(exc))


_PLAN_KEYS = (
    "model", "task", "precision", "quant", "context", "gen_tokens", "concurrency", "qps", "batch", "seq_len",
    "train_tokens", "budget_cny_month", "region", "billing", "gpu", "max_options", "include_retired", "framework",
    "framework_version", "min_tokens_per_s_per_stream", "max_ttft_s", "min_tokens_per_s_total",
)


def _plan(args: argparse.Namespace) -> int:
    from tools.plan import plan_deployment
    from tools.workload import parse_workload
    from ui.commands.prices import use_price_sources

    use_price_sources(args.offline)
    if media.is_media_model(args.model):
        return media.run_plan(args)
    media.refuse_media_flags(args)
    with _as_flags(_PLAN_KEYS):
        workload = parse_workload({k: getattr(args, k) for k in _PLAN_KEYS})
    with media.with_media_suggestions(args.model):
        result = plan_deployment(workload)
    if args.json:
        print(_dump(result))
    else:
        from ui.tables import print_plan

        print_plan(result)
        _print_billing(result)
    return 0


def _print_billing(plan: Any) -> None:
    """Each option's prices by billing mode, side by side and labelled: never one silently for another."""
    priced = [(i, o) for i, o in enumerate(plan.options, start=1) if o.price_region]
    if not priced:
        return
    print("prices by billing mode (all instances of the option, CNY)")
    for i, o in priced:
        month = "—" if o.price_cny_per_month is None else f"¥{o.price_cny_per_month:,.0f}/month ({o.price_month_basis})"
        hourly = "—" if o.price_cny_per_hour is None else f"¥{o.price_cny_per_hour:,.2f}/h"
        sub = "—"
        if o.subscription_cny_per_month is not None:
            sub = f"¥{o.subscription_cny_per_month:,.0f}/month (as of {o.subscription_as_of})"
        spot = "—" if o.spot_cny_per_hour is None else f"¥{o.spot_cny_per_hour:,.2f}/h (can be reclaimed)"
        where = f"{o.price_region}, {'live ' if o.price_live else ''}as of {o.price_as_of}"
        if o.price_regions_compared:
            where += f", cheapest of {o.price_regions_compared} region(s)"
        print(f"  #{i} {o.instance_type} x{o.instances} [{where}]: pay-as-you-go {hourly}; monthly {month}; "
              f"subscription {sub}; spot {spot}")


def _instances(args: argparse.Namespace) -> int:
    from tools import catalog

    found = catalog.list_instances(
        family=args.family, gpu=args.gpu, min_gpu_memory_gib=args.min_gpu_memory_gib,
        include_retired=args.include_retired,
    )
    if args.json:
        print(_dump(found))
    else:
        from ui.tables import print_instances

        print_instances(found)
    return 0


def _gpus(args: argparse.Namespace) -> int:
    from tools import catalog

    found = catalog.list_gpus()
    if args.json:
        print(_dump(found))
    else:
        from ui.tables import print_gpus

        print_gpus(found)
    return 0


def _models(args: argparse.Namespace) -> int:
    from tools.models import list_models

    if args.kind == "media":
        return media.list_models(args.json)

    found = list_models(family=args.family)
    if args.json:
        print(_dump(found))
    else:
        from ui.tables import print_models

        print_models(found)
    return 0


@contextmanager
def _as_flags(fields: tuple[str, ...]) -> Iterator[None]:
    """Name command-line flags, not model fields, in validation errors ("--batch: ...", not "batch: ...")."""
    from tools.errors import ToolInputError

    try:
        yield
    except ToolInputError as exc:
        message = str(exc)
        for field in fields:
            message = re.sub(rf"(^|; ){field}:", rf"\g<1>--{field.replace('_', '-')}:", message)
        raise ToolInputError(message) from None


def _error(message: str) -> Exception:
    from ui.cli import CommandError

    return CommandError(message)
