"""Type stubs for the exact endgame solver (guandan._solve)."""

from typing import Any, Dict, Optional, Tuple

from ._engine import GameCore
from typing_extensions import disjoint_base

@disjoint_base
class SolveOptions:
    max_nodes: int
    time_limit: float
    tt_bits: int
    per_move: bool
    order_policy: int
    threads: int
    cache_bits: int
    def __init__(self, *, max_nodes: int = ..., time_limit: float = ..., tt_bits: int = ...,
                 per_move: bool = ..., order_policy: int = ..., threads: int = ...,
                 cache_bits: int = ...) -> None: ...

def solve(core: GameCore, options: Optional[SolveOptions] = ...) -> Dict[str, Any]: ...
def _rank_free_key(core: GameCore) -> Optional[Tuple[int, int]]: ...
