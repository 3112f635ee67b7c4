"""copy_log: a copy holding what the log holds, whose segments, indexes and producer state are its own."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from kcompact_nb.core import Timeline, copy_log
from kcompact_nb.core.model import StoredSegment
from kcompact_nb.core.model._shallow_copy import shallow_copy
from kcompact_nb.scenario import load_scenario, scenario_frames

SCENARIOS = sorted((Path(__file__).resolve().parents[3] / "data" / "samples" / "scenarios").glob("*.json"))
OWN_LISTS = ("batches", "offset_index", "time_index", "aborted_transactions")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_a_copy_of_every_frame_holds_its_state_in_containers_of_its_own(scenario: Path) -> None:
    parsed = load_scenario(scenario)
    frames = [f for topic in parsed.topics for f in Timeline(scenario_frames(parsed, topic=topic)).compute_all()]
    for frame in frames:
        log, clone = frame.log, copy_log(frame.log)
        assert type(clone) is type(log) and vars(clone).keys() == vars(log).keys()
        shared = {k for k in vars(log) if k not in ("segments", "left_cleaned", "producer_state")}
        assert all(getattr(clone, k) is getattr(log, k) for k in shared)
        for mine, theirs in zip(clone.segments + clone.left_cleaned, log.segments + log.left_cleaned, strict=True):
            assert mine is not theirs and type(mine) is type(theirs) and vars(mine) == vars(theirs)
            assert all(getattr(mine, k) is not getattr(theirs, k) for k in OWN_LISTS)
        assert clone.producer_state is not log.producer_state
        assert clone.producer_state.producers == log.producer_state.producers
        mine_entries, their_entries = clone.producer_state.producers.values(), log.producer_state.producers.values()
        assert not {id(e) for e in mine_entries} & {id(e) for e in their_entries}


def test_transactions_give_producer_entries_that_a_copy_changes_on_its_own() -> None:
    frames = Timeline(scenario_frames(next(p for p in SCENARIOS if p.stem == "transaction-abort"))).compute_all()
    log = frames[-1].log
    assert log.producer_state.producers
    clone = copy_log(log)
    pid, entry = next(iter(clone.producer_state.producers.items()))
    entry.last_data_offset += 100
    assert log.producer_state.producers[pid].last_data_offset == entry.last_data_offset - 100


def test_shallow_copy_makes_what_copy_copy_makes() -> None:
    log = Timeline(scenario_frames(SCENARIOS[0])).frame(1).log
    for obj in (log, log.segments[0], StoredSegment(10, created_ms=5, stored_codecs={"gzip"})):
        made, expected = shallow_copy(obj), copy.copy(obj)
        assert type(made) is type(expected) and made is not obj and vars(made) == vars(expected)
        assert all(getattr(made, k) is getattr(obj, k) for k in vars(obj))
