"""Registry of models that are not text LLMs: diffusion (image and video), speech, embedding, reranker.

Rows come from ``tools/data/media_models.yaml``; each names its source. A :class:`MediaModel` carries its
:data:`MediaKind`, so every tool knows which memory and speed terms apply: a diffusion pipeline has a
denoiser, text encoders and a VAE used one after another; a speech model has an encoder (and, when it is
autoregressive, a decoder); an embedding or reranker model is one encoder.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tools import data_cache
from tools.data_files import DataFileError, yaml_loader
from tools.errors import UnknownNameError
from tools.media_names import MEDIA_MODELS_FILE
from tools.models import normalize_name

MediaKind = Literal["diffusion", "speech", "embedding", "reranker", "vlm"]
"""What a model does, which decides the memory and speed terms.

diffusion: text-to-image or text-to-video; a denoiser run ``steps`` times, then a VAE decode.
speech: speech recognition; an audio encoder over fixed windows, then a token decoder (Whisper) or none.
embedding: a text encoder that turns documents and queries into vectors.
reranker: a cross-encoder that scores (query, document) pairs.
vlm: vision-language chat; a vision tower turns images into tokens for a text LLM from models.yaml.
"""

ComponentRole = Literal["denoiser", "text_encoder", "vae", "encoder", "decoder"]
Dtype = Literal["fp32", "fp16", "bf16", "fp8", "int8", "nf4"]

DTYPE_BYTES: dict[str, float] = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1, "nf4": 0.5}
"""Bytes per weight; nf4 adds small per-block scales that the 0.5 leaves out (under 1%)."""


class Component(BaseModel):
    """One network of a pipeline, e.g. SDXL's UNet or Whisper's encoder."""

    # defer_build: rows read from tools.data_cache are never validated again (see tools.catalog.GPU).
    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    name: str
    role: ComponentRole
    params: int = Field(gt=0)


class MediaModel(BaseModel):
    """A non-LLM model: its components and the shape facts its memory and speed terms need."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    name: str
    display_name: str
    kind: MediaKind
    aliases: tuple[str, ...] = ()
    source: str
    notes: str | None = None
    default_dtype: Dtype
    components: tuple[Component, ...]
    # diffusion
    denoiser_arch: Literal["unet", "dit"] | None = None
    hidden_size: int | None = Field(default=None, gt=0)
    layers: int | None = Field(default=None, gt=0)
    patch_size: int | None = Field(default=None, gt=0)
    vae_scale: int | None = Field(default=None, gt=0)
    text_tokens: int | None = Field(default=None, gt=0)
    cfg: bool | None = None
    cfg_batched: bool = True
    default_steps: int | None = Field(default=None, gt=0)
    default_resolution: tuple[int, int] | None = None
    temporal_compression: int | None = Field(default=None, gt=0)
    default_frames: int | None = Field(default=None, gt=0)
    fps: int | None = Field(default=None, gt=0)
    # speech
    window_s: float | None = Field(default=None, gt=0)
    encoder_frames: int | None = Field(default=None, gt=0)
    tokens_per_audio_s: float | None = Field(default=None, gt=0)
    decoder_layers: int | None = Field(default=None, gt=0)
    # embedding / reranker
    max_tokens: int | None = Field(default=None, gt=0)
    # vision-language
    language_model: str | None = Field(default=None, description="the models.yaml row of the language half")
    spatial_merge: int | None = Field(default=None, gt=0, description="patches merged per token, per side")
    min_pixels: int | None = Field(default=None, gt=0)
    max_pixels: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _fields_of_kind(self) -> MediaModel:
        if "http" not in self.source:
            raise ValueError("source must be a URL")
        needed = {
            "diffusion": (
                "denoiser_arch",
                "hidden_size",
                "patch_size",
                "vae_scale",
                "text_tokens",
                "cfg",
                "default_steps",
                "default_resolution",
            ),
            "speech": ("window_s", "encoder_frames", "hidden_size", "layers"),
            "embedding": ("hidden_size", "layers", "max_tokens"),
            "reranker": ("hidden_size", "layers", "max_tokens"),
            "vlm": (
                "language_model",
                "hidden_size",
                "layers",
                "patch_size",
                "spatial_merge",
                "min_pixels",
                "max_pixels",
            ),
        }[self.kind]
        missing = [f for f in needed if getattr(self, f) is None]
        if missing:
            raise ValueError(f"a {self.kind} model needs {', '.join(missing)}")
        if self.kind == "speech" and self.tokens_per_audio_s is not None and self.decoder_layers is None:
            raise ValueError("an autoregressive speech model needs decoder_layers")
        if self.kind == "diffusion" and self.denoiser_arch == "dit" and self.layers is None:
            raise ValueError("a DiT denoiser needs layers")
        roles = {c.role for c in self.components}
        if self.kind == "diffusion" and not {"denoiser", "vae"} <= roles:
            raise ValueError("a diffusion model needs a denoiser and a vae component")
        return self

    @property
    def total_params(self) -> int:
        """All parameters of all components."""
        return sum(c.params for c in self.components)

    @property
    def is_video(self) -> bool:
        """True for text-to-video models (frames are generated, not one image)."""
        return self.default_frames is not None

    def params_of(self, role: ComponentRole) -> int:
        """Parameters of every component with this role."""
        return sum(c.params for c in self.components if c.role == role)


