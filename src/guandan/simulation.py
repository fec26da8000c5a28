"""Bulk simulation: millions of deals in the native loop, on all cores, or on
a cluster through any ``concurrent.futures``-style executor (Dask included).

The package exports the function: ``from guandan import simulate`` is
:func:`simulate` of this module (``guandan.simulation``), which also holds
the seeds of the chunks and the progress bar the benchmarks use.

>>> from guandan import simulate
>>> r = simulate(200, policies=("greedy", "random", "greedy", "random"), seed=1, workers=1)
>>> len(r), r.unit, r.summary()["team_win_rate"][0] > 0.8
(200, 'deal', True)
>>> r.rows["order"].shape
(200, 4)

Determinism: deals are cut into fixed chunks of :data:`CHUNK_DEALS` deals
(:data:`CHUNK_GAMES` games); chunk ``i`` draws everything from
``numpy.random.SeedSequence(seed, spawn_key=(i,))`` - the i-th child of
``SeedSequence(seed).spawn(...)`` - so the same seed gives identical rows for
any number of workers, threads, processes or machines.
"""

from __future__ import annotations

import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _sim
from ._checks import check_int
from ._files import atomic_write
from ._files import check_output_path as check_file
from .errors import GuandanError
from .game import Game
from .moves import Move
from .policies import native_code
from .rules import Rules, resolve_rules
from .seeds import POLICY_SALT, chunk_seeds, game_seed

PY_SEAT = _sim.PY_SEAT

__all__ = ["simulate", "SimulationResult", "SimulationInterrupted", "CHUNK_DEALS", "CHUNK_GAMES",
           "chunk_seeds", "game_seed",
           "check_output_path", "OUTPUT_FORMATS", "progress_bar", "play_starts"]

OUTPUT_FORMATS = (".npz", ".parquet", ".csv")

CHUNK_DEALS = 2000
CHUNK_GAMES = 100
MAX_N = 1 << 40               # ~10^12 deals (weeks of CPU): larger counts are mistakes


def _run_native(seed: int, index: int, n: int, unit: int, codes: Tuple[int, ...],
                rules: Rules) -> Dict[str, np.ndarray]:
    """One chunk in the native loop (module level so that process pools and
    Dask can pickle it)."""
    gs, ps = chunk_seeds(seed, index)
    out, _ = _sim.run_chunk(gs, ps, n, unit, np.array(codes, dtype=np.int16), rules.native)
    return out


def _run_python(seed: int, index: int, n: int, unit: int, policies: Sequence[Any],
                rules: Rules) -> Dict[str, np.ndarray]:
    """One chunk when some seat is a Python callable: the same native loop
    (same rows, same random stream for the native seats), which asks
    :class:`_PythonSeats` for the callables' decisions."""
    gs, ps = chunk_seeds(seed, index)
    codes = [PY_SEAT if callable(p) else native_code(p) for p in policies]
    out, _ = _sim.run_chunk(gs, ps, n, unit, np.array(codes, dtype=np.int16), rules.native,
                            callback=_PythonSeats(policies, rules, gs))
    return out


class _PythonSeats:
    """Decisions of the Python seats of a chunk: a :class:`Game` mirrors each
    game of the native loop (it replays the actions the loop reports), so a
    callable sees the ordinary ``(observation, legal_moves)``."""

    def __init__(self, policies: Sequence[Any], rules: Rules, game_seed_base: int) -> None:
        self.policies = policies
        self.rules = rules
        self.base = game_seed_base
        self.index = -1
        self.game: Any = None

    def __call__(self, index: int, actions: np.ndarray, legal: Any) -> int:
        if index != self.index:
            self.index = index
            self.game = Game(rules=self.rules, seed=game_seed(self.base, index))
        g = self.game
        for seat, lo, hi in actions.tolist():
            g.play(Move(lo, hi, g.level_index))
        seat = g.to_act
        moves = g.legal_moves()
        m = g.parse_action(self.policies[seat](g.observation(seat), moves))
        i = moves.index_of(m)
        if i < 0:
            raise GuandanError(f"policy of seat {seat} chose {m}, which is not legal")
        return i


