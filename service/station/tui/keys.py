"""The station's keys: each key, its action and its label; the legal actions that enable a seat's action key."""

from __future__ import annotations

from service.api import types_pb2 as pb

KEYS: tuple[tuple[str, str, str], ...] = (
    # key, action, label key
    ("f", "fold", "fold"), ("c", "check_call", "key_check_call"), ("b", "bet", "key_bet"),
    ("a", "all_in", "all_in_key"),
    ("i", "bring_in", "bring_in"), ("s", "show", "show"), ("m", "muck", "muck"), ("p", "play", "key_play"),
    ("x", "exchange", "exchange"), ("e", "ante", "ante"), ("o", "bonus", "bonus"), ("v", "close_bets", "close_bets"),
    ("d", "deal", "deal"), ("n", "new_hand", "new_hand"), ("r", "correction", "key_correction"),
    ("k", "acknowledge", "acknowledge"), ("t", "table_menu", "table_menu"),
    ("question_mark", "help", "help"), ("q", "leave", "quit"),
)
"""Every key of the station, its action and the label the footer and the palette show."""
ALLOWS: dict[str, tuple[int, ...]] = {
    "fold": (pb.ACTION_KIND_FOLD,), "check_call": (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL),
    "bet": (pb.ACTION_KIND_BET,), "all_in": (pb.ACTION_KIND_ALL_IN,), "bring_in": (pb.ACTION_KIND_BRING_IN,),
    "show": (pb.ACTION_KIND_SHOW,), "muck": (pb.ACTION_KIND_MUCK,),
    "play": (pb.ACTION_KIND_FLOP_BET, pb.ACTION_KIND_PLAY),
    "exchange": (pb.ACTION_KIND_EXCHANGE, pb.ACTION_KIND_DISCARD),
}
"""A seat's action key and the legal actions that enable it."""
