"""The arena's driver: pairings, scheduling on executors, SPRT stopping.

Results of each pairing are consumed in deal order (results that arrive
early wait), so statistics, SPRT decisions and the stopping point are the
same for any concurrency or executor: a pairing that stops at deal k keeps
exactly deals 0..k.
"""

from __future__ import annotations

import concurrent.futures as cf
from concurrent.futures.process import BrokenProcessPool
import json
import os
import random
import re
import signal
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .._files import check_output_path
from ..errors import GuandanError
from ..rules import Rules
from . import stats as st
from .cluster import check_cluster, cluster_threads, is_dask_client, pack, run_packed
from .participants import Participant, parse_participants
from .runner import (SPAWN_LOCK, Limits, play_batch_isolated, play_batch_native, play_batch_python,
                     worker_init)
from .schedule import DealSpec, deal_spec, pairings, parse_levels

__all__ = ["arena", "ArenaResult", "PairingResult", "ArenaInterrupted"]

NATIVE_BATCH = 250          # deals per native task
PYTHON_BATCH = 4            # deals per task through Game (SPRT and progress granularity)


class ArenaInterrupted(KeyboardInterrupt):
    """A run stopped by a signal (Ctrl-C: SIGINT; ``guandan arena`` also
    raises it on SIGTERM). A KeyboardInterrupt, so code that handles Ctrl-C
    handles it; :func:`arena` re-raises it with ``result``: the
    :class:`ArenaResult` of the pairs finished so far (``result.interrupted``
    says by what and after how many pairs), already written to ``output``."""

    def __init__(self, signum: int = signal.SIGINT, result: Optional["ArenaResult"] = None) -> None:
        super().__init__(signum)
        self.signum = signum
        self.result = result

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"


class PairingResult:
    """The paired results of A against B, in deal order, with statistics."""

    def __init__(self, index: int, a: Participant, b: Participant, sprt: Optional[st.SPRT]) -> None:
        self.index = index
        self.a, self.b = a, b
        self.sprt = sprt
        self.pairs: List[Dict[str, Any]] = []
        self.counts = [0] * 5
        self.forfeits: List[Dict[str, Any]] = []
        self.decision: Optional[str] = None       # SPRT "H0"/"H1" once decided
        self.llr_history: List[float] = []
        self.score_history: List[float] = []
        self.done = False

    def add(self, pair: Dict[str, Any]) -> None:
        self.pairs.append(pair)
        self.counts[int(round(pair["pair"] * 2))] += 1
        for h in pair["halves"]:
            if h["forfeit"]:
                self.forfeits.append({"deal": pair["deal"], "half": h["half"], **h["forfeit"]})
        n = len(self.pairs)
        self.score_history.append(sum(p["pair"] for p in self.pairs) / (2 * n))
        if self.sprt is not None:
            llr = self.sprt.llr(self.counts)
            self.llr_history.append(llr)
            status = self.sprt.status(self.counts)
            if status != "continue":
                self.decision = status
                self.done = True

    def stats(self) -> Dict[str, Any]:
        s = st.score_stats(self.counts)
        halves = [h for p in self.pairs for h in p["halves"]]
        wins = sum(1 for h in halves if h["score"] == 1.0)
        losses = sum(1 for h in halves if h["score"] == 0.0)
        s["halves"] = len(halves)
        s["wins"], s["losses"], s["draws"] = wins, losses, len(halves) - wins - losses
        s["points"] = st.points_stats([p["pair_points"] for p in self.pairs])
        if self.sprt is not None:
            s["sprt"] = {**self.sprt.to_dict(), "llr": self.sprt.llr(self.counts),
                         "decision": self.decision or "continue"}
        return s

    def to_dict(self, with_pairs: bool = True) -> Dict[str, Any]:
        d = {"a": self.a.name, "b": self.b.name, "stats": self.stats(), "forfeits": self.forfeits}
        if with_pairs:
            d["pairs"] = self.pairs
        return d


