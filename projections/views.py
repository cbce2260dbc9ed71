"""The read models this service keeps."""

from __future__ import annotations

from projections.audit import AuditTrailView
from projections.balances import BalancesView
from projections.protection_stats import ProtectionStatsView
from projections.recorders import View
from projections.rounds import RoundsView
from projections.rtp_growth import RtpGrowthView
from projections.statistics import StatisticsView


def all_views() -> list[View]:
    return [
        BalancesView(), RoundsView(), AuditTrailView(), StatisticsView(), RtpGrowthView(),
        ProtectionStatsView(),
    ]
