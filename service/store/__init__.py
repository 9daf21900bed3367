"""Where the events live: SQLite or PostgreSQL, the hash chain, signed heads, group commit."""
