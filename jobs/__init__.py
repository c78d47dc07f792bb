"""Spark job entry points for controller-replay (CLI, session setup)."""
