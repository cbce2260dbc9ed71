"""Adapters: persistence, HTTP API, CLI, settings, logging. The composition root is bootstrap.py."""
