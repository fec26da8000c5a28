"""legal_moves_batch reuses the buffer of a dropped result (a one-buffer
pool): a result that is kept must never change, results must be the same
whichever buffer they land in, and threads must not share a buffer."""

import threading

import numpy as np

from guandan import Hand, legal_moves, legal_moves_batch

HANDS = [Hand("S3 H3 D3 S4 D4 H5 SB SB HR"), Hand("S6 H6 C6 D6 H2 S7 S8 S9 ST"),
         Hand("S4 H4 C4 D4 S5 H5 C5 D5 S6 H6 C6 D6 S7 H7 C7 D7 S8 H8 C8 D8 S9 H9 C9 D9 DT HA HA")]
LEVELS = ["5", "2", "A"]


def _expected():
    return [legal_moves(h, lv).to_numpy() for h, lv in zip(HANDS, LEVELS)]


def _check(batch, expected):
    assert batch.counts.tolist() == [len(e) for e in expected]
    for i, e in enumerate(expected):
        a, b = int(batch.offsets[i]), int(batch.offsets[i + 1])
        assert np.array_equal(batch.words[a:b], e)


def test_kept_result_never_changes():
    exp = _expected()
    kept = legal_moves_batch(HANDS, LEVELS)
    snapshot = kept.words.copy()
    for _ in range(5):                      # dropped results refill the pool
        other = legal_moves_batch(HANDS[::-1], LEVELS[::-1])
        _check(other, exp[::-1])
        del other
    assert np.array_equal(kept.words, snapshot)
    _check(kept, exp)


def test_view_keeps_buffer_alive():
    exp = _expected()
    words = legal_moves_batch(HANDS, LEVELS).words[2:]     # the batch itself is dropped
    snapshot = words.copy()
    for _ in range(3):
        legal_moves_batch(HANDS[::-1], LEVELS[::-1])
    assert np.array_equal(words, snapshot)
    assert np.array_equal(snapshot[:len(exp[0]) - 2], exp[0][2:])


def test_threads_get_their_own_buffers():
    exp = _expected()
    errors = []

    def work():
        try:
            for _ in range(20):
                _check(legal_moves_batch(HANDS, LEVELS), exp)
        except AssertionError as e:         # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_integer_level_arrays():
    counts = np.stack([h.counts() for h in HANDS])
    lv = np.array([5, 2, 14])
    _check(legal_moves_batch(counts, lv), _expected())
    for bad in (np.array([5, 1, 14]), np.array([15, 2, 3])):
        try:
            legal_moves_batch(counts, bad)
        except Exception as e:
            assert type(e).__name__ == "LevelError"
        else:                               # pragma: no cover
            raise AssertionError("bad level accepted")
