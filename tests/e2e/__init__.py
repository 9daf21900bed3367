"""Tier 4, end to end: other processes and outside programs, the installed package, the browser (tests/README.md)."""
