"""Type stubs for the benchmark harness (guandan._bench)."""

from typing import Tuple

import numpy as np
import numpy.typing as npt

def bench_loop(counts: npt.NDArray[np.uint8], levels: npt.NDArray[np.int64],
               last: npt.NDArray[np.uint64], pattern: bool = ..., reps: int = ...) -> Tuple[int, int, float]: ...
def ideal_loop(nmoves: npt.NDArray[np.int64], reps: int = ...) -> Tuple[int, int, float]: ...
def move_counts(counts: npt.NDArray[np.uint8], levels: npt.NDArray[np.int64],
                last: npt.NDArray[np.uint64], pattern: bool = ...) -> npt.NDArray[np.int64]: ...
