"""Type stubs for the contest platform's actionList order (guandan._contest)."""

from guandan._core import Hand, MoveList

def contest_order(moves: MoveList, hand: Hand) -> MoveList: ...