class ArenaResult:
    """Everything a run produced: participants, pairings with their paired
    results and statistics, ratings (fitted when there are more than two
    participants, or always for a gauntlet/round-robin), settings."""

    def __init__(self, participants: List[Participant], results: List[PairingResult],
                 settings: Dict[str, Any], elapsed: float) -> None:
        self.participants = participants
        self.pairings = results
        self.settings = settings
        self.elapsed = elapsed
        self.ratings = self._fit() if len(participants) > 2 else None
        # None, or {"signal": "SIGINT", "pairs": done, "of": planned}: the run
        # was stopped and these are the pairs finished before
        self.interrupted: Optional[Dict[str, Any]] = None

    def _fit(self) -> Optional[Dict[str, Any]]:
        data = [(self.participants.index(r.a), self.participants.index(r.b),
                 [p["pair"] for p in r.pairs]) for r in self.pairings if r.pairs]
        if not _connected(len(self.participants), [(i, j) for i, j, _ in data]):
            return None        # an interrupted run: some participant is not linked to the rest
        fit = st.fit_ratings(len(self.participants), data)
        return {"names": [p.name for p in self.participants], **fit}

    def __getitem__(self, i: int) -> PairingResult:
        return self.pairings[i]

    def to_dict(self, with_pairs: bool = True) -> Dict[str, Any]:
        return {"format": "guandan-arena/1", "settings": self.settings,
                "participants": [p.to_dict() for p in self.participants],
                "pairings": [r.to_dict(with_pairs) for r in self.pairings],
                "ratings": self.ratings, "seconds": self.elapsed,
                "interrupted": self.interrupted}

    def save(self, path: str) -> str:
        from .._files import atomic_write
        with atomic_write(path, "w") as f:
            json.dump(_jsonable(self.to_dict()), f)
        return path

    def format(self) -> str:
        from .report import format_result
        return format_result(self)

    __str__ = format

    def plot(self, path: str) -> str:
        from .report import plot_result
        return plot_result(self, path)


def _connected(n: int, edges: Sequence[Tuple[int, int]]) -> bool:
    """Whether the pairings with results link all n participants."""
    seen, todo = {0}, [0]
    while todo:
        k = todo.pop()
        for i, j in edges:
            for a, b in ((i, j), (j, i)):
                if a == k and b not in seen:
                    seen.add(b)
                    todo.append(b)
    return len(seen) == n


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return None if x != x else ("inf" if x > 0 else "-inf")     # strict JSON
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.#=-]+", "_", name)[:60]


def schedule_seed(seed: Optional[int], external: bool) -> int:
    """The deal schedule's seed: ``seed`` when given; else 0, or with
    external programs a random one (a program that knew the schedule could
    work out the other hands from its own).

    >>> schedule_seed(None, False), schedule_seed(7, True)
    (0, 7)
    """
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise GuandanError(f"seed must be a non-negative int, got {seed!r}")
        return seed
    return random.SystemRandom().getrandbits(62) if external else 0


