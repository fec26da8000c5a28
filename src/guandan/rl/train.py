"""Deep Monte-Carlo training (DouZero, DanZero) on the native engine.

One run is a fixed schedule of *iterations*. In iteration ``i`` the actors
play ``actors`` tasks of ``games`` deals each (:func:`guandan.rl.actor.play_chunk`)
with the network of iteration ``i``, while the learner trains on the replay
of earlier iterations; the new samples then enter the replay. The first
``imitation`` iterations are the warm start: the native ``expert`` plays
every seat and the learner imitates it (cross-entropy over the legal moves
plus the value of its move); the rest is self-play, ε-greedy, with the
Monte-Carlo return of each decision as its target.

Every task is a pure function of the network and of seeds derived from
``(seed, iteration, actor)``, and the learner's batches come from a seeded
generator: the same configuration gives the same network on any executor —
a local process pool, threads, or a Dask cluster (``executor=`` takes a
``concurrent.futures`` executor or a ``distributed.Client``) — and a run
resumed from its training state continues exactly as if it had not stopped.

Files in the output folder:

* ``model.npz``: the current network (:mod:`guandan.rl.checkpoint`, playable
  as ``net:path=model.npz``), written at every iteration;
* ``state.npz``: the training state (network, Adam, replay, generator,
  schedule position), written every ``checkpoint_minutes``, at the end and
  on Ctrl-C; ``train(..., resume=True)`` continues from it;
* ``log.jsonl``: one JSON line per iteration (losses, samples/s, engine
  share) and per evaluation (deal share against each opponent with its 95%
  interval, at wall time and sample count);
* ``curve.png``: the learning curve (:func:`plot_curve`, needs matplotlib).
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import os
import signal
import tempfile
import time
from dataclasses import asdict, dataclass, fields
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._files import atomic_write, read_bounded
from ..errors import GuandanError
from ..seeds import chunk_seeds
from ..vec import OBS_DIM
from .actor import MAX_IMITATION_MOVES, ROW_DIM, ActorTask, ChunkResult, actor_context, play_chunk
from .checkpoint import load_checkpoint, save_checkpoint
from .model import init_layers, parse_hidden, row_scale, unfold_scale

__all__ = ["TrainConfig", "train", "Replay", "plot_curve", "read_log"]

STATE_VERSION = 1


@dataclass
class TrainConfig:
    """A training run's settings (every field has a default).

    * ``hidden``: hidden layers, ``"256x3"`` or ``"512,256"``;
    * ``seed``: every random thing of the run derives from it;
    * ``actors``: tasks per iteration (run in parallel); ``games``: deals
      per task; ``epsilon``: exploration;
    * ``imitation``: warm-start iterations (``expert`` plays, the net imitates);
    * ``lr``, ``batch``: Adam's learning rate and the batch size;
      ``imitation_lr``: the learning rate of the warm start (0: ``lr``);
      ``reuse``: how many times, on average, a sample is drawn before it
      leaves the replay (updates per iteration = new samples × reuse / batch);
      ``replay``: samples kept;
    * ``iterations`` / ``minutes`` / ``samples``: stop at the first reached
      (0: no limit; at least one must be set);
    * ``eval_minutes``: evaluate every so often (0: only at the end);
      ``eval_deals``: duplicate deals per opponent; ``eval_opponents``;
      ``eval_seed``: the evaluation deals (the same at every evaluation);
    * ``checkpoint_minutes``: how often the training state is saved;
    * ``opponent``: a native policy spec that plays one team of every
      self-play deal (``"expert"``: the network learns to beat it;
      :class:`guandan.rl.actor.ActorTask`); ``""``: the network plays
      every seat;
    * ``init``: a ``"guandan"`` checkpoint to start from instead of random
      weights (its hidden layers replace ``hidden``): fine-tuning.
    """

    hidden: str = "256x3"
    seed: int = 0
    actors: int = 2
    games: int = 128
    epsilon: float = 0.05
    imitation: int = 0
    lr: float = 3e-4
    imitation_lr: float = 0.0
    batch: int = 1024
    reuse: float = 2.0
    replay: int = 400_000
    iterations: int = 0
    minutes: float = 0.0
    samples: int = 0
    eval_minutes: float = 10.0
    eval_deals: int = 200
    eval_opponents: Tuple[str, ...] = ("greedy", "expert")
    eval_seed: int = 20_000
    checkpoint_minutes: float = 5.0
    opponent: str = ""
    init: str = ""

    def check(self) -> "TrainConfig":
        parse_hidden(self.hidden)
        ints = {"seed": (0, (1 << 63) - 1), "actors": (1, 1024), "games": (1, 1 << 16), "imitation": (0, 1 << 30),
                "batch": (8, 1 << 16), "replay": (1024, 1 << 26), "iterations": (0, 1 << 30),
                "samples": (0, 1 << 50), "eval_deals": (1, 1 << 20), "eval_seed": (0, (1 << 63) - 1)}
        for k, (lo, hi) in ints.items():
            x = getattr(self, k)
            if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
                raise GuandanError(f"{k} must be an int in {lo}..{hi}, got {x!r}")
        for k in ("epsilon", "lr", "imitation_lr", "reuse", "minutes", "eval_minutes", "checkpoint_minutes"):
            x = getattr(self, k)
            if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x) or x < 0:
                raise GuandanError(f"{k} must be a number >= 0, got {x!r}")
        if self.epsilon > 1:
            raise GuandanError(f"epsilon must be in [0, 1], got {self.epsilon}")
        if self.lr <= 0 or self.reuse <= 0 or self.imitation_lr < 0:
            raise GuandanError("lr and reuse must be > 0, imitation_lr >= 0")
        if not (self.iterations or self.minutes or self.samples):
            raise GuandanError("give a limit: iterations, minutes or samples")
        from ..registry import check_policy
        self.eval_opponents = tuple(check_policy(o) for o in self.eval_opponents)
        if not isinstance(self.opponent, str) or not isinstance(self.init, str):
            raise GuandanError("opponent and init are strings (a policy spec, a checkpoint path)")
        if self.opponent:
            self.opponent = check_policy(self.opponent)
            # the actors run it with VecGame.choose: a native rollout policy (not a search);
            # refused now rather than after the warm start
            from ..vec import VecGame
            VecGame(1, seed=0).choose(self.opponent)
        return self

    def to_json(self) -> Dict[str, Any]:
        d = asdict(self)
        d["eval_opponents"] = list(self.eval_opponents)
        return d

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "TrainConfig":
        names = {f.name for f in fields(cls)}
        if not isinstance(d, dict) or set(d) - names:
            raise GuandanError("training state: unknown configuration fields")
        d = dict(d)
        if "eval_opponents" in d:
            d["eval_opponents"] = tuple(d["eval_opponents"])
        return cls(**d).check()


# -- replay -----------------------------------------------------------------

class Replay:
    """A ring buffer of samples: named arrays of equal length, the newest
    ``capacity`` kept."""

    def __init__(self, capacity: int, specs: Dict[str, Tuple[Tuple[int, ...], Any]]) -> None:
        self.capacity = int(capacity)
        self.specs = specs
        self.data = {k: np.zeros((self.capacity,) + shape, dtype=dt) for k, (shape, dt) in specs.items()}
        self.size = 0
        self.pos = 0

    def add(self, arrays: Dict[str, np.ndarray]) -> None:
        n = len(next(iter(arrays.values())))
        if n > self.capacity:
            arrays = {k: a[-self.capacity:] for k, a in arrays.items()}
            n = self.capacity
        idx = (self.pos + np.arange(n)) % self.capacity
        for k, a in arrays.items():
            self.data[k][idx] = a
        self.pos = int((self.pos + n) % self.capacity)
        self.size = int(min(self.capacity, self.size + n))

    def sample(self, rng: np.random.Generator, n: int) -> Dict[str, np.ndarray]:
        idx = rng.integers(0, self.size, n)
        return {k: a[idx] for k, a in self.data.items()}

    def arrays(self, prefix: str) -> Dict[str, np.ndarray]:
        """The filled part, oldest first (for the training state)."""
        if self.size < self.capacity:
            order = np.arange(self.size)
        else:
            order = (self.pos + np.arange(self.capacity)) % self.capacity
        return {prefix + k: a[order] for k, a in self.data.items()}

    def load(self, arrays: Any, prefix: str) -> None:
        n = None
        for k, (shape, dt) in self.specs.items():
            a = arrays[prefix + k]
            if a.shape[1:] != shape or a.dtype != np.dtype(dt) or (n is not None and len(a) != n):
                raise GuandanError(f"training state: replay array {k} has shape {a.shape}")
            n = len(a)
        self.size = self.pos = 0
        if n:
            self.add({k: arrays[prefix + k] for k in self.specs})


DMC_SPECS: Dict[str, Tuple[Tuple[int, ...], Any]] = {"x": ((ROW_DIM,), np.int8), "g": ((), np.float32)}
IM_SPECS: Dict[str, Tuple[Tuple[int, ...], Any]] = {
    "obs": ((OBS_DIM,), np.int8), "moves": ((MAX_IMITATION_MOVES, ROW_DIM - OBS_DIM), np.int8),
    "mask": ((MAX_IMITATION_MOVES,), np.bool_), "label": ((), np.int64), "x": ((ROW_DIM,), np.int8),
    "g": ((), np.float32)}


# -- executors ----------------------------------------------------------------

def _worker_init(parent: int) -> None:
    from ..arena.runner import worker_init
    worker_init(parent)


def _eval_task(layers: Any, opponent: str, deals: int, seed: int) -> Dict[str, Any]:
    """The deal share of the network ``layers`` against ``opponent`` on the
    arena's duplicate deals (run in a worker or inline)."""
    from ..arena import InlineExecutor, arena
    with tempfile.TemporaryDirectory(prefix="guandan-eval-") as d:
        path = os.path.join(d, "net.npz")
        save_checkpoint(path, layers, {"info": {"eval": True}})
        res = arena([f"net:path={path}", opponent], deals=deals, seed=seed, executor=InlineExecutor())
        s = res.pairings[0].stats()
    return {"opponent": opponent, "deals": deals, "score": s["score"], "score_ci": list(s["score_ci"]),
            "points": s["points"]["mean"]}


