"""Cards, decks and hand evaluation: what every game stands on; knows no game (R-CARD-*)."""
