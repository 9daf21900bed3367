"""The ``pokertable`` command line: one module per subcommand."""
