"""Type stubs for the benchmark and profiling harness (guandan._bench)."""

from typing import Optional, Tuple

import numpy as np
import numpy.typing as npt

def bench_loop(counts_: npt.NDArray[np.uint8], levels_: npt.NDArray[np.int64],
               last_: npt.NDArray[np.uint64], pattern: bool = ..., reps: int = ...) -> Tuple[int, int, float]: ...
def ideal_loop(nmoves_: npt.NDArray[np.int64], reps: int = ...) -> Tuple[int, int, float]: ...
def move_counts(counts_: npt.NDArray[np.uint8], levels_: npt.NDArray[np.int64],
                last_: npt.NDArray[np.uint64], pattern: bool = ...) -> npt.NDArray[np.int64]: ...
def phase_times(one_: npt.NDArray[np.uint64], two_: npt.NDArray[np.uint64],
                levels_: npt.NDArray[np.int64], types: int, pattern: bool = ...,
                reps: int = ..., last_: Optional[npt.NDArray[np.uint64]] = ...) -> Tuple[float, int, int]: ...
