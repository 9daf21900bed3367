"""A casino group's read store (issue 18, item 3; docs/group.md): every casino keeps its own log, and the group's
follower copies each casino's events, checked link by link against the casino's hash chain and signed heads, into a
PostgreSQL database of the group's, with the figures of every hand, a tracked position per casino written in the same
transaction."""
