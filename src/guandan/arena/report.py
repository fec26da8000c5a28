"""Arena output: the live progress line, the final table, the plot."""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, List

__all__ = ["Progress", "format_result", "plot_result", "pair_line"]


def _f(x: float, fmt: str = "+.1f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    if isinstance(x, float) and math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return format(x, fmt)


def pair_line(r: Any) -> str:
    """``A vs B: 61.2% [59.8, 62.6] Elo +79.4 ± 10.3 LOS 100.0% LLR 2.95 H1``."""
    s = r.stats()
    if not r.pairs:
        return f"{r.a.name} vs {r.b.name}: -"
    lo, hi = s["score_ci"]
    out = (f"{r.a.name} vs {r.b.name}: {s['score']:.1%} [{lo:.1%}, {hi:.1%}]"
           f"  Elo {_f(s['elo'])}"
           + (f" ± {_f(s['elo_err'], '.1f')}" if math.isfinite(s["elo_err"]) else "")
           + f"  LOS {s['los']:.1%}")
    if "sprt" in s:
        sp = s["sprt"]
        out += f"  LLR {sp['llr']:.2f} ({sp['lower']:.2f}, {sp['upper']:.2f})"
        if sp["decision"] != "continue":
            out += f" {sp['decision']}"
    return out


class Progress:
    """Pairs done over all pairings, the score, Elo and SPRT state of the
    pairing that moved last, ETA: tqdm when installed, else a plain line."""

    def __init__(self, results: List[Any], deals: int, enabled: Any = True) -> None:
        self.results = results
        self.total = deals * len(results)
        self.enabled = bool(enabled)
        self.t0 = time.perf_counter()
        self.bar = None
        self.last_len = 0
        self._last = -1.0
        if not self.enabled:
            return
        try:
            from tqdm import tqdm
            self.bar = tqdm(total=self.total, unit="pair", dynamic_ncols=True, file=sys.stderr,
                            leave=True)
        except ImportError:
            self.bar = None

    def update(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        done = sum(len(r.pairs) for r in self.results)
        live = [r for r in self.results if r.pairs]
        moving = [x for x in live if not x.done]
        r = (moving or live or self.results)[-1 if len(self.results) > 1 else 0]
        text = pair_line(r) if live else ""
        if self.bar is not None:
            total = sum(len(x.pairs) if x.done else self.total // len(self.results)
                        for x in self.results)
            if total != self.bar.total:
                self.bar.total = total
                self.bar.refresh()
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(done - self.bar.n)
            return
        if now - self._last < 0.5 and done < self.total and not force:
            return
        self._last = now
        dt = now - self.t0
        remaining = sum(0 if x.done else self.total // len(self.results) - len(x.pairs)
                        for x in self.results)
        eta = remaining * dt / done if done else float("inf")
        line = f"\rpairs {done}/{self.total}  {text}  ETA {eta:.0f}s"
        sys.stderr.write(line + " " * max(0, self.last_len - len(line)))
        sys.stderr.flush()
        self.last_len = len(line)

    def close(self) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.update()
            self.bar.close()
        else:
            self.update(force=True)          # the final state
            sys.stderr.write("\n")


def format_result(res: Any) -> str:
    """The final table: one line per pairing (cutechess style) and, with more
    than two participants, the fitted ratings."""
    st = res.settings
    unit = st["unit"]
    lines = [f"{len(res.participants)} participants, {st['tournament']}, duplicate {unit}s "
             f"(seed {st['seed']}, {res.elapsed:.1f} s)"]
    for r in res.pairings:
        s = r.stats()
        if not r.pairs:
            lines.append(f"{r.a.name} vs {r.b.name}: no pairs")
            continue
        lo, hi = s["score_ci"]
        pts = s["points"]
        lines.append(f"Score of {r.a.name} vs {r.b.name}: {s['wins']} - {s['losses']} - {s['draws']}"
                     f"  [{s['score']:.3f}]  {s['pairs']} pairs ({s['halves']} {unit}s)")
        lines.append(f"  {unit}s won  {s['score']:.1%}  95% [{lo:.1%}, {hi:.1%}]")
        pm = lambda v, e: _f(v) + (f" ± {_f(e, '.1f')}" if math.isfinite(e) else "")
        line = (f"  Elo difference {pm(s['elo'], s['elo_err'])}"
                f"  [{_f(s['elo_ci'][0])}, {_f(s['elo_ci'][1])}]  LOS {s['los']:.1%}")
        if math.isfinite(s["nelo"]):
            line += f"  nElo {pm(s['nelo'], s['nelo_err'])}"
        lines.append(line)
        if unit == "deal":
            lines.append(f"  level points per deal {pts['mean']:+.3f}  95% "
                         f"[{pts['ci'][0]:+.3f}, {pts['ci'][1]:+.3f}]")
        lines.append("  pentanomial [0, ½, 1, 1½, 2]: " + str(s["pentanomial"]))
        if "sprt" in s:
            sp = s["sprt"]
            lines.append(f"  SPRT elo0={sp['elo0']:g} elo1={sp['elo1']:g} alpha={sp['alpha']:g} "
                         f"beta={sp['beta']:g}: LLR {sp['llr']:.2f} ({sp['lower']:.2f}, "
                         f"{sp['upper']:.2f}) -> {sp['decision']}")
        if r.forfeits:
            lines.append(f"  forfeits: {len(r.forfeits)}")
            for fo in r.forfeits[:10]:
                lines.append(f"    deal {fo['deal']} half {fo['half']}: {fo['name']} (seat {fo['seat']})"
                             f" {fo['reason']}")
            if len(r.forfeits) > 10:
                lines.append(f"    ... {len(r.forfeits) - 10} more in the JSON result")
    if res.ratings:
        rt = res.ratings
        lines.append("")
        lines.append(f"{'rank':<5}{'name':<24}{'Elo':>8}{'±95%':>8}")
        order = sorted(range(len(rt["names"])), key=lambda i: -rt["ratings"][i])
        for k, i in enumerate(order, 1):
            lines.append(f"{k:<5}{rt['names'][i]:<24}{rt['ratings'][i]:>+8.1f}{rt['err'][i]:>8.1f}")
        lines.append("(maximum-likelihood Bradley-Terry, pool mean 0, pair-level robust intervals)")
    stop = getattr(res, "interrupted", None)
    if stop:
        lines.append(f"interrupted by {stop['signal']} after {stop['pairs']} of {stop['of']} pairs "
                     f"(the numbers above count the finished pairs only)")
    return "\n".join(lines)


PLOT_NEEDS = ("--plot needs matplotlib: pip install matplotlib (in a clone of the repository: "
              "pip install '.[plot]')")


PLOT_FORMATS = ("png", "svg", "svgz", "pdf", "jpg", "jpeg", "webp", "eps", "ps", "tif", "tiff")


def check_plot(path: str) -> str:
    """The check made before a run whose plot goes to ``path``: a writable
    file name and matplotlib installed (found, not imported). Returns the
    path; GuandanError otherwise."""
    import importlib.util

    from .._files import check_output_path
    from ..errors import GuandanError
    check_output_path(path, "--plot")
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext and ext not in PLOT_FORMATS:
        raise GuandanError(f"--plot: cannot draw {path}: a .png, .svg, .pdf, .jpg, .webp, .eps, .ps "
                           f"or .tif file")
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise GuandanError(PLOT_NEEDS)
    return path


def plot_result(res: Any, path: str) -> str:
    """Ratings with interval bars (or, head-to-head, the Elo difference),
    and the score over time of each pairing, written to ``path`` (PNG, or
    the format its suffix names). Needs matplotlib (:func:`check_plot`
    checks both before a run)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from ..errors import GuandanError
        raise GuandanError(PLOT_NEEDS) from None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if res.ratings:
        rt = res.ratings
        names = rt["names"]
        ax1.errorbar(range(len(names)), rt["ratings"], yerr=rt["err"], fmt="o", capsize=4)
        ax1.set_xticks(range(len(names)))
        ax1.set_xticklabels(names, rotation=30, ha="right")
        ax1.set_ylabel("Elo (pool mean 0)")
        ax1.set_title("ratings, 95% intervals")
    else:
        labels, vals, errs = [], [], []
        for r in res.pairings:
            s = r.stats()
            labels.append(f"{r.a.name}\nvs {r.b.name}")
            vals.append(s["elo"] if math.isfinite(s["elo"]) else 0.0)
            errs.append(s["elo_err"] if math.isfinite(s["elo_err"]) else 0.0)
        ax1.errorbar(range(len(vals)), vals, yerr=errs, fmt="o", capsize=4)
        ax1.set_xticks(range(len(vals)))
        ax1.set_xticklabels(labels)
        ax1.axhline(0, color="grey", lw=0.5)
        ax1.set_ylabel("Elo difference")
        ax1.set_title("Elo difference, 95% interval")
    for r in res.pairings:
        ax2.plot(range(1, len(r.score_history) + 1), r.score_history,
                 label=f"{r.a.name} vs {r.b.name}")
    ax2.axhline(0.5, color="grey", lw=0.5)
    ax2.set_xlabel("pairs")
    ax2.set_ylabel("score")
    ax2.set_title("score over time")
    ax2.legend(fontsize="small")
    fig.tight_layout()
    from .._files import atomic_write
    fmt = os.path.splitext(path)[1].lstrip(".").lower() or "png"
    try:
        with atomic_write(path, "wb") as f:            # complete or absent
            fig.savefig(f, dpi=100, format=fmt)
    finally:
        plt.close(fig)
    return path
