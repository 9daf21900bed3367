"""The dealer stations: gRPC clients of the table service, with or without devices."""
