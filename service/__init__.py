"""The pokertable application: composition of the domain, persistence and the gRPC server, and the CLI."""
