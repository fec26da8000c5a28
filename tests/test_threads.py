"""A Game shared by threads stays consistent; separate games in threads
match sequential play."""

import threading

from guandan import Game, perft


# -- threads ------------------------------------------------------------------------

def test_one_game_shared_by_threads():
    g = Game(seed=11)
    expect = [m.words for m in g.legal_moves()]
    n1 = perft(g, 1)
    errors = []

    def work():
        try:
            for _ in range(300):
                if [m.words for m in g.legal_moves()] != expect:
                    errors.append("wrong legal list")
                if perft(g, 1) != n1:
                    errors.append("wrong perft")
                c = g.copy()
                c.play(c.legal_moves()[0])
        except Exception as e:       # pragma: no cover - reported below
            errors.append(repr(e))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


def test_reads_while_another_thread_plays_and_undoes():
    g = Game(seed=5)
    first = g.legal_moves()[0]
    before = (g.position, [m.words for m in g.legal_moves()])
    g.play(first)
    after = (g.position, [m.words for m in g.legal_moves()])
    g.undo()
    stop = threading.Event()
    errors = []

    def writer():
        for _ in range(500):
            g.play(first)
            g.undo()
        stop.set()

    def reader():
        while not stop.is_set():
            pos = g.position
            if pos not in (before[0], after[0]):
                errors.append("torn position")
            if [m.words for m in g.legal_moves()] not in (before[1], after[1]):
                errors.append("torn legal list")
            g.observation(0)

    ts = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and g.position == before[0]


def test_separate_games_in_threads_match_sequential():
    def run(seed):
        g = Game(seed=seed)
        g.play_out(["greedy", "random", "greedy", "random"])
        return g.record()["actions"]

    seq = [run(s) for s in range(6)]
    out = [None] * 6
    ts = [threading.Thread(target=lambda i=i: out.__setitem__(i, run(i))) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == seq
