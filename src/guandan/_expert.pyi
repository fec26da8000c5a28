"""Type stubs for the native expert policy (guandan._expert)."""

from typing import Any, Dict, Optional, Tuple

import numpy as np
import numpy.typing as npt

from ._core import Hand, MoveList
from ._engine import NativeView

RULE_NAMES: Tuple[str, ...]

def explain_view(moves: MoveList, view: NativeView) -> Tuple[int, str]: ...
def decompose_hand(hand: Hand, level: int, played: Optional[Hand] = ...) -> Dict[str, Any]: ...
def get_params() -> Dict[str, int]: ...
def set_params(**kw: int) -> None: ...
def reset_params() -> None: ...

SPLIT_FEATURES_DIM: int

def split_rows(moves: MoveList, view: NativeView) -> npt.NDArray[np.float32]: ...

STYLE_CODES: Dict[str, int]

def style_of(name: str) -> Dict[str, int]: ...