class _Aggregate:
    """Streaming totals, so that a summary never needs the rows."""

    def __init__(self) -> None:
        self.n = 0
        self.wins = [0, 0]
        self.decisions = 0
        self.bombs = 0
        self.rounds = 0
        self.tributes = 0
        self.anti = 0
        self.double_down = 0

    def add(self, unit: str, rows: Dict[str, np.ndarray]) -> None:
        k = len(rows["decisions"])
        self.n += k
        self.decisions += int(rows["decisions"].sum())
        self.bombs += int(rows["bombs"].sum())
        if unit == "deal":
            bt = rows["banker_team"]
            self.wins[0] += int((bt == 0).sum())
            self.wins[1] += int((bt == 1).sum())
            self.rounds += k
            self.tributes += int((rows["tribute"] > 0).sum())
            self.anti += int(rows["anti"].sum())
            o = rows["order"]
            self.double_down += int(((o[:, 0] & 1) == (o[:, 1] & 1)).sum())
        else:
            w = rows["winner"]
            self.wins[0] += int((w == 0).sum())
            self.wins[1] += int((w == 1).sum())
            self.rounds += int(rows["rounds"].sum())
            self.tributes += int(rows["tributes"].sum())
            self.anti += int(rows["anti_tributes"].sum())


def _wilson(k: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


class SimulationResult:
    """Rows (numpy arrays, one row per deal or game) and a summary.

    Deal rows: ``game`` (chunk index x 1,000,000 + game number in the chunk), ``round``
    (round index in that game), ``level`` (round level, 0..12 = 2..A),
    ``order`` (finishing order, 4 seats), ``banker_team``, ``delta`` (levels
    gained by the banker's team; 0 when the round won the game), ``tribute``
    (payers: 0, 1 or 2), ``anti`` (anti-tribute), ``decisions`` (actions,
    tribute and return included), ``bombs`` (bombs and straight flushes
    played), ``game_over`` and ``winner`` (the game's winning team when this
    round ended it, else -1). Game rows: ``game``, ``rounds``,
    ``decisions``, ``bombs``, ``winner`` (-1: no winner within
    ``max_rounds``), ``levels`` (final team levels), ``tributes``,
    ``anti_tributes``.
    """

    def __init__(self, unit: str, n: int, rows: Optional[Dict[str, np.ndarray]], agg: _Aggregate,
                 elapsed: float, seed: int, policies: Sequence[str], rules: Rules,
                 workers: int) -> None:
        self.unit = unit
        self.n = n
        self.rows = rows
        self._agg = agg
        self.elapsed = elapsed
        self.seed = seed
        self.policies = list(policies)
        self.rules = rules
        self.workers = workers

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        s = self.summary()
        per = "deal" if self.unit == "deal" else "game"
        if not s["n"]:
            return f"<SimulationResult: no {per}s>"
        rate = s["team_win_rate"]
        wins = ", ".join("-" if r is None else f"{r:.1%}" for r in rate)
        return (f"<SimulationResult {s['n']:,} {per}s, {'/'.join(self.policies)}, rules {s['rules']}, "
                f"seed {s['seed']}: team 0/1 {'banker' if per == 'deal' else 'win'} {wins}>")

    def _repr_html_(self) -> str:
        """The summary as a table, for Jupyter."""
        import html
        s = self.summary()
        per = "deal" if self.unit == "deal" else "game"
        if not s["n"]:
            return f"<p>SimulationResult: no {per}s</p>"
        what = "banker (wins the deal)" if per == "deal" else "wins the game"
        rows: List[Tuple[str, ...]] = [("", "team 0 (seats 0, 2)", "team 1 (seats 1, 3)")]
        cells = []
        for t in (0, 1):
            r, (lo, hi) = s["team_win_rate"][t], s["team_win_ci95"][t]
            cells.append("-" if r is None else f"{r:.2%} (95%: {lo:.2%} to {hi:.2%})")
        rows.append((what, *cells))
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                       for row in rows)
        foot = (f"{s['n']:,} {per}s, policies {', '.join(self.policies)}, rules {s['rules']}, seed "
                f"{s['seed']}; {s['decisions_per_' + per]:.1f} decisions and {s['bombs_per_' + per]:.2f} "
                f"bombs per {per}; tribute {s['tribute_rate']:.1%}, anti-tribute "
                f"{s['anti_tribute_rate']:.2%} of rounds; {s['seconds']:.1f} s")
        return f"<div><table>{body}</table><p>{html.escape(foot)}</p></div>"

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame`` (two-column fields such as
        ``order`` become ``order0`` .. ``order3``). Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise GuandanError("to_pandas needs pandas: pip install pandas") from None
        return pd.DataFrame(self._columns())

    def _columns(self) -> Dict[str, np.ndarray]:
        if self.rows is None:
            raise GuandanError("rows were not kept (keep_rows=False): no rows")
        cols: Dict[str, np.ndarray] = {}
        for k, v in self.rows.items():
            if v.ndim == 2:
                for j in range(v.shape[1]):
                    cols[f"{k}{j}"] = v[:, j]
            else:
                cols[k] = v
        return cols

    def summary(self) -> Dict[str, Any]:
        """Team win rates (banker team per deal, or game winner) with 95%
        Wilson intervals, mean decisions, bomb frequency, tribute rates and
        speed."""
        a = self._agg
        decided = a.wins[0] + a.wins[1]
        per = "deal" if self.unit == "deal" else "game"
        s: Dict[str, Any] = {
            "unit": self.unit,
            "n": a.n,
            "team_win_rate": [a.wins[t] / decided if decided else None for t in (0, 1)],
            "team_win_ci95": [_wilson(a.wins[t], decided) for t in (0, 1)],
            f"decisions_per_{per}": a.decisions / a.n if a.n else 0.0,
            f"bombs_per_{per}": a.bombs / a.n if a.n else 0.0,
            "rounds": a.rounds,
            "tribute_rate": a.tributes / a.rounds if a.rounds else 0.0,
            "anti_tribute_rate": a.anti / a.rounds if a.rounds else 0.0,
            "seconds": self.elapsed,
            f"{per}s_per_s": a.n / self.elapsed if self.elapsed else float("inf"),
            "decisions_per_s": a.decisions / self.elapsed if self.elapsed else float("inf"),
            "policies": self.policies,
            "rules": self.rules.name,
            "seed": self.seed,
            "workers": self.workers,
        }
        if self.unit == "deal":
            s["double_down_rate"] = a.double_down / a.n if a.n else 0.0
        else:
            s["undecided_games"] = a.n - decided
        return s

    def format_summary(self) -> str:
        """The summary as text: speed, then per team how often it was the
        banker's team (deals) or won (games) with its 95% Wilson interval
        (never beyond 0-100%), then decisions, bombs and tribute rates."""
        s = self.summary()
        per = "deal" if self.unit == "deal" else "game"
        if not s["n"]:
            return f"0 {per}s: nothing was simulated"
        lines = [
            f"{s['n']:,} {per}s in {s['seconds']:.1f} s: {s[per + 's_per_s']:,.0f} {per}s/s, "
            f"{s['decisions_per_s']:,.0f} decisions/s ({s['workers']} workers)",
            f"policies {', '.join(self.policies)}; rules {s['rules']}; seed {s['seed']}",
            f"{'':<24}{'team 0 (seats 0,2)':>27}{'team 1 (seats 1,3)':>27}",
        ]
        what = "banker (wins the deal)" if self.unit == "deal" else "wins the game"
        cells = []
        for t in (0, 1):
            r, (lo, hi) = s["team_win_rate"][t], s["team_win_ci95"][t]
            cells.append("-" if r is None else f"{r:.2%} [{lo:.2%}, {hi:.2%}]")
        lines.append(f"{what:<24}{cells[0]:>27}{cells[1]:>27}")
        lines.append(f"{'':<24}{'(95% interval in brackets)':>27}")
        lines.append(f"decisions per {per}: {s['decisions_per_' + per]:.1f}; bombs per {per}: "
                     f"{s['bombs_per_' + per]:.2f}; tribute {s['tribute_rate']:.1%}, "
                     f"anti-tribute {s['anti_tribute_rate']:.2%} of rounds")
        return "\n".join(lines)

    __str__ = format_summary

    def save(self, path: str) -> str:
        """Save the rows: ``.npz`` (numpy), ``.csv`` (a header line, then one
        line per row; two-column fields split as in :meth:`to_pandas`) or
        ``.parquet`` (needs pyarrow); a path without a suffix gets ``.npz``,
        any other suffix is refused. The file is written to a temporary name
        and renamed when complete, so an interrupted save never leaves a
        broken file. Returns the path written."""
        if self.rows is None:
            raise GuandanError("rows were not kept (keep_rows=False): nothing to save")
        path = check_output_path(path)
        if path.endswith(".parquet"):
            import pyarrow as pa
            import pyarrow.parquet as pq
            with atomic_write(path, "wb") as f:
                pq.write_table(pa.table(self._columns()), f)
            return path
        if path.endswith(".csv"):
            cols = self._columns()
            names = list(cols)
            data = np.column_stack([cols[k].astype(np.int64) for k in names]) if names else np.zeros((0, 0))
            with atomic_write(path, "w", newline="") as f:
                f.write(",".join(names) + "\n")
                np.savetxt(f, data, fmt="%d", delimiter=",")
            return path
        import json
        meta = {"unit": self.unit, "seed": self.seed, "policies": self.policies,
                "rules": self.rules.to_dict()}
        with atomic_write(path, "wb") as f:          # complete or absent, never truncated
            arrays: Dict[str, Any] = {"__meta__": np.array(json.dumps(meta)), **self.rows}
            np.savez_compressed(f, **arrays)
        return path


