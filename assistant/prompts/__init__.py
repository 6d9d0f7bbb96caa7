"""Prompts kept as data files beside the code that uses them (a package so wheels include them)."""
