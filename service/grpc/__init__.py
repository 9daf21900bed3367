"""The gRPC side: translation between pokertable.v1 and the application."""
