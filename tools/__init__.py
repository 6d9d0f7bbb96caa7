"""Deterministic, typed tools: model architectures, memory estimation, catalogs, planning."""
