"""Starter files `toolsel init` writes (read as data)."""
