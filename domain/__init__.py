"""The poker rules of pokertable: cards, decks, hand values and, later, the games.

Pure: no I/O, no randomness, no gRPC or SQL.  Rule ids (``R-…``) refer to RULES.md.
"""