def check_output_path(path: Any) -> str:
    """The validator of an output path for :meth:`SimulationResult.save`,
    used before simulating: a known format (``.npz``, ``.parquet``,
    ``.csv``; no suffix means ``.npz``), an existing writable folder, and
    pyarrow for Parquet. Returns the path that will be written."""
    if not isinstance(path, (str, os.PathLike)):
        raise GuandanError(f"an output path is a string, got {type(path).__name__}")
    path = os.fspath(path)
    if not path or path.endswith(os.sep):
        raise GuandanError(f"{path!r} is not a file name")
    ext = os.path.splitext(path)[1].lower()
    if ext == "":
        path += ".npz"
        ext = ".npz"
    if ext not in OUTPUT_FORMATS:
        raise GuandanError(f"cannot save rows as {ext!r} ({path}): use .npz, .csv or .parquet")
    check_file(path, "output")
    if ext == ".parquet":
        try:
            import pyarrow  # noqa: F401
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise GuandanError("saving Parquet needs pyarrow: pip install pyarrow") from None
    return path


def progress_bar(total: int, unit: str, enabled: Optional[bool] = None, desc: Optional[str] = None) -> Any:
    """A progress bar (tqdm) on stderr for ``total`` units; ``enabled=None``
    shows it only when stderr is a terminal. Used by every long-running
    command (simulate, the benchmarks). The bar has ``update(n)`` and
    ``close()``; when disabled it does nothing."""
    if enabled is None:
        enabled = _stderr_is_terminal()
    if not enabled:
        return _NoBar()           # no tqdm object at all (tqdm starts a monitor thread per process)
    from tqdm.auto import tqdm
    return tqdm(total=total, unit=f" {unit}s", unit_scale=True, desc=desc, file=sys.stderr,
                dynamic_ncols=True, smoothing=0.1)


