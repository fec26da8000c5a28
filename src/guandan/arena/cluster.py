"""The arena on a Dask cluster: connecting, and what may run there.

``arena(..., executor=client)`` (a ``distributed.Client``) or ``guandan
arena ... --dask ADDRESS`` sends the arena's batches to the cluster's
workers instead of local threads and processes. A batch is a pure function
of (participants, deal specs, rules, limits), seeded by the deals' indices
in the schedule, never by a worker, and the arena consumes the results of
each pairing in deal order: the result table is the one of a local run with
the same seed, on any number of workers.

What runs remotely: built-in policies (native names in the native loop,
specs with options such as ``search:rollouts=200`` through ``Game``) and
in-process bots that can be pickled (cloudpickle: objects, classes,
callables; a ``module:Class`` bot only if its module can be imported on the
workers). What is refused before anything is played, in one line: external
programs (``Engine``: the arena starts them as local processes connected to
its own table server), participants that cannot be pickled or made on the
workers, and workers whose engine plays a probe deal otherwise than this
process (another build or version of guandan).

``dask`` / ``distributed`` are the optional extra ``dask``; they are
imported only here, and only when a cluster is used.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..errors import GuandanError

__all__ = ["MISSING_DASK", "connect", "is_dask_client", "check_cluster", "cluster_threads", "pack",
           "run_packed"]

MISSING_DASK = "--dask needs dask.distributed: pip install '.[dask]' in the guandan folder"


CHECK_TIMEOUT = 120.0      # seconds the workers have to run the check before the first deal


def is_dask_client(ex: Any) -> bool:
    """Whether ``ex`` is a ``distributed.Client`` (told without importing dask)."""
    return type(ex).__module__.startswith("distributed") and hasattr(ex, "gather")


def connect(address: str, timeout: float = 30.0) -> Any:
    """A ``distributed.Client`` connected to the scheduler at ``address``
    (``tcp://HOST:8786``, or a scheduler file's path ending in ``.json``),
    or a GuandanError in one line: dask missing, scheduler unreachable. The
    caller closes it; it starts no process."""
    try:
        from distributed import Client
    except ImportError:
        raise GuandanError(MISSING_DASK) from None
    if not isinstance(address, str) or not address.strip():
        raise GuandanError(f"--dask takes a scheduler address such as tcp://HOST:8786, got {address!r}")
    try:
        if address.endswith(".json"):
            return Client(scheduler_file=address, timeout=timeout)
        return Client(address, timeout=timeout)
    except (OSError, ValueError, TypeError) as e:
        why = " ".join(str(e).split()) or type(e).__name__
        raise GuandanError(f"cannot connect to the Dask scheduler at {address}: {why[:300]}") from None


def cluster_threads(client: Any) -> int:
    """The worker threads of the cluster now (at least 1)."""
    try:
        return max(1, sum(int(n) for n in client.nthreads().values()))
    except Exception:
        return 1


def pack(fn: Any, *args: Any) -> bytes:
    """A task for :func:`run_packed`: ``fn`` and its arguments pickled with
    cloudpickle, here. Dask pickles a task's arguments with the standard
    pickle first, which names a bot's class by reference even when its
    module is registered to go by value (``cloudpickle.register_pickle_by_value``)
    or cannot be imported on the workers; and a task that a worker cannot
    unpickle fails in its connection, never as an error of the task."""
    import cloudpickle
    return cloudpickle.dumps((fn, args))


def run_packed(data: bytes) -> Any:
    """Run on a worker: the task :func:`pack` made."""
    import pickle
    fn, args = pickle.loads(data)
    return fn(*args)


def _remote_check(pickled: Sequence[bytes], probe: Any) -> Dict[str, Any]:
    """Run on a worker: the probe deal's result there, and for each
    participant that plays in Python (pickled here: a class the worker
    cannot import fails in this function, not in the worker's connection)
    whether it can be made there (None, or why not)."""
    import pickle
    errors: List[Optional[str]] = []
    for data in pickled:
        try:
            pickle.loads(data).make(1)
            errors.append(None)
        except Exception as e:      # a module missing on the worker, a broken bot
            errors.append(f"{type(e).__name__}: {' '.join(str(e).split())[:200]}")
    return {"probe": _probe(*probe), "errors": errors}


def _probe(spec: Any, unit: str, rules: Any, limits: Any) -> Any:
    """One duplicate deal of greedy against random in the native loop."""
    from .runner import play_batch_native
    return play_batch_native("greedy", "random", [spec], unit, rules, limits, False)[0]


def check_cluster(client: Any, participants: Sequence[Any], probe: Any) -> None:
    """Before the first deal: refuse, in one line, what cannot run on the
    cluster (external programs, participants that cannot be pickled or made
    on a worker) and workers whose engine plays ``probe`` (the run's first
    deal spec, unit, rules, limits) otherwise than this process."""
    for p in participants:
        if p.kind == "external":
            raise GuandanError(f"{p.name}: an external program (--engine) cannot play on a Dask "
                               "cluster (the arena starts it as a local process connected to its own "
                               "table server); rate it without --dask")
    python = [p for p in participants if p.native is None]
    try:
        import cloudpickle
    except ImportError:                      # distributed needs it: not expected
        raise GuandanError(MISSING_DASK) from None
    pickled = []
    for p in python:
        try:
            pickled.append(cloudpickle.dumps(p))
        except Exception as e:
            raise GuandanError(f"{p.name}: cannot be sent to the Dask workers (it cannot be pickled: "
                               f"{type(e).__name__}: {' '.join(str(e).split())[:200]})") from None
    fut = client.submit(_remote_check, pickled, probe, pure=False)
    try:
        info = fut.result(timeout=CHECK_TIMEOUT)
    except TimeoutError:
        fut.cancel()
        raise GuandanError(f"no Dask worker ran the arena's first task within {CHECK_TIMEOUT:g} s (has the "
                           "scheduler any workers?)") from None
    except Exception as e:
        why = " ".join(str(e).split())[:300] or type(e).__name__
        raise GuandanError(f"the Dask workers cannot run the arena's participants ({type(e).__name__}: "
                           f"{why})") from None
    if info["probe"] != _probe(*probe):
        raise GuandanError("the Dask workers play a deal otherwise than this process (another guandan "
                           "version or build?): install the same guandan on the workers")
    for p, err in zip(python, info["errors"]):
        if err is not None:
            raise GuandanError(f"{p.name}: cannot be made on a Dask worker ({err}); a module:Class bot's "
                               "module must be importable on the workers")
