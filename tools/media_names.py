"""Whether a name denotes a registered image/video, speech or embedding model, without loading that registry.

Every ``plan`` and ``estimate`` asks it before sizing a text LLM; the name keys alone come from
:mod:`tools.data_cache`, so the common answer ("no") costs neither the YAML file nor the
:mod:`tools.media_models` classes.
"""

from __future__ import annotations

import functools
from pathlib import Path

from tools import data_cache
from tools.models import normalize_name

MEDIA_MODELS_FILE = Path(__file__).parent / "data" / "media_models.yaml"


@functools.cache
def media_name_keys() -> frozenset[str]:
    """Return the matching keys (:func:`tools.models.normalize_name`) of every media model name and alias."""

    def read() -> frozenset[str]:
        from tools.media_models import media_name_index

        return frozenset(media_name_index())

    return data_cache.cached("media_names", [MEDIA_MODELS_FILE], read)


def is_media_name(name: str) -> bool:
    """Tell whether ``name`` is a registered non-LLM model or alias ("SDXL", "flux dev", "whisper v3")."""
    return normalize_name(name) in media_name_keys()
