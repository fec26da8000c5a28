"""Type stubs for the exact endgame solver (guandan._solve)."""

from typing import Any, Dict, Optional, Tuple

def solve(state: bytes, max_nodes: int = ..., time_limit: float = ..., tt_bits: int = ...,
          per_move: bool = ..., order_policy: int = ..., threads: int = ...,
          cache_bits: int = ...) -> Dict[str, Any]: ...
def _rank_free_key(state: bytes) -> Optional[Tuple[int, int]]: ...
