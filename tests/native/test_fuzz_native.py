"""Fuzzing the native modules' own entry points (private: the boundary of
native code) with hostile input. Every public entry point is fuzzed through
the public API in ``tests/test_fuzz.py``; this file corrupts what only the
native modules read: native state snapshots. CI runs it with
``tests/test_fuzz.py`` on the debug build and on the AddressSanitizer build.
"""

from hypothesis import given
from hypothesis import strategies as st

from guandan import Game
from fuzz_helpers import attempt, fuzz_settings


@fuzz_settings(0.5)
@given(seed=st.integers(0, 2 ** 32), steps=st.sampled_from([0, 20, 120]), data=st.data())
def test_native_state_bytes(seed, steps, data):
    """The loader of native state bytes (private, the boundary of native
    code) refuses corrupted fields with GuandanError, and the native tools
    that take a loaded core never crash."""
    from guandan import _engine, _search, _solve
    g = Game(seed=seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.play_policy("greedy")
    st_bytes = bytearray(g.native_state().state_bytes())
    for _ in range(data.draw(st.integers(0, 6), label="mutations")):
        i = data.draw(st.integers(0, len(st_bytes) - 1), label="offset")
        st_bytes[i] = data.draw(st.integers(0, 255), label="byte")
    if data.draw(st.booleans(), label="truncate"):
        st_bytes = st_bytes[:data.draw(st.integers(0, len(st_bytes)), label="length")]
    b = bytes(st_bytes)
    seat = data.draw(st.integers(0, 3), label="seat")
    ok, w = attempt("Game.from_native_state(state bytes)", Game.from_native_state, b, 1)
    if ok:
        attempt("legal moves of a loaded state", w.legal_moves)
    core = Game()._core
    ok, _ = attempt("GameCore.load_state_bytes", core.load_state_bytes, b)
    if ok:
        attempt("GameCore.legal after load", core.legal)
        attempt("_solve.solve(loaded core)", _solve.solve, core, _solve.SolveOptions(max_nodes=300))
        attempt("_solve._rank_free_key(loaded core)", _solve._rank_free_key, core)
        ok, info = attempt("InfoSet.from_state(loaded core)", _search.InfoSet.from_state, core, seat)
        if ok:
            attempt("InfoSet.sample_hands", info.sample_hands, 2, 1)
            attempt("InfoSet.sample_hands(keep)", info.sample_hands, 2, 1, 1.0)
        ok, info = attempt("InfoSet.from_view(loaded core)",
                           lambda: _search.InfoSet.from_view(_engine.NativeView.of(core, seat)))
        if ok:
            attempt("InfoSet.sample_hands", info.sample_hands, 2, 1)
            attempt("InfoSet.sample_hands(keep)", info.sample_hands, 2, 1, 4.0)
