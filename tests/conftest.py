"""pytest configuration: the helpers for the rule tests live in tests/helpers.py."""
