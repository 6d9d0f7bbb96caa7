"""Guidance documents, their Chroma index and cited retrieval."""
