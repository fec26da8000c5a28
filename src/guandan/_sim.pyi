"""Type stubs for the native simulation loop (guandan._sim)."""

from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from ._core import MoveList
from ._engine import NativeRules

DEAL_FIELDS: Tuple[str, ...]
GAME_FIELDS: Tuple[str, ...]
CHECKS: Dict[int, str]

PY_SEAT: int

def run_chunk(seed: int, policy_seed: int, n: int, unit: int, policies: npt.NDArray[np.int16],
              rules: NativeRules, record_games: int = ..., check: bool = ...,
              callback: Optional[Callable[[int, np.ndarray, MoveList], int]] = ...
              ) -> Tuple[Dict[str, np.ndarray], List[np.ndarray]]: ...
def run_setups(seeds: npt.NDArray[np.uint64], policy_seeds: npt.NDArray[np.uint64],
               levels: npt.NDArray[np.int8], owner: npt.NDArray[np.int8],
               last_order: npt.NDArray[np.int8], policies: npt.NDArray[np.int16], unit: int,
               rules: NativeRules, record: bool = ...
               ) -> Tuple[Dict[str, np.ndarray], List[np.ndarray]]: ...
def game_seed(seed: int, k: int) -> int: ...
