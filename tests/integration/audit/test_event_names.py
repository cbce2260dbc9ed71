"""Stored classes have permanent names (domain.ledger.event_names): set in their own class body,
unique, frozen to what the store holds; the hash chain covers that name, so moving a class's module
leaves every stream verifying; a versioned event is upcast as it is read and still chains."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from eventsourcing.domain import Aggregate, CanMutateAggregate
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import resolve_topic
from repo_paths import REPO

from domain.ledger.event_names import NEW_NAME_PREFIX, register_aggregate, stored_name
from domain.ledger.hashchain import GENESIS, ChainedEvent, chained, check_chain, event_digest
from domain.ledger.player import ChainLink, Player
from domain.ledger.wallet_account import WalletAccount
from infrastructure.application import PumpkinApplication
from infrastructure.sessions.keys import SessionKey, TokenKey

ROOT = REPO
AGGREGATES: tuple[type[Aggregate], ...] = (Player, SessionKey, TokenKey, WalletAccount)


def named_classes() -> list[tuple[str, type]]:
    """Every aggregate and every event class it can store (its abstract base Event aside), each
    with the name the aggregate gives it (`Player.StakePlaced`), wherever its class is defined."""
    found: list[tuple[str, type]] = []
    for aggregate in AGGREGATES:
        found.append((aggregate.__name__, aggregate))
        found.extend(
            (f"{aggregate.__name__}.{name}", value) for name, value in vars(aggregate).items()
            if isinstance(value, type) and issubclass(value, CanMutateAggregate)
            and name != "Event"
        )
    return found


def stored_classes() -> list[type]:
    return [cls for _, cls in named_classes()]


def own_topic(cls: type) -> str | None:
    """TOPIC as written in the class's body. (The library re-derives a Created event as a
    subclass of the aggregate's Event; that class's body is its direct parent's.)"""
    for body in cls.__mro__[:2]:
        if body.__name__ == cls.__name__ and "TOPIC" in vars(body):
            topic: str = vars(body)["TOPIC"]
            return topic
    return None


def test_every_stored_class_names_itself_in_its_own_body_and_no_two_share_a_name() -> None:
    topics = {cls: own_topic(cls) for cls in stored_classes()}
    assert [cls for cls, topic in topics.items() if not topic] == []
    assert len(set(topics.values())) == len(topics)
    assert all(resolve_topic(str(topic)) is cls for cls, topic in topics.items())


FIRST_RELEASE_MODULES = {
    "Player": "domain.player",
    "SessionKey": "infrastructure.application",
    "TokenKey": "infrastructure.application",
}


def test_the_first_releases_classes_keep_the_names_the_store_holds() -> None:
    for name, cls in named_classes():
        if stored_name(cls).startswith(NEW_NAME_PREFIX):
            assert stored_name(cls) == f"{NEW_NAME_PREFIX}{name}"  # a new class
        else:  # where the first release kept it, wherever the code lives now
            module = FIRST_RELEASE_MODULES[name.split(".")[0]]
            assert stored_name(cls) == f"{module}:{name}"
    assert Player.StakePlaced.TOPIC == "domain.player:Player.StakePlaced"
    assert SessionKey.Issued.TOPIC == "infrastructure.application:SessionKey.Issued"


MOVED = textwrap.dedent("""
    import importlib.util, json, sys
    # the Player's events (domain/ledger/player_events.py, a round's round_events.py) loaded as
    # other modules; their importers get the moved ones
    moved = {}
    for name in ("player_events", "round_events"):
        where = f"relocated.ledger.{name}"
        spec = importlib.util.spec_from_file_location(where, f"domain/ledger/{name}.py")
        moved[name] = importlib.util.module_from_spec(spec)
        sys.modules[where] = sys.modules[f"domain.ledger.{name}"] = moved[name]
        spec.loader.exec_module(moved[name])
    from domain.ledger.player import Player
    assert Player.StakePlaced is moved["round_events"].StakePlaced
    assert Player.StakePlaced.__module__ == "relocated.ledger.round_events"
    assert Player.Deposited.__module__ == "relocated.ledger.player_events"

    from typer.testing import CliRunner
    from infrastructure.application import PumpkinApplication
    from infrastructure.cli import app as cli

    def verify():
        result = CliRunner().invoke(cli, ["verify", "--json"],
                                    env={"PUMPKIN_DATABASE_URL": sys.argv[1]})
        return result.exit_code, json.loads(result.stdout)

    before = verify()
    with PumpkinApplication.from_url(sys.argv[1]) as app:
        session_id, _ = app.open_session("ada")
        app.spin(session_id, 20, "moved-1")
        app.deposit("ada", 100, "moved-2")
    after = verify()
    print(json.dumps([before[0], before[1]["ok"], after[0], after[1]["ok"],
                      after[1]["events_checked"] - before[1]["events_checked"]]))
""")


