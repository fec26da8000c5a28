"""The determinism contract (guandan.seeds) is the native one."""

import random

from guandan import Game
from guandan import _sim
from guandan.seeds import POLICY_SALT, chunk_seeds, game_seed, policy_seed


def test_game_seed_is_the_native_mix():
    rng = random.Random(1)
    for _ in range(200):
        a, k = rng.getrandbits(64), rng.getrandbits(20)
        assert game_seed(a, k) == _sim.game_seed(a, k)


def test_policy_seed_is_the_native_salt():
    # a game without a policy seed draws exactly as one given policy_seed(seed)
    for seed in (0, 5, 2 ** 63 - 1):
        a = Game.from_deal(seed)
        b = Game.from_deal(seed, policy_seed=policy_seed(seed))
        for _ in range(40):
            assert a.play_policy("random") == b.play_policy("random")
    assert policy_seed(0) == POLICY_SALT


def test_chunk_seeds_are_seed_sequence_children():
    import numpy as np
    a, b = np.random.SeedSequence(7).spawn(3)[2].generate_state(2, dtype=np.uint64)
    assert chunk_seeds(7, 2) == (int(a), int(b))
