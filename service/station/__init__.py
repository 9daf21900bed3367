"""The dealer stations: gRPC clients of the table service, with or without devices."""

RECONNECT = (("grpc.initial_reconnect_backoff_ms", 250), ("grpc.min_reconnect_backoff_ms", 250),
             ("grpc.max_reconnect_backoff_ms", 2000))
"""A station's channel tries its service again within a quarter of a second, and never waits more than 2 s between
tries (gRPC's defaults start at 1 s and grow to 2 minutes): a restarted service takes its stations' commands as soon
as it serves (issue 18: the first command within 1 s of SERVING after a kill)."""