class _NoBar:
    """The progress bar when none is shown."""

    disable = True

    def update(self, n: int = 1) -> None:
        pass

    def write(self, text: str) -> None:
        print(text)

    def close(self) -> None:
        pass


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _is_dask_client(ex: Any) -> bool:
    return type(ex).__module__.startswith("distributed") and hasattr(ex, "gather")


def simulate(n: int, *, unit: str = "deal",
             policies: Sequence[Union[str, Callable[..., Any]]] = ("greedy", "random", "greedy", "random"),
             rules: Optional[Rules] = None, seed: int = 0, workers: Optional[int] = None,
             executor: Any = None, progress: Optional[bool] = None, keep_rows: bool = True,
             chunk: Optional[int] = None) -> SimulationResult:
    """Simulate ``n`` deals (``unit="deal"``) or games (``unit="game"``).

    Args:
        policies: one per seat: ``"random"``, ``"greedy"`` (native) or a
            Python callable ``(observation, legal_moves) -> move`` (runs through
            :class:`guandan.Game`, much slower).
        rules: a :class:`Rules` (default rules if None).
        seed: the root seed; identical results for any ``workers``/``executor``.
        workers: threads for the local native loop (default: all cores).
        executor: a ``concurrent.futures.Executor`` or a Dask
            ``distributed.Client`` to run the chunks on instead.
        progress: a progress bar (tqdm: done, rate, ETA) on stderr; ``None``
            (default): only when stderr is a terminal.
        keep_rows: keep the per-row arrays (else only the streaming summary:
            memory constant in ``n``).
        chunk: deals (or games) per chunk; part of the result's identity.
    """
    if unit not in ("deal", "game"):
        raise GuandanError(f"unit must be 'deal' or 'game', got {unit!r}")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_N:
        raise GuandanError(f"n must be an int 0..{MAX_N:,} (deals or games), got {n!r:.40}")
    seed = check_int(seed, "seed", 0, (1 << 63) - 1)
    if workers is not None:
        workers = check_int(workers, "workers", 1, 4096)
    if chunk is not None:
        chunk = check_int(chunk, "chunk", 1, 1 << 30)
    if isinstance(policies, (str, bytes)) or not isinstance(policies, (list, tuple)) or len(policies) != 4:
        raise GuandanError(f"give one policy per seat (a sequence of 4), got {policies!r:.60}")
    rules = resolve_rules(rules)
    for p in policies:
        if not callable(p):
            native_code(p)           # unknown names (and non-names) fail here
    u = 0 if unit == "deal" else 1
    size = chunk or (CHUNK_DEALS if u == 0 else CHUNK_GAMES)
    nchunks = (n + size - 1) // size
    native = all(isinstance(p, str) for p in policies)
    names = [p if isinstance(p, str) else getattr(p, "__name__", type(p).__name__) for p in policies]
    workers = workers or os.cpu_count() or 1

    def task(i: int) -> Tuple[Callable[..., Any], tuple]:
        k = min(size, n - i * size)
        if native:
            return _run_native, (seed, i, k, u, tuple(native_code(str(p)) for p in policies), rules)
        return _run_python, (seed, i, k, u, list(policies), rules)

    own_pool = None
    if executor is None:
        own_pool = ThreadPoolExecutor(max_workers=workers) if (native and workers > 1) else None
        ex = own_pool
    else:
        ex = executor
    agg = _Aggregate()
    parts: List[Dict[str, np.ndarray]] = []
    t0 = time.perf_counter()
    window = max(2, 4 * workers)
    bar = progress_bar(n, unit, progress)
    done = 0
    stopped = False
    try:
        pending: List[Any] = []
        nxt = 0
        for i in range(nchunks):
            while nxt < nchunks and len(pending) < window and ex is not None:
                fn, args = task(nxt)
                pending.append(ex.submit(fn, *args))
                nxt += 1
            if ex is None:
                fn, args = task(i)
                rows = fn(*args)
            else:
                fut = pending.pop(0)
                rows = fut.result()
            # chunk i's games are numbered after the previous chunks'
            rows["game"] = rows["game"].astype(np.int64) + i * 1_000_000
            agg.add(unit, rows)
            if keep_rows:
                parts.append(rows)
            done += len(rows["decisions"])
            bar.update(len(rows["decisions"]))
    except KeyboardInterrupt:
        stopped = True
    finally:
        bar.close()
        if own_pool is not None:
            own_pool.shutdown(wait=True, cancel_futures=True)
    elapsed = time.perf_counter() - t0
    rows_all = None
    if keep_rows:
        keys = _sim.DEAL_FIELDS if u == 0 else _sim.GAME_FIELDS
        if parts:
            rows_all = {k: np.concatenate([p[k] for p in parts]) for k in keys}
        else:
            rows_all = {k: np.zeros((0, 4) if k == "order" else ((0, 2) if k == "levels" else 0))
                        for k in keys}
    res = SimulationResult(unit, done if stopped else n, rows_all, agg, elapsed, seed, names, rules,
                           workers)
    if stopped:
        raise SimulationInterrupted(res, n)
    return res


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`simulate`: ``result`` holds the chunks finished
    before it (``result.n`` of the ``asked`` deals or games, the same rows a
    run of that many would give); a KeyboardInterrupt, so code that handles
    Ctrl-C handles it."""

    def __init__(self, result: SimulationResult, asked: int) -> None:
        super().__init__(f"interrupted after {result.n:,} of {asked:,} {result.unit}s")
        self.result = result
        self.asked = asked


def play_starts(seeds: Sequence[int], policies: Sequence[str], *, unit: str = "deal",
                levels: Optional[Sequence[Sequence[int]]] = None,
                owner: Optional[Sequence[int]] = None,
                last_order: Optional[Sequence[Optional[Sequence[int]]]] = None,
                policy_seeds: Optional[Sequence[int]] = None,
                rules: Optional[Rules] = None, records: bool = False
                ) -> Tuple[Dict[str, np.ndarray], Optional[List[Dict[str, Any]]]]:
    """Play given starts once each in the native loop, one built-in policy
    name per seat (the loop the arena uses for built-in participants).

    ``unit="deal"``: start ``i`` is ``Game.from_deal(seeds[i], levels[i],
    owner[i], last_order[i])`` (levels as rank indices 0..12 = 2..A;
    ``last_order[i]`` None for a first-round start) and one round is played.
    ``unit="game"``: start ``i`` is ``Game(seed=seeds[i])`` played to the end.
    ``policy_seeds[i]`` seeds the built-in random policy's draws (default:
    as ``Game`` derives it from the seed). The results are exactly those of
    ``Game.play_policy`` with the same names on the same starts
    (``Game.from_deal(..., policy_seed=...)``). Rows: ``order``
    (finishing order of the last round played), ``points`` (the banker
    team's 1..3 of that round, before the cap at A), ``tribute`` (payers,
    0 when anti-tribute), ``anti``, ``decisions``, ``bombs``, ``winner``
    (game winner or -1), ``rounds``, ``levels`` (final team levels). With
    ``records``, also each start's :meth:`Game.record`.
    """
    if unit not in ("deal", "game"):
        raise GuandanError(f"unit must be 'deal' or 'game', got {unit!r}")
    if len(policies) != 4:
        raise GuandanError(f"give one policy per seat (4), got {len(policies)}")
    rules = resolve_rules(rules)
    codes = np.array([native_code(p) for p in policies], dtype=np.int16)
    n = len(seeds)
    sd = np.asarray(seeds, dtype=np.uint64).reshape(n)
    lv = np.zeros((n, 2), dtype=np.int8) if levels is None else np.asarray(levels, dtype=np.int8).reshape(n, 2)
    ow = np.zeros(n, dtype=np.int8) if owner is None else np.asarray(owner, dtype=np.int8).reshape(n)
    lo = np.full((n, 4), -1, dtype=np.int8)
    if last_order is not None:
        for i, o in enumerate(last_order):
            if o is not None:
                lo[i] = o
    if policy_seeds is None:
        ps = sd ^ np.uint64(POLICY_SALT)           # policy_seed, elementwise
    else:
        ps = np.asarray(policy_seeds, dtype=np.uint64).reshape(n)
    u = 0 if unit == "deal" else 1
    rows, words = _sim.run_setups(sd, ps, lv, ow, lo, codes, u, rules.native, records)
    if not records:
        return rows, None
    recs = []
    for i in range(n):
        if u == 0:
            g = Game.from_deal(int(sd[i]), ["23456789TJQKA"[x] for x in lv[i]], int(ow[i]),
                               None if lo[i, 0] < 0 else [int(x) for x in lo[i]], rules=rules,
                               policy_seed=int(ps[i]))
        else:
            g = Game(rules=rules, seed=int(sd[i]), policy_seed=int(ps[i]))
        for seat, w0, w1 in words[i]:
            g.play(Move._from_native(int(w0), int(w1), g._core.rlevel))
        recs.append(g.record())
    return rows, recs
