"""The application: commands, queries, roles and the one visibility policy; knows no gRPC, station or CLI."""
