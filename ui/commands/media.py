"""``estimate`` and ``plan`` for image/video generation, speech and embedding models.

The core commands hand over to these functions when ``--model`` names a registered non-LLM model
(``tools/data/media_models.yaml``); the kind-specific flags live here. A flag of another kind is refused
with one line, never silently ignored.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_DTYPES = ("fp32", "fp16", "bf16", "fp8", "int8", "nf4")
_OFFLOAD = ("none", "model", "sequential")

# Flags of the text-LLM path that mean nothing for these models, with their parser defaults.
_LLM_ONLY: dict[str, Any] = {
    "task": "inference", "quant": "none", "prompt_tokens": None, "gen_tokens": None, "seq_len": None,
    "context": None, "concurrency": None, "train_tokens": None, "zero": 0, "lora_r": 16, "gpus": 1,
    "precision": "bf16", "framework_version": None, "optimizer": "adamw", "gpu_memory_gib": None,
    "grad_ckpt": True,
}
# --framework defaults to "transformers" on estimate and to None on plan: both mean "not given".
_UNSET_FRAMEWORK = (None, "transformers")


def add_estimate_flags(p: argparse.ArgumentParser) -> None:
    """Add the flags of ``estimate`` for image/video, speech and embedding models."""
    g = p.add_argument_group("image, video, speech and embedding models")
    g.add_argument("--dtype", choices=_DTYPES, help="weights dtype (default: the model's own)")
    g.add_argument("--resolution", type=_resolution, help="image or video size, e.g. 1024x1024")
    g.add_argument("--frames", type=int, help="video frames (text-to-video models)")
    g.add_argument("--offload", choices=_OFFLOAD, default="none", help="diffusers CPU offload: model or sequential")
    g.add_argument("--vae-tiling", action="store_true", help="decode the VAE in tiles")
    g.add_argument("--attention-slicing", action="store_true", help="diffusers attention slicing")
    g.add_argument("--text-encoders-on-cpu", action="store_true", help="encode prompts on the CPU")
    g.add_argument("--quantize-text-encoders", action="store_true",
                   help="with a quantised --dtype: quantise large text encoders (T5-XXL) too, not only the denoiser")
    g.add_argument("--beams", type=int, default=1, help="speech: beam-search width")
    g.add_argument("--doc-tokens", type=int, help="embedding/reranker: tokens per document")
    g.add_argument("--images-per-request", type=int, help="vision-language models: images in each request")


def add_plan_flags(p: argparse.ArgumentParser) -> None:
    """Add the flags of ``plan``: the estimate flags plus the load of each kind."""
    add_estimate_flags(p)
    g = p.add_argument_group("load of image, video, speech and embedding models")
    g.add_argument("--steps", type=int, help="denoising steps (default: the model's own)")
    g.add_argument("--images-per-hour", type=float, help="images (or videos) to generate per hour")
    g.add_argument("--audio-hours", type=float, help="hours of audio to transcribe (batch job)")
    g.add_argument("--streams", type=int, help="live audio streams transcribed at once")
    g.add_argument("--docs", type=int, help="documents to embed (batch job)")
    g.add_argument("--candidates", type=int, help="reranker: documents scored per query (with --qps)")
    g.add_argument("--within-hours", type=float, default=24.0, help="time allowed for a batch job (default 24)")


def is_media_model(name: str | None) -> bool:
    """Tell whether ``name`` is a registered image/video, speech, embedding or reranker model."""
    if not name:
        return False
    from tools.media_names import is_media_name

    return is_media_name(name)


def refuse_media_flags(args: argparse.Namespace) -> None:
    """Refuse, in one line, a flag of these models given for a text LLM."""
    for flag, default in _media_defaults().items():
        if getattr(args, flag, default) != default:
            raise _error(f"--{flag.replace('_', '-')} applies to image, video, speech and embedding models, "
                         f"not to {args.model}")


def run_estimate(args: argparse.Namespace) -> int:
    """``estimate`` for a registered non-LLM model."""
    from tools.media_memory import estimate_media_memory

    if _kind(args.model) == "vlm":
        return _run_vlm_estimate(args)
    _refuse_llm_flags(args)
    result = estimate_media_memory(_request(args))
    if args.json:
        print(result.model_dump_json())
    else:
        from ui.media_tables import print_media_estimate

        print_media_estimate(result)
    return 0


def run_plan(args: argparse.Namespace) -> int:
    """``plan`` for a registered non-LLM model."""
    from tools.errors import ToolInputError, validation_message
    from tools.media_plan import MediaWorkload, plan_media

    if _kind(args.model) == "vlm":
        return _run_vlm_plan(args)
    _refuse_llm_flags(args)
    from pydantic import ValidationError

    try:
        workload = MediaWorkload(
            request=_request(args), steps=args.steps, images_per_hour=args.images_per_hour,
            audio_hours=args.audio_hours, streams=args.streams, docs=args.docs, doc_tokens=args.doc_tokens,
            qps=args.qps, candidates=args.candidates, within_hours=args.within_hours, gpu=args.gpu,
            region=args.region, budget_cny_month=args.budget_cny_month, max_options=args.max_options,
        )
    except ValidationError as exc:
        raise ToolInputError(_as_flags(validation_message(exc))) from None
    result = plan_media(workload)
    if args.json:
        print(result.model_dump_json())
    else:
        from ui.media_tables import print_media_plan

        print_media_plan(result)
    return 0


@contextmanager
def with_media_suggestions(name: str | None) -> Iterator[None]:
    """Add close image/video, speech and embedding model names to an unknown-model error."""
    from tools.errors import UnknownNameError

    try:
        yield
    except UnknownNameError as exc:
        from tools.media_models import suggest_media_models

        extra = suggest_media_models(name or "") if exc.kind == "model" else []
        if not extra:
            raise
        raise UnknownNameError("model", exc.name, [*extra, *exc.suggestions][:4]) from None


def list_models(as_json: bool) -> int:
    """``models --kind media``: the image/video, vision-language, speech and embedding registry."""
    from tools.media_models import load_media_models

    models = load_media_models()
    if as_json:
        import json

        print(json.dumps([m.model_dump(mode="json") for m in models], ensure_ascii=False))
    else:
        from ui.media_tables import print_media_models

        print_media_models(models)
    return 0


def estimate_line(data: dict[str, Any]) -> str | None:
    """Estimate one ``estimate --from`` line whose model is a registered non-LLM model; None for a text LLM.

    The line's keys are the fields of :class:`tools.media_memory.MediaRequest` (vision-language models:
    the arguments of :func:`tools.vlm.estimate_vlm_memory`, ``model`` included).
    """
    from pydantic import ValidationError

    from tools.errors import ToolInputError, validation_message
    from tools.media_memory import MediaRequest, estimate_media_memory
    from tools.vlm import estimate_vlm_memory

    kind = _kind(str(data.get("model") or ""))
    if kind is None:
        return None
    if kind == "vlm":
        fields = {k: v for k, v in data.items() if k != "model"}
        try:
            return estimate_vlm_memory(str(data["model"]), **fields).model_dump_json()
        except TypeError as exc:
            raise ToolInputError(f"unknown field for a vision-language model ({exc})") from None
    try:
        return estimate_media_memory(MediaRequest.model_validate(data)).model_dump_json()
    except ValidationError as exc:
        raise ToolInputError(validation_message(exc)) from None


def _kind(name: str) -> str | None:
    from tools.media_models import find_media_model

    model = find_media_model(name)
    return model.kind if model else None


def _vlm_image_args(args: argparse.Namespace) -> dict[str, Any]:
    if getattr(args, "task", "inference") != "inference":
        raise _error("vision-language models are sized for inference here; fine-tuning is not modelled")
    for flag, unset in (("offload", "none"), ("beams", 1), ("vae_tiling", False), ("text_encoders_on_cpu", False),
                        ("quantize_text_encoders", False)):
        if getattr(args, flag, unset) != unset:
            raise _error(f"--{flag.replace('_', '-')} does not apply to {args.model} (a vision-language model)")
    for flag in ("dtype", "doc_tokens", "steps", "images_per_hour", "audio_hours", "streams", "docs", "candidates"):
        if getattr(args, flag, None) is not None:
            raise _error(f"--{flag.replace('_', '-')} does not apply to {args.model} (a vision-language model; "
                         "use --precision/--quant and the text-LLM flags)")
    width, height = args.resolution or (1024, 1024)
    images = args.images_per_request if args.images_per_request is not None else 1
    return {"images_per_request": images, "width": width, "height": height, "frames": args.frames}


def _run_vlm_estimate(args: argparse.Namespace) -> int:
    from tools.vlm import estimate_vlm_memory

    result = estimate_vlm_memory(
        args.model, **_vlm_image_args(args), text_tokens=args.prompt_tokens or 512,
        gen_tokens=args.gen_tokens or 512, batch=args.batch, precision=args.precision, quant=args.quant,
        framework=args.framework,
    )
    if args.json:
        print(result.model_dump_json())
    else:
        from ui.tables import print_estimate

        print_estimate(result.llm)
        print(f"vision tower activations: {result.vision_activation_gib:,.2f} GiB; total per GPU "
              f"{result.total_gib:,.2f} GiB")
        for note in result.assumptions:
            print(f"  - {note}")
    return 0


def _run_vlm_plan(args: argparse.Namespace) -> int:
    from tools.vlm import plan_vlm

    keys = ("model", "task", "precision", "quant", "context", "gen_tokens", "concurrency", "qps",
            "budget_cny_month", "region", "gpu", "max_options", "include_retired")
    fields = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    if fields.get("task", "inference") != "inference":
        raise _error("vision-language models are planned for inference here; fine-tuning is not modelled")
    result = plan_vlm(fields, **_vlm_image_args(args))
    if args.json:
        print(result.model_dump_json())
    else:
        from ui.tables import print_plan

        print_plan(result)
    return 0


def _request(args: argparse.Namespace) -> Any:
    from pydantic import ValidationError

    from tools.errors import ToolInputError, validation_message
    from tools.media_memory import MediaRequest

    width, height = args.resolution or (None, None)
    batch = getattr(args, "batch", None) or 1
    try:
        return MediaRequest(
            model=args.model, dtype=args.dtype, batch=batch, width=width, height=height, frames=args.frames,
            offload=args.offload, vae_tiling=args.vae_tiling, attention_slicing=args.attention_slicing,
            text_encoders_on_cpu=args.text_encoders_on_cpu, seq_tokens=args.doc_tokens, beams=args.beams,
            quantize_text_encoders=args.quantize_text_encoders,
        )
    except ValidationError as exc:
        raise ToolInputError(_as_flags(validation_message(exc))) from None


def _refuse_llm_flags(args: argparse.Namespace) -> None:
    if args.images_per_request is not None:
        raise _error(f"--images-per-request applies to vision-language models, not to {args.model}")
    for flag, default in _LLM_ONLY.items():
        if getattr(args, flag, default) != default:
            name = {"gpu_memory_gib": "gpu-memory", "grad_ckpt": "no-grad-ckpt"}.get(flag, flag.replace("_", "-"))
            hint = " (use --dtype for these models)" if flag in ("precision", "quant") else ""
            raise _error(f"--{name} applies to text LLMs, not to {args.model}{hint}")
    if getattr(args, "framework", None) not in _UNSET_FRAMEWORK:
        raise _error(f"--framework applies to text LLMs, not to {args.model}")
    batch_load = getattr(args, "audio_hours", None) or getattr(args, "docs", None)
    if getattr(args, "within_hours", 24.0) != 24.0 and not batch_load:
        raise _error("--within-hours applies to a batch job (--audio-hours or --docs)")


def _media_defaults() -> dict[str, Any]:
    return {
        "dtype": None, "resolution": None, "frames": None, "offload": "none", "vae_tiling": False,
        "attention_slicing": False, "text_encoders_on_cpu": False, "quantize_text_encoders": False,
        "beams": 1, "doc_tokens": None, "steps": None, "images_per_hour": None, "audio_hours": None,
        "streams": None, "docs": None, "within_hours": 24.0, "images_per_request": None, "candidates": None,
    }


def _resolution(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d{2,5})\s*[xX×*]\s*(\d{2,5})\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1024x1024, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def _as_flags(message: str) -> str:
    renames = {"seq_tokens": "doc-tokens", "width": "resolution", "height": "resolution"}
    parts = []
    for part in message.split("; "):
        field, sep, rest = part.removeprefix("request.").partition(":")
        if sep and re.fullmatch(r"[a-z_]+", field):
            part = f"--{renames.get(field, field.replace('_', '-'))}:{rest}"
        parts.append(part)
    return "; ".join(dict.fromkeys(parts))


def _error(message: str) -> Exception:
    from ui.cli import CommandError

    return CommandError(message)
