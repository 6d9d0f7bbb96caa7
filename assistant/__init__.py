"""The agent: LLM providers, deterministic engine, conversation and answer rendering."""
