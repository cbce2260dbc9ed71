"""The hash chain's link, mixed into every event of the product's aggregates: after an event
applies, the aggregate's `chain_head` is that event's digest (domain.ledger.hashchain)."""

from __future__ import annotations

from typing import Any

from domain.ledger.event_names import stored_name
from domain.ledger.hashchain import digest_of


class ChainLink:
    def mutate(self, aggregate: Any) -> Any:
        result = super().mutate(aggregate)  # type: ignore[misc]
        result.chain_head = digest_of(self, stored_name(type(self)))
        return result
