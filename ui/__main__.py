"""``python -m ui`` runs the gpu-advisor command line (same as the ``gpu-advisor`` script)."""

from ui.cli import run

run()
