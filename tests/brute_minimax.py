"""A brute-force minimax of the current round, written independently of the
native solver: plain Python over Game.legal_moves / play / undo, no pruning
(every move of every position is searched); positions are memoized by their
position string, which identifies the play-phase state exactly.

Value (team 0's view): the banker's team gains 3 / 2 / 1 when the banker's
partner finished 2nd / 3rd / last; +gain when the banker is in team 0,
-gain otherwise. Seats 0 and 2 maximize, seats 1 and 3 minimize.
"""


def round_value(order):
    banker = order[0]
    partner = (banker + 2) % 4
    gain = 4 - order.index(partner)
    return gain if banker % 2 == 0 else -gain


def minimax(game, memo=None, visit=None):
    """The exact team-0 value of the round from ``game``'s position (the
    game is restored before returning). ``visit(game, value)``, if given,
    is called once for every position of the tree, the game standing in
    it."""
    if memo is None:
        memo = {}
    key = game.position
    if key in memo:
        return memo[key]
    r0 = game.round_index
    maximize = game.to_act % 2 == 0
    values = []
    for move in list(game.legal_moves()):
        game.play(move)
        if game.round_index != r0 or game.is_over:
            v = round_value(game.last_round_order)
        else:
            v = minimax(game, memo, visit)
        game.undo()
        values.append(v)
    best = max(values) if maximize else min(values)
    memo[key] = best
    if visit is not None:
        visit(game, best)
    return best


def move_values(game):
    """The exact value after each legal move: {str(move): value}."""
    memo = {}
    out = {}
    r0 = game.round_index
    for move in list(game.legal_moves()):
        game.play(move)
        if game.round_index != r0 or game.is_over:
            out[str(move)] = round_value(game.last_round_order)
        else:
            out[str(move)] = minimax(game, memo)
        game.undo()
    return out
