"""Integrations with other tools (flake8)."""
