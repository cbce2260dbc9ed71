"""A read model as the library sees it: a Projection whose view is a tracking recorder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.projection import Projection

from projections.events import RecordedEvent, recorded_event
from projections.recorders import ViewRecorder


class ReadModelProjection(Projection[ViewRecorder]):
    """Feeds one view. Events at or below the view's tracking position are skipped, so views
    at different positions (one just rebuilt, say) can share one feed."""

    def __init__(self, view: ViewRecorder, application_name: str) -> None:
        super().__init__(view)
        self.name = view.view.name
        self.application_name = application_name
        view.start_tracking(application_name)
        self.position: int = view.max_tracking_id(application_name) or 0

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        event = recorded_event(domain_event, tracking.notification_id)
        self.process_batch([event], tracking)

    def process_batch(self, events: Sequence[RecordedEvent], tracking: Tracking) -> None:
        """Project `events`, all at or before `tracking`, in one transaction with it."""
        if tracking.notification_id <= self.position:
            return
        fresh = [event for event in events if event.position > self.position]
        self.position = self.view.insert_events(fresh, tracking)

    def reload_position(self) -> None:
        """After a failed transaction: the store says where the view really is."""
        self.position = self.view.max_tracking_id(self.application_name) or 0
