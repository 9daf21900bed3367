"""The tests' helpers: shared code and fixtures the test modules import, never tests themselves (tests/README.md)."""
