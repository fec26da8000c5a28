"""Type stubs for the RL core (guandan._vec): VecGame's native games."""

from typing import Tuple

from typing_extensions import disjoint_base

import numpy as np
import numpy.typing as npt

from ._engine import NativeRules

@disjoint_base
class VecCore:
    def __init__(self, n: int, seed: int, unit: int, rules: NativeRules) -> None: ...
    def legal(self) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64]]: ...
    def observe(self) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.int8]]: ...
    def step(self, actions_: npt.NDArray[np.int64]) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]: ...
    def choose(self, code: int) -> npt.NDArray[np.int64]: ...
