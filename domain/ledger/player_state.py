"""How the Player's state is stored in a snapshot, by version (the library's aggregate upcast).

Version 2 (now): open sessions, free-round campaigns and the protection guard are value objects
(domain.ledger.sessions.SessionEntry, domain.ledger.free_rounds.Campaign,
domain.ledger.guard.Guard), each written by the store's transcoding in its module's stored
layout (infrastructure/store/state_transcodings.py). Version 1 (snapshots written before) held
those layouts as plain lists and dicts; they are upcast as they are read. A snapshot from before
free rounds or protection existed has neither: the Player's class defaults stand in.
"""

from __future__ import annotations

from typing import Any

from domain.ledger.free_rounds import Campaign
from domain.ledger.guard import Guard
from domain.ledger.sessions import SessionEntry


def upcast_state_v1_v2(state: dict[str, Any]) -> None:
    opened = ((sid, SessionEntry.from_stored(entry)) for sid, entry in state["sessions"].items())
    state["sessions"] = {sid: entry for sid, entry in opened if entry is not None}
    if "free_rounds" in state:
        state["free_rounds"] = {
            cid: Campaign.from_stored(campaign) for cid, campaign in state["free_rounds"].items()
        }
    if "guard" in state:
        state["guard"] = Guard.from_stored(state["guard"])
