"""Hand histories in and out: PHH, the event log for terminals."""