# -- the run --------------------------------------------------------------------

class _Stop:
    """Ctrl-C / SIGTERM: the first asks the run to stop at the end of the
    iteration (the state is saved); a second one interrupts at once."""

    def __init__(self) -> None:
        self.asked = False
        self._old: Dict[int, Any] = {}

    def __enter__(self) -> "_Stop":
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self._handle)
            except ValueError:          # not the main thread: no handler
                pass
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def __exit__(self, *exc: Any) -> None:
        for sig, h in self._old.items():
            signal.signal(sig, h)


def _task_seeds(seed: int, iteration: int, actors: int) -> List[int]:
    return list(chunk_seeds(seed ^ (0x9E3779B97F4A7C15 * (iteration + 1) & ((1 << 63) - 1)), actors))


def train(out: str, config: Optional[TrainConfig] = None, *, resume: bool = False, executor: Any = None,
          progress: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
    """Train (or, with ``resume``, continue training) a Q-network into the
    folder ``out`` (see the module docstring for its files). ``executor``:
    where the actor tasks and evaluations run (default: a process pool of
    ``config.actors`` workers). ``progress`` is called with each log
    entry. Returns a summary (iterations, samples, wall time, the last
    evaluation, ``stopped``: whether Ctrl-C ended it)."""
    from .learner import Learner, require_jax
    require_jax()
    os.makedirs(out, exist_ok=True)
    if not os.access(out, os.W_OK):
        raise GuandanError(f"cannot write to {out}")
    state_path = os.path.join(out, "state.npz")
    log_path = os.path.join(out, "log.jsonl")
    if resume:
        if not os.path.exists(state_path):
            raise GuandanError(f"nothing to resume: {state_path} does not exist")
        arrays, meta = _load_state(state_path)
        cfg = TrainConfig.from_json(meta["config"])
        if config is not None:       # limits may be raised on resume; nothing else changes
            cfg.iterations, cfg.minutes, cfg.samples = config.iterations, config.minutes, config.samples
            cfg.check()
    else:
        if os.path.exists(state_path):
            raise GuandanError(f"{out} holds a training run already: resume it, or choose another folder")
        cfg = (config or TrainConfig()).check()
        arrays, meta = None, None
    if cfg.init and arrays is None:
        ck = load_checkpoint(cfg.init)
        if ck.encoding != "guandan":
            raise GuandanError(f"init: {cfg.init} is a {ck.encoding!r} network; training takes \"guandan\" ones")
        if len(ck.sizes) < 3:
            raise GuandanError(f"init: {cfg.init} has no hidden layer; training takes a network with one at least")
        cfg.hidden = ",".join(str(s) for s in ck.sizes[1:-1])
        start = unfold_scale(ck.layers, row_scale(ROW_DIM))
    else:
        start = init_layers([ROW_DIM] + parse_hidden(cfg.hidden) + [1], cfg.seed)
    learner = Learner(start, lr=cfg.lr)
    dmc = Replay(cfg.replay, DMC_SPECS)
    im = Replay(min(cfg.replay, 200_000), IM_SPECS)
    rng = np.random.default_rng([cfg.seed, 0x1EA2])
    it = 0
    samples = 0
    last_new = 0
    wall0 = 0.0
    if arrays is not None and meta is not None:
        learner.load_state_arrays(arrays, meta["t"])
        dmc.load(arrays, "dmc_")
        im.load(arrays, "im_")
        rng.bit_generator.state = meta["rng"]
        it, samples, wall0 = int(meta["iteration"]), int(meta["samples"]), float(meta["wall"])
        last_new = int(meta["last_new"])
        _truncate_log(log_path, it)
    own_pool = executor is None
    if own_pool:
        executor = cf.ProcessPoolExecutor(max_workers=cfg.actors, mp_context=actor_context(),
                                          initializer=_worker_init, initargs=(os.getpid(),))
    t_start = time.monotonic() - wall0
    last_ck = time.monotonic()
    last_eval = -1e18 if cfg.eval_minutes else float("inf")
    evals: List[Tuple[Any, Dict[str, Any]]] = []
    last_eval_result: List[Dict[str, Any]] = []
    stopped = False

    def log(entry: Dict[str, Any]) -> None:
        with open(log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        if progress is not None:
            progress(entry)

    def wall() -> float:
        return time.monotonic() - t_start

    def limit_reached() -> bool:
        return bool((cfg.iterations and it >= cfg.iterations) or (cfg.minutes and wall() >= 60 * cfg.minutes)
                    or (cfg.samples and samples >= cfg.samples))

    def save_state() -> None:
        m = {"format": "guandan-train", "version": STATE_VERSION, "config": cfg.to_json(), "t": learner.t,
             "rng": rng.bit_generator.state, "iteration": it, "samples": samples, "wall": wall(), "last_new": last_new}
        a = {**learner.state_arrays(), **dmc.arrays("dmc_"), **im.arrays("im_")}
        a["meta"] = np.array(json.dumps(m))
        with atomic_write(state_path) as f:
            np.savez(f, **a)  # type: ignore[arg-type]   # numpy's stub types allow_pickle in **kwds

    def heldout_agreement() -> Tuple[float, int, float, int]:
        """Agreement with ``expert`` over all legal moves on held-out
        decisions (deals of ``eval_seed``, never trained on)."""
        r = play_chunk(learner.layers(), ActorTask(seed=cfg.eval_seed ^ 0x1D1D, games=64, epsilon=0.0,
                                                  behaviour="expert", score_net=True))
        return r.agree / max(1, r.decisions), r.decisions, r.agree_choice / max(1, r.choices), r.choices

    def collect_evals(block: bool) -> None:
        for fut, info in list(evals):
            if block or fut.done():
                evals.remove((fut, info))
                r = fut.result()
                entry = {"kind": "eval", **info, **r}
                last_eval_result.append(entry)
                log(entry)

    try:
        with _Stop() as stop:
            while not limit_reached() and not stop.asked:
                imitating = it < cfg.imitation
                learner.lr = (cfg.imitation_lr or cfg.lr) if imitating else cfg.lr
                layers = learner.layers()
                seeds = _task_seeds(cfg.seed, it, cfg.actors)
                tasks = [ActorTask(seed=s, games=cfg.games, epsilon=0.0 if imitating else cfg.epsilon,
                                   behaviour="expert" if imitating else "net",
                                   opponent=cfg.opponent or None) for s in seeds]
                t0 = time.monotonic()
                futs = [executor.submit(play_chunk, layers, t) for t in tasks]
                # the learner trains on earlier iterations' samples meanwhile
                buf = im if imitating else dmc
                losses: List[float] = []
                accs: List[float] = []
                # an imitation sample holds up to MAX_IMITATION_MOVES rows: a quarter of the batch
                bsize = max(8, cfg.batch // 4) if imitating else cfg.batch
                if buf.size >= bsize:
                    n_up = max(1, int(round(last_new * (1.0 if imitating else cfg.reuse) / bsize)))
                    for _ in range(n_up):
                        b = buf.sample(rng, bsize)
                        if imitating:
                            loss, _ce, acc = learner.imitation_step(b["obs"], b["moves"], b["mask"], b["label"],
                                                                    b["x"], b["g"])
                            accs.append(acc)
                        else:
                            loss = learner.dmc_step(b["x"], b["g"])
                        losses.append(loss)
                t_learn = time.monotonic() - t0
                results: List[ChunkResult] = [f.result() for f in futs]
                t_iter = time.monotonic() - t0
                new = 0
                for r in results:
                    if imitating:
                        assert r.obs is not None and r.moves is not None and r.mask is not None
                        assert r.label is not None
                        assert r.im_x is not None and r.im_g is not None
                        im.add({"obs": r.obs, "moves": r.moves, "mask": r.mask, "label": r.label, "x": r.im_x,
                                "g": r.im_g})
                    dmc.add({"x": r.x, "g": r.g})
                    new += len(r.x)
                last_new = new
                samples += new
                it += 1
                eng = sum(r.engine_s for r in results)
                netw = sum(r.net_s for r in results)
                entry = {"kind": "iteration", "iteration": it, "phase": "imitation" if imitating else "dmc",
                         "samples": samples, "wall": round(wall(), 2), "new": new,
                         "samples_per_s": round(new / max(t_iter, 1e-9), 1),
                         "loss": float(np.mean(losses)) if losses else None,
                         "agreement": float(np.mean(accs)) if accs else None,
                         "updates": len(losses), "learn_s": round(t_learn, 3),
                         "engine_share": round(eng / max(eng + netw, 1e-9), 4) if netw else None}
                save_checkpoint(os.path.join(out, "model.npz"), learner.layers(),
                                {"info": {"iteration": it, "samples": samples, "hidden": cfg.hidden,
                                          "seed": cfg.seed}})
                log(entry)
                if imitating and it == cfg.imitation:
                    agreement, decisions, agree_choice, choices = heldout_agreement()
                    log({"kind": "imitation_eval", "iteration": it, "samples": samples, "wall": round(wall(), 2),
                         "agreement": agreement, "decisions": decisions,
                         "agreement_with_choice": agree_choice, "choices": choices})
                collect_evals(False)
                if cfg.eval_minutes and wall() - last_eval >= 60 * cfg.eval_minutes and not limit_reached():
                    last_eval = wall()
                    _submit_evals(executor, evals, learner.layers(), cfg, it, samples, wall())
                if time.monotonic() - last_ck >= 60 * cfg.checkpoint_minutes:
                    save_state()
                    last_ck = time.monotonic()
            stopped = stop.asked
            save_state()
            _submit_evals(executor, evals, learner.layers(), cfg, it, samples, wall())
            collect_evals(True)
    finally:
        if own_pool:
            executor.shutdown(wait=False, cancel_futures=True)
    return {"iterations": it, "samples": samples, "wall": wall(), "stopped": stopped,
            "evals": last_eval_result[-len(cfg.eval_opponents):] if last_eval_result else []}


def _submit_evals(executor: Any, evals: List[Any], layers: Any, cfg: TrainConfig, it: int, samples: int,
                  wall: float) -> None:
    for opp in cfg.eval_opponents:
        info = {"iteration": it, "samples": samples, "wall": round(wall, 2)}
        evals.append((executor.submit(_eval_task, layers, opp, cfg.eval_deals, cfg.eval_seed), info))


# -- the training state -------------------------------------------------------------

MAX_STATE_BYTES = 8 << 30


def _load_state(path: str) -> Tuple[Any, Dict[str, Any]]:
    """The training state's arrays and meta (read without pickle)."""
    try:
        z = np.load(path, allow_pickle=False)
        arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as e:
        raise GuandanError(f"{path}: not a training state ({e})") from None
    try:
        meta = json.loads(str(arrays.pop("meta")))
    except (KeyError, ValueError):
        raise GuandanError(f"{path}: not a training state (no meta)") from None
    if not isinstance(meta, dict) or meta.get("format") != "guandan-train" or meta.get("version") != STATE_VERSION:
        raise GuandanError(f"{path}: not a guandan training state of version {STATE_VERSION}")
    return arrays, meta


def _truncate_log(path: str, iteration: int) -> None:
    """Drop the log lines written after the saved state's iteration (a run
    that went on after its last save and was then resumed)."""
    if not os.path.exists(path):
        return
    keep = []
    for line in read_log(path):
        if line.get("iteration", 0) <= iteration:
            keep.append(line)
    with atomic_write(path, "w", encoding="utf-8") as f:
        for e in keep:
            f.write(json.dumps(e) + "\n")


def read_log(path: str) -> List[Dict[str, Any]]:
    """The entries of a ``log.jsonl``."""
    text = read_bounded(path, 1 << 28, "a training log").decode("utf-8", "replace")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if isinstance(e, dict):
                out.append(e)
    return out


def plot_curve(log_path: Union[str, Sequence[str]], png: str) -> str:
    """The learning curve of a run: deal share against each evaluation
    opponent (95% intervals) over wall time and samples, and the loss.
    ``log_path``: one ``log.jsonl``, or the logs of consecutive runs (each
    started from the previous one's network, ``--init``): drawn end to end,
    wall time and samples continuing, a dotted line where a run starts."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise GuandanError("the learning-curve plot needs matplotlib: pip install matplotlib") from None
    paths = [log_path] if isinstance(log_path, str) else list(log_path)
    log: List[Dict[str, Any]] = []
    starts: List[Tuple[float, float]] = []
    wall0 = samples0 = 0.0
    for k, p in enumerate(paths):
        part = read_log(p)
        if k:
            starts.append((wall0, samples0))
        for e in part:
            e = dict(e)
            e["wall"] = float(e.get("wall", 0.0)) + wall0
            e["samples"] = float(e.get("samples", 0)) + samples0
            log.append(e)
        if part:
            wall0 = max(e["wall"] for e in log)
            samples0 = max(e["samples"] for e in log)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    opps = sorted({e["opponent"] for e in log if e.get("kind") == "eval"})
    for opp in opps:
        ev = [e for e in log if e.get("kind") == "eval" and e["opponent"] == opp]
        for ax, key, scale in ((axes[0], "wall", 1 / 60), (axes[1], "samples", 1e-6)):
            xs = [e[key] * scale for e in ev]
            ys = [100 * e["score"] for e in ev]
            lo = [100 * e["score_ci"][0] for e in ev]
            hi = [100 * e["score_ci"][1] for e in ev]
            ax.plot(xs, ys, marker="o", label=f"vs {opp}")
            ax.fill_between(xs, lo, hi, alpha=0.2)
    for ax, lab in ((axes[0], "wall time (minutes)"), (axes[1], "samples (millions)")):
        ax.axhline(50, color="grey", lw=0.8, ls="--")
        for w, s in starts:
            ax.axvline(w / 60 if ax is axes[0] else s / 1e6, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(lab)
        ax.set_ylabel("deal share (%)")
        ax.legend()
    its = [e for e in log if e.get("kind") == "iteration" and e.get("loss") is not None]
    axes[2].plot([e["samples"] / 1e6 for e in its], [e["loss"] for e in its])
    axes[2].set_xlabel("samples (millions)")
    axes[2].set_ylabel("loss")
    axes[2].set_yscale("log")
    fig.tight_layout()
    with atomic_write(png) as f:
        fig.savefig(f, format="png", dpi=90)
    plt.close(fig)
    return png

