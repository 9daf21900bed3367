"""Tier 1, the domain: the rules of the games and the cards and their properties; nothing started (tests/README.md)."""
