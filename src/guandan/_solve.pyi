"""Type stubs for the exact endgame solver (guandan._solve)."""

from typing import Any, Dict, Optional, Tuple

from ._engine import GameCore

def solve(core: GameCore, max_nodes: int = ..., time_limit: float = ..., tt_bits: int = ...,
          per_move: bool = ..., order_policy: int = ..., threads: int = ...,
          cache_bits: int = ...) -> Dict[str, Any]: ...
def _rank_free_key(core: GameCore) -> Optional[Tuple[int, int]]: ...