def arena(participants: Sequence[Any], *, deals: int = 1000, unit: str = "deal",
          tournament: Optional[str] = None, seed: Optional[int] = None, rules: Optional[Rules] = None,
          levels: Any = "random", tribute: bool = True, sprt: Any = None,
          concurrency: Optional[int] = None, executor: Any = None,
          limits: Optional[Limits] = None, records: Optional[str] = None,
          progress: Any = False, output: Optional[str] = None,
          on_pair: Optional[Callable[[PairingResult, Dict[str, Any]], None]] = None,
          spectators: Any = None) -> ArenaResult:
    """Rate participants by duplicate deals (or games).

    Args:
        participants: built-in policy specs (``"greedy"``, ``"search:ms=200"``),
            ``"module:Class"`` SDK bots, Bot objects or callables, or
            :class:`Engine` external programs.
        deals: duplicate deals per pairing (each played twice, seats swapped).
        unit: ``"deal"`` (one round from a seeded start) or ``"game"`` (whole
            games from level 2, both halves with the same deal sequence seed).
        seed: the deal schedule's seed (deal ``i`` comes from ``seed`` and
            ``i`` alone). Default: 0, or with external programs a random
            one (recorded in the result's settings): a program that knew
            the schedule could work out the other hands from its own.
        tournament: ``"head-to-head"`` (two participants; the default for two),
            ``"gauntlet"`` (the first against each other one) or
            ``"round-robin"`` (the default for three or more).
        levels: ``"random"`` (a seeded level 2..A per team and deal), one rank
            for both teams, or ``"L0,L1"``.
        tribute: deals start with a seeded previous finishing order (tribute,
            return or anti-tribute); False: first-round deals.
        sprt: an :class:`SPRT`, a dict or ``"elo0=0 elo1=10 alpha=0.05
            beta=0.05"``: stop each pairing as soon as it decides.
        concurrency: tables at once (default: the number of cores; on a
            Dask cluster its worker threads).
        executor: a ``concurrent.futures`` executor or a Dask
            ``distributed.Client`` for the built-in and in-process tables
            (default: threads for native tables, a process pool otherwise).
            On a Dask cluster the result is the one of a local run with the
            same seed; external programs and participants the workers
            cannot make are refused before the first deal
            (:mod:`guandan.arena.cluster`).
        limits: :class:`Limits` (per-move and per-game time, round cap).
        records: a folder: every game's record (``Game.record()`` plus an
            ``arena`` entry) is written there, one JSON file per half.
        progress: True for a live line on stderr (tqdm when installed).
        output: write the JSON result here.
        spectators: a :class:`guandan.feed.Spectators` hub (the web table's,
            ``guandan arena --web PORT``): the external programs' tables
            are published there while they play (built-in and in-process
            pairings run natively, without tables, and are not shown).
    """
    if unit not in ("deal", "game"):
        raise GuandanError(f"unit must be 'deal' or 'game', got {unit!r}")
    if not isinstance(deals, int) or deals < 1:
        raise GuandanError(f"deals must be a positive int, got {deals!r}")
    parts = parse_participants(participants)
    if len(parts) < 2:
        raise GuandanError("the arena needs at least two participants")
    tournament = tournament or ("head-to-head" if len(parts) == 2 else "round-robin")
    seed = schedule_seed(seed, any(p.kind == "external" for p in parts))
    try:
        pairs = pairings(len(parts), tournament)
        lv = parse_levels(levels)
    except ValueError as e:
        raise GuandanError(str(e)) from None
    if isinstance(sprt, str):
        try:
            sprt = st.SPRT.parse(sprt)
        except ValueError as e:
            raise GuandanError(str(e)) from None
    elif isinstance(sprt, dict):
        sprt = st.SPRT(**sprt)
    limits = limits or Limits()
    if output:
        check_output_path(output, "output")           # before the first deal, not after the last
    if records:
        check_output_path(records, "records", folder=True)
    rules = rules if rules is not None else Rules.default()
    dask = executor is not None and is_dask_client(executor)
    if dask:
        # everything the cluster cannot run is refused now, not hours later
        check_cluster(executor, parts, (deal_spec(seed, 0, levels=lv, tribute=tribute), unit, rules, limits))
    concurrency = concurrency or (cluster_threads(executor) if dask else os.cpu_count() or 1)
    settings = {"deals": deals, "unit": unit, "tournament": tournament, "seed": seed,
                "rules": rules.to_dict(), "levels": levels, "tribute": tribute,
                "sprt": sprt.to_dict() if sprt else None, "concurrency": concurrency,
                "limits": limits.to_dict()}
    results = [PairingResult(k, parts[i], parts[j], sprt) for k, (i, j) in enumerate(pairs)]
    specs_cache: Dict[int, DealSpec] = {}

    def spec(i: int) -> DealSpec:
        if i not in specs_cache:
            specs_cache[i] = deal_spec(seed, i, levels=lv, tribute=tribute)
        return specs_cache[i]

    # the kind of table each pairing needs
    def kind(r: PairingResult) -> str:
        if r.a.kind == "external" or r.b.kind == "external":
            return "external"
        if r.a.native and r.b.native:
            return "native"
        return "python"

    kinds = [kind(r) for r in results]
    batch = {"native": NATIVE_BATCH, "python": PYTHON_BATCH, "external": 1}
    if records:
        os.makedirs(records, exist_ok=True)
    # task queue: batch by batch, pairing by pairing (all pairings advance together)
    queue: List[Tuple[int, List[int]]] = []
    nb = {k: (deals + batch[k] - 1) // batch[k] for k in batch}
    for b in range(max(nb.values())):
        for r, k in zip(results, kinds):
            lo = b * batch[k]
            if lo < deals:
                queue.append((r.index, list(range(lo, min(deals, lo + batch[k])))))
    ext_table: Any = None
    pools: Dict[str, Any] = {}

    def pool_for(k: str) -> Any:
        if k == "external":
            return ext_table
        if executor is not None:
            return executor
        if k not in pools:
            if k == "native":
                pools[k] = cf.ThreadPoolExecutor(max_workers=concurrency)
            elif _picklable([r.a for r in results] + [r.b for r in results]):
                pools[k] = cf.ProcessPoolExecutor(max_workers=concurrency, initializer=worker_init,
                                                  initargs=(os.getpid(),))
            else:
                # objects that cannot go to another process play here, in the
                # main thread (where the per-move alarm still works)
                pools[k] = InlineExecutor()
        return pools[k]

    # Dask: every task its own key (pure=False): two pairings with the same
    # participants submit equal tasks, and stopping one must not cancel the other's
    extra: Dict[str, Any] = {"pure": False} if dask else {}

    def submit(idx: int, deal_ids: List[int]) -> Any:
        r = results[idx]
        k = kinds[idx]
        sp = [spec(i) for i in deal_ids]
        want = records is not None
        if k == "native":
            return pool_for(k).submit(play_batch_native, r.a.native, r.b.native, sp, unit, rules,
                                      limits, want, **extra)
        if k == "python":
            pool = pool_for(k)
            # a process pool forks its workers in submit: not while a program starts
            with SPAWN_LOCK:
                if dask:           # the participants go as cloudpickle makes them (cluster.pack)
                    return pool.submit(run_packed, pack(play_batch_python, r.a, r.b, sp, unit, rules, limits,
                                                        want), **extra)
                return pool.submit(play_batch_python, r.a, r.b, sp, unit, rules, limits, want)
        return ext_table.submit(r.a, r.b, sp, want)

    from .report import Progress
    prog = Progress(results, deals, enabled=progress)
    buffered: Dict[int, Dict[int, Tuple[Dict[str, Any], Any]]] = {r.index: {} for r in results}
    t0 = time.perf_counter()
    window = max(2, 2 * concurrency)
    pending: Dict[Any, int] = {}
    task_ids: Dict[Any, List[int]] = {}
    qi = 0
    stopped: Optional[KeyboardInterrupt] = None
    failed = False
    try:
        if "external" in kinds:
            from .external import ExternalTables
            ext_table = ExternalTables(rules, unit, limits, concurrency, spectators)
        while qi < len(queue) or pending:
            while qi < len(queue) and len(pending) < window:
                idx, ids = queue[qi]
                qi += 1
                if results[idx].done:
                    continue
                fut = submit(idx, ids)
                pending[fut] = idx
                task_ids[fut] = ids
            if not pending:
                continue
            done = _wait_any(list(pending), dask)
            for fut in done:
                idx = pending.pop(fut)
                ids = task_ids.pop(fut)
                r = results[idx]
                if r.done or fut.cancelled():
                    continue                   # a stopped pairing: the rest is discarded
                try:
                    pair_list, recs = fut.result()
                except BrokenProcessPool:
                    # a bot killed its worker process: that pool is gone; this
                    # batch is replayed half by half in processes of their own
                    broken = pools.pop("python", None)
                    if broken is not None:
                        broken.shutdown(wait=False, cancel_futures=True)
                    pair_list, recs = play_batch_isolated(r.a, r.b, [spec(i) for i in ids], unit,
                                                          rules, limits, records is not None)
                except Exception as e:
                    if not (dask and type(e).__name__ == "KilledWorker"):
                        raise
                    # Dask ran the batch again after each worker death (a killed
                    # worker costs nothing) and gave up: the batch kills its
                    # workers. As after a broken local pool: replayed here, half
                    # by half in processes of their own, the side whose process
                    # dies forfeits (the result of a local run)
                    if kinds[idx] != "python":
                        raise GuandanError(f"{r.a.name} vs {r.b.name}: the Dask workers died playing "
                                           f"deals {ids[0]}..{ids[-1]} ({' '.join(str(e).split())[:200]})"
                                           ) from None
                    pair_list, recs = play_batch_isolated(r.a, r.b, [spec(i) for i in ids], unit,
                                                          rules, limits, records is not None)
                for n, pr in enumerate(pair_list):
                    buffered[idx][pr["deal"]] = (pr, recs[n] if recs else None)
                # consume in deal order
                while not r.done and len(r.pairs) in buffered[idx]:
                    pr, rec = buffered[idx].pop(len(r.pairs))
                    r.add(pr)
                    if rec is not None:
                        _save_records(records, r, pr, rec, spec(pr["deal"]))
                    if on_pair is not None:
                        on_pair(r, pr)
                    if len(r.pairs) >= deals:
                        r.done = True
                if r.done:
                    buffered[idx].clear()
                    for f, j in list(pending.items()):
                        if j == idx:
                            f.cancel()         # if it already runs, its result is ignored
                prog.update()
    except KeyboardInterrupt as e:        # Ctrl-C (or SIGTERM through guandan arena)
        stopped = e
    except BaseException:
        failed = True
        raise
    finally:
        # every process the run started ends here, whichever way it ends:
        # an interrupted or failed run waits for no running task
        try:
            _cleanup(pending, ext_table, pools, abort=failed or stopped is not None)
        except KeyboardInterrupt as e:
            # a signal while a finished run cleaned up: the rest without waiting
            _cleanup(pending, ext_table, pools, abort=True)
            if stopped is None:
                stopped = e
        prog.close()
    res = ArenaResult(parts, results, settings, time.perf_counter() - t0)
    if stopped is not None:
        signum = getattr(stopped, "signum", signal.SIGINT)
        res.interrupted = {"signal": ArenaInterrupted(signum).signal_name,
                           "pairs": sum(len(r.pairs) for r in results),
                           "of": deals * len(results)}
    if output:
        res.save(output)
    if stopped is not None:
        raise ArenaInterrupted(signum, res) from None
    return res


def _cleanup(pending: Dict[Any, int], ext_table: Any, pools: Dict[str, Any], abort: bool) -> None:
    """Cancel what is queued, kill the external programs, shut the pools."""
    for f in pending:
        f.cancel()
    try:
        if ext_table is not None:
            ext_table.close()
    finally:
        for p in pools.values():
            _shutdown(p, abort)


def _shutdown(pool: Any, abort: bool) -> None:
    """Shut an executor down; ``abort``: without waiting for running tasks,
    the arena's own worker processes terminated (killed if they resist)."""
    if not abort:
        pool.shutdown(wait=True, cancel_futures=True)
        return
    procs = list((getattr(pool, "_processes", None) or {}).values()) \
        if isinstance(pool, cf.ProcessPoolExecutor) else []
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    end = time.monotonic() + 2.0
    for p in procs:
        p.join(max(0.0, end - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1)


def _picklable(objs: Sequence[Any]) -> bool:
    import pickle
    try:
        pickle.dumps(list(objs))
        return True
    except Exception:
        return False


class InlineExecutor:
    """An executor that runs each task at once in the calling thread."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future:
        f: cf.Future = cf.Future()
        try:
            f.set_result(fn(*args))
        except BaseException as e:
            f.set_exception(e)
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def _wait_any(futs: List[Any], dask: bool) -> List[Any]:
    if dask:
        # distributed.wait raises on cancelled futures (a stopped pairing's): poll
        while True:
            done = [f for f in futs if f.done()]
            if done:
                return done
            time.sleep(0.002)
    finished, _ = cf.wait(futs, return_when=cf.FIRST_COMPLETED)
    return list(finished)


def _save_records(folder: Optional[str], r: PairingResult, pr: Dict[str, Any], recs: Any,
                  spec: DealSpec) -> None:
    if not folder:
        return
    sub = os.path.join(folder, f"{_safe(r.a.name)}-vs-{_safe(r.b.name)}")
    os.makedirs(sub, exist_ok=True)
    for half, rec in enumerate(recs):
        h = pr["halves"][half]
        seats = [r.a.name, r.b.name, r.a.name, r.b.name] if half == 0 else \
            [r.b.name, r.a.name, r.b.name, r.a.name]
        rec = dict(rec)
        rec["arena"] = {"deal": pr["deal"], "half": half, "seats": seats, "spec": spec.to_dict(),
                        "score_a": h["score"], "points_a": h["points"], "forfeit": h["forfeit"],
                        "a": r.a.name, "b": r.b.name}
        path = os.path.join(sub, f"deal{pr['deal']:06d}-{half}.json")
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(rec, f)
        os.replace(tmp, path)
