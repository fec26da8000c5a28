"""pytest-benchmark cases: ``pytest bench/`` (not part of the test suite).

Speed is measured here and by the plain scripts bench/movegen.py and
bench/simulate.py, never by timed unit tests."""

import json
import os

import numpy as np
import pytest

from guandan import Game, Hand, Rules, classify, legal_moves, legal_moves_batch
from guandan import _bench, _core, _sim
from guandan.simulation import chunk_seeds

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "..", "tests", "data", "anchor_hands_1000.jsonl")
HANDS = [json.loads(line) for line in open(PATH)]
OBJS = [Hand(h["hand"]) for h in HANDS]
COUNTS = np.stack([h.counts() for h in OBJS])
LEVELS = np.array([_core.level_index(h["level"]) for h in HANDS], dtype=np.int64)
NO_LAST = np.zeros((0, 2), dtype=np.uint64)


def test_native_lead_full_1000_hands(benchmark):
    total, cs, _ = benchmark(_bench.bench_loop, COUNTS, LEVELS, NO_LAST, False, 1)
    assert total == 751_863


def test_native_lead_pattern_1000_hands(benchmark):
    benchmark(_bench.bench_loop, COUNTS, LEVELS, NO_LAST, True, 1)


def test_batch_api_1000_hands(benchmark):
    b = benchmark(legal_moves_batch, COUNTS, LEVELS + 2)
    assert int(b.offsets[-1]) == 751_863


def _api_all(mode):
    n = 0
    for h, lv in zip(OBJS, HANDS):
        n += len(legal_moves(h, lv["level"], mode=mode))
    return n


def test_api_legal_moves_full_1000_hands(benchmark):
    assert benchmark(_api_all, "full") == 751_863


def test_api_legal_moves_pattern_1000_hands(benchmark):
    benchmark(_api_all, "pattern")


@pytest.mark.parametrize("i", [0, 1, 2])
def test_api_single_hand(benchmark, i):
    benchmark(legal_moves, OBJS[i], HANDS[i]["level"])


def test_classify(benchmark):
    benchmark(classify, "SK DK H5 S2 D2", "5")


def test_simulate_random_1000_deals(benchmark):
    gs, ps = chunk_seeds(0, 0)
    benchmark(_sim.run_chunk, gs, ps, 1000, 0, np.array([1, 1, 1, 1], dtype=np.int16), Rules().native)


def test_game_python_random_game(benchmark):
    def play():
        g = Game(seed=1)
        g.play_out(["random"] * 4)
        return g
    benchmark.pedantic(play, rounds=3, iterations=1)
