"""Subcommands of ``gpu-advisor``; each module registers its parsers with ``register(subparsers)``."""
