"""A small program using the public API with full annotations: CI runs
``mypy --strict`` on it (tests/test_typing.py too, when mypy is installed),
so the package's types stay usable from an editor or a type checker."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from guandan import (Game, GuandanError, Hand, Move, MoveList, MoveType, SimulationResult,
                     get_policy, legal_moves, simulate)
from guandan.policies import policy_names


def lowest_play(moves: Sequence[Move]) -> Move:
    """The first move that is not a pass (the pass when there is none)."""
    for m in moves:
        if not m.is_pass:
            return m
    return moves[0]


def first_legal(game: Game) -> Move:
    return game.legal_moves()[0]          # a Move, not Any (--strict: no Any returned)


def play_one_game(seed: int) -> Optional[int]:
    game = Game(seed=seed)
    expert = get_policy("expert")
    while not game.is_over:
        moves: MoveList = game.legal_moves()
        if game.to_act == 0:
            game.play(lowest_play(moves))
        else:
            game.play(game.choose(expert))
    winner: Optional[int] = game.winner
    return winner


def count_types(cards: str, level: str = "2") -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for m in legal_moves(Hand(cards), level):
        t: MoveType = m.type
        counts[t.name] = counts.get(t.name, 0) + 1
    return counts


def team_win_rates(deals: int) -> List[Optional[float]]:
    res: SimulationResult = simulate(deals, policies=("greedy", "random", "greedy", "random"),
                                     seed=1, workers=1)
    rates: List[Optional[float]] = list(res.summary()["team_win_rate"])
    return rates


def main() -> None:
    print(sorted(policy_names()))
    print(count_types("S3 H3 D3 S4 D4 H2"))
    print(team_win_rates(100))
    try:
        Hand("S3 X9")
    except GuandanError as e:
        print(f"refused: {e}")
    print(play_one_game(1), first_legal(Game(seed=2)))


if __name__ == "__main__":
    main()
