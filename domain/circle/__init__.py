"""Circle poker (RULES §2-§5): players against each other, the house dealing."""