def read_media_models(path: Path = MEDIA_MODELS_FILE) -> tuple[MediaModel, ...]:
    """Read and validate the registry file; a bad row raises :class:`DataFileError` naming the row."""
    import yaml

    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml_loader())
    rows = raw.get("models", []) if isinstance(raw, dict) else []
    models = []
    for index, row in enumerate(rows):
        try:
            models.append(MediaModel.model_validate(row))
        except ValidationError as exc:
            name = row.get("name", "?") if isinstance(row, dict) else "?"
            first = exc.errors()[0]
            raise DataFileError(f"{path.name}: model #{index + 1} ({name}): {first['msg']}") from None
    _check_unique_names(path, models)
    return tuple(models)


def _check_unique_names(path: Path, models: list[MediaModel]) -> None:
    seen: dict[str, str] = {}
    for model in models:
        for spelling in (model.name, *model.aliases):
            key = normalize_name(spelling)
            if seen.get(key, model.name) != model.name:
                raise DataFileError(f"{path.name}: '{spelling}' names both {seen[key]} and {model.name}")
            seen[key] = model.name


def load_media_models() -> tuple[MediaModel, ...]:
    """All registered non-LLM models, in file order (read once)."""
    return _models_and_index()[0]


@functools.cache
def _models_and_index() -> tuple[tuple[MediaModel, ...], dict[str, MediaModel]]:
    # Every `plan` asks whether its model is one of these: the name index is cached with the rows.
    def read() -> tuple[tuple[MediaModel, ...], dict[str, MediaModel]]:
        models = read_media_models()
        return models, {normalize_name(s): m for m in models for s in (m.name, *m.aliases)}

    return data_cache.cached("media_models", [MEDIA_MODELS_FILE], read)


def media_name_index() -> dict[str, MediaModel]:
    """Return every model by the matching key (:func:`tools.models.normalize_name`) of its name and aliases."""
    return _models_and_index()[1]


def find_media_model(name: str) -> MediaModel | None:
    """Return the model a name or alias denotes ("SDXL", "flux dev", "whisper v3"), or None."""
    return media_name_index().get(normalize_name(name))


def resolve_media_model(name: str) -> MediaModel:
    """Like :func:`find_media_model`, but an unknown name raises with the closest names as suggestions.

    Raises:
        UnknownNameError: no model of this name; the message lists close spellings.
    """
    model = find_media_model(name)
    if model is not None:
        return model
    key = normalize_name(name)
    close = [
        m.name
        for m in load_media_models()
        if key and (key in normalize_name(m.name) or any(key in normalize_name(a) for a in m.aliases))
    ]
    raise UnknownNameError("model", name, close[:3] or [m.name for m in load_media_models()][:3])


_GENERIC_WORDS = frozenset(
    {
        "qwen",
        "large",
        "base",
        "small",
        "medium",
        "instruct",
        "chat",
        "turbo",
        "dev",
        "zh",
        "en",
        "v",
        "b",
        "xl",
        "t",
        "i",
    }
)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _GENERIC_WORDS}


def suggest_media_models(text: str, limit: int = 3) -> list[str]:
    """Name registered non-LLM models sharing a distinctive word with ``text`` ("wan2.2" -> Wan2.1)."""
    words = _words(text)
    scored = []
    for model in load_media_models():
        shared = words & set().union(*(_words(s) for s in (model.name, *model.aliases)))
        if shared:
            scored.append((-len(shared), model.name))
    return [name for _, name in sorted(scored)[:limit]]


def list_media_models(kind: MediaKind | None = None) -> list[MediaModel]:
    """Return the registered models, optionally of one kind."""
    return [m for m in load_media_models() if kind is None or m.kind == kind]