def test_moving_the_player_module_leaves_old_and_new_streams_verifying(tmp_path: Path) -> None:
    store = tmp_path / "golden.sqlite"
    store.write_bytes(gzip.decompress((ROOT / "tests/golden/store.sqlite.gz").read_bytes()))
    run = subprocess.run(
        [sys.executable, "-c", MOVED, f"sqlite:///{store}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2_000:]
    # `pumpkin verify` exits 0 before and after; the new session, round and deposit were checked
    exit_before, ok_before, exit_after, ok_after, added = json.loads(run.stdout.splitlines()[-1])
    assert (exit_before, ok_before, exit_after, ok_after) == (0, True, 0, True)
    assert added >= 7  # SessionKey, TokenKey, SessionOpened, a round (3+), Deposited


# -- upcasting -----------------------------------------------------------------------------------


class Ledger(Aggregate):
    """A stored class of this test only: a note whose schema gained a field in version 2."""

    TOPIC = "pumpkin:TestLedger"

    class Created(ChainLink, Aggregate.Created):
        TOPIC = "pumpkin:TestLedger.Created"
        prev_hash: str

    class Noted(ChainLink, Aggregate.Event):
        TOPIC = "pumpkin:TestLedger.Noted"
        class_version = 2
        prev_hash: str
        text: str
        words: int  # new in version 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["words"] = len(state["text"].split())

        def apply(self, ledger: Ledger) -> None:
            ledger.words = self.words

    def __init__(self) -> None:
        self.words = 0
        self.chain_head = GENESIS

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        super().trigger_event(event_class, prev_hash=self.chain_head, **kwargs)


register_aggregate(Ledger)  # the product reads only the stored names registered


def test_an_event_stored_at_an_older_version_is_upcast_and_the_chain_still_holds() -> None:
    with PumpkinApplication.from_url("sqlite:///:memory:") as app:
        mapper = app.mapper
        ledger = Ledger._create(Ledger.Created, prev_hash=GENESIS)
        created = mapper.to_stored_event(ledger.collect_events()[0])
        # As the release before version 2 wrote it: no `words`, no class_version.
        old_state = {"timestamp": "2026-01-01T00:00:00+00:00", "text": "three small words",
                     "prev_hash": ledger.chain_head}
        old = StoredEvent(created.originator_id, 2, Ledger.Noted.TOPIC,
                          app.mapper.transcoder.encode({
                              **old_state, "timestamp": ledger.modified_on}))
        old_digest = event_digest(
            created.originator_id, 2, Ledger.Noted.TOPIC,
            app.mapper.transcoder.decode(old.state),
        )
        ledger.version = 2
        ledger.chain_head = old_digest
        ledger.trigger_event(Ledger.Noted, text="now four words here", words=4)
        new = mapper.to_stored_event(ledger.collect_events()[0])
        assert b'"class_version":2' in new.state

        events = [mapper.to_domain_event(s) for s in (created, old, new)]
        assert events[1].words == 3  # type: ignore[attr-defined]  # upcast on reading
        replayed: Ledger | None = None
        for event in events:
            replayed = event.mutate(replayed)  # type: ignore[attr-defined]
        assert replayed is not None and replayed.words == 4
        assert replayed.chain_head == ledger.chain_head
        stream: list[ChainedEvent] = [chained(e, stored_name(type(e))) for e in events]
        assert stream[1].digest == old_digest
        assert check_chain(stream) == []


def test_the_round_facts_the_engine_names_are_exactly_the_players_fact_events() -> None:
    from domain.game.facts import ROUND_FACTS

    fact_events = {name for name, value in vars(Player).items()
                   if isinstance(value, type) and issubclass(value, Player.RoundFact)
                   and value is not Player.RoundFact}
    assert fact_events == set(ROUND_FACTS) and len(ROUND_FACTS) == len(fact_events)
