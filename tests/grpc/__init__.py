"""Tier 3, gRPC: a real server in the test's process on a free port, its clients, devices on a pty (tests/README.md)."""
