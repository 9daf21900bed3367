"""Banked poker (RULES §6-§7): each box against the house."""
