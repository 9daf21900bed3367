"""Tier 2, the application: the service's code in one process on a real store, no server (tests/README.md)."""
