"""The arena: rate bots by duplicate deals, as cutechess-cli / fastchess
rate chess engines.

>>> from guandan.arena import arena
>>> res = arena(["greedy", "random"], deals=300, seed=1, concurrency=1)
>>> s = res[0].stats()
>>> s["pairs"], s["score"] > 0.6, s["elo_ci"][0] > 0
(300, True, True)

Modules: :mod:`.participants` (built-in, in-process and external
participants), :mod:`.schedule` (the seeded duplicate-deal schedule and the
pairings), :mod:`.runner` (playing pairs: native loop, Game, forfeits),
:mod:`.external` (external programs through a multi-table server),
:mod:`.cluster` (Dask clusters: connecting, what runs on the workers),
:mod:`.stats` (pentanomial score, Elo, LOS, SPRT, Bradley-Terry),
:mod:`.report` (progress line, table, plot), :mod:`.match` (the driver).
"""

from .match import ArenaInterrupted, ArenaResult, InlineExecutor, PairingResult, arena, schedule_seed
from .participants import Builtin, Engine, InProcess, Participant, parse_participant
from .runner import Limits
from .schedule import DealSpec, deal_spec, pairings
from .stats import SPRT, elo_to_score, fit_ratings, pentanomial, score_stats, score_to_elo

__all__ = ["arena", "schedule_seed", "InlineExecutor",
           "ArenaResult", "ArenaInterrupted", "PairingResult", "Participant", "Builtin", "InProcess",
           "Engine", "parse_participant", "Limits", "DealSpec", "deal_spec", "pairings", "SPRT",
           "score_stats", "score_to_elo", "elo_to_score", "pentanomial", "fit_ratings"]
