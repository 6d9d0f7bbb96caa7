"""Faces of gpu-advisor: CLI, Gradio chat and widget, HTTP API, Slack bot."""
