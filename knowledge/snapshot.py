"""A read-only copy of the embedded index for fast starts: every chunk's vector and keyword tokens.

Answering one question from a fresh process used to open embedded Chroma (about a second of imports
on two cores) and tokenise the whole corpus with jieba (another second) before the first search. Both
results are pure functions of the chunks, the embedding model and the tokeniser, so after each sync of
the embedded store they are written to ``<data_dir>/cache/`` and a later start that finds the same
chunks (ids and content hashes), the same model and the same tokeniser searches the copy in memory:
an exact cosine ranking over a few hundred vectors, no Chroma, and jieba only for a Chinese query.
Anything that differs, and any unreadable file, falls back to the store (which then writes a new copy).
A Chroma server (``CHROMA_HOST``) is always queried directly: it is the shared source of truth there.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from knowledge.chunking import Chunk
from knowledge.keyword import tokenizer_id

log = logging.getLogger(__name__)

_FORMAT = 1  # bump when the file layout changes


class MemoryVectors:
    """Chunk vectors held in memory, queried like :class:`knowledge.store.ChunkStore` (exact cosine)."""

    def __init__(self, ids: Sequence[str], langs: Sequence[str], vectors: np.ndarray) -> None:
        """Hold L2-normalised ``vectors`` (one row per id, in the same order as ``ids`` and ``langs``)."""
        self._ids = list(ids)
        self._langs = np.array(langs)
        self._vectors = np.asarray(vectors, dtype=np.float32)

    def count(self) -> int:
        """Count the chunks held."""
        return len(self._ids)

    def query(self, vector: np.ndarray, n: int, langs: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """Return the ``n`` nearest chunks as ``(chunk_id, cosine similarity)``, best first."""
        similarity = self._vectors @ np.asarray(vector, dtype=np.float32)
        rows = np.flatnonzero(np.isin(self._langs, list(langs))) if langs else np.arange(len(self._ids))
        best = rows[np.argsort(-similarity[rows], kind="stable")[:n]]
        return [(self._ids[i], float(similarity[i])) for i in best]


def snapshot_path(data_dir: Path, model_id: str) -> Path:
    """File of the snapshot for one embedding model."""
    return data_dir / "cache" / f"retrieval-{model_id}.npz"


def _signature(chunks: Sequence[Chunk], model_id: str) -> str:
    parts = [f"format={_FORMAT}", f"model={model_id}", f"tokenizer={tokenizer_id()}"]
    parts += [f"{c.chunk_id}={c.content_hash}" for c in chunks]
    return "\n".join(parts)


def load_snapshot(path: Path, chunks: Sequence[Chunk], model_id: str) -> tuple[MemoryVectors, list[list[str]]] | None:
    """Read the vectors and tokens of ``chunks`` from ``path``; None when missing or made for other chunks."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["signature"]) != _signature(chunks, model_id):
                return None
            vectors = data["vectors"]
            tokens = json.loads(str(data["tokens"]))
    except (OSError, ValueError, KeyError) as exc:  # a torn or foreign file: rebuild rather than fail
        log.warning("ignoring retrieval snapshot %s: %s", path, exc)
        return None
    if len(vectors) != len(chunks) or len(tokens) != len(chunks):
        return None
    return MemoryVectors([c.chunk_id for c in chunks], [c.lang for c in chunks], vectors), tokens


def save_snapshot(
    path: Path, chunks: Sequence[Chunk], model_id: str, vectors: Mapping[str, np.ndarray], tokens: Sequence[list[str]]
) -> None:
    """Write the snapshot atomically (a reader never sees half a file); failures are logged, not raised."""
    try:
        matrix = np.stack([np.asarray(vectors[c.chunk_id], dtype=np.float32) for c in chunks])
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as handle:
            np.savez(
                handle,
                signature=np.array(_signature(chunks, model_id)),
                vectors=matrix,
                tokens=np.array(json.dumps(list(tokens), ensure_ascii=False)),
            )
        os.replace(handle.name, path)
    except (OSError, KeyError, ValueError) as exc:  # a read-only data dir only costs speed
        log.warning("could not write retrieval snapshot %s: %s", path, exc)
