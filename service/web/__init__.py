"""The pit's web dashboard (issue 16): served by the table service beside gRPC."""
