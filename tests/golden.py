"""Golden playthroughs (OpenSpiel style): a seeded game played by a fixed
index rule, traced step by step (seat, phase, legal-move count, action,
observation tensor, rewards) through each interface. The traces are
checked in under tests/data/golden/ and compared on every run, so a change
of behaviour anywhere (engine, Game, VecGame, env) cannot pass silently.

Regenerate (only for an intended change of behaviour, reviewed in the diff):
    python tests/golden.py
"""

from __future__ import annotations

import os
import sys
from typing import List

import numpy as np
import server_harness

SEEDS = (1, 2, 3)
ROUNDS = 2                  # two deals: the second has tribute and return
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "golden")


def choose(step: int, n: int) -> int:
    """The fixed action rule: a spread of indices, the same for every interface."""
    return (step * 7919 + 13) % n


def fmt_obs(o: np.ndarray) -> str:
    nz = np.flatnonzero(o)
    return " ".join(f"{i}:{o[i]:g}" for i in nz)


def header(seed: int) -> List[str]:
    from guandan.simulation import game_seed
    return [f"# golden playthrough: seed {seed} (game seed {game_seed(seed, 0)}), default rules, "
            f"{ROUNDS} rounds, action index (step*7919+13) % legal"]


def trace_game(seed: int) -> List[str]:
    """Through :class:`guandan.Game`."""
    from guandan import Game
    from guandan.simulation import game_seed
    g = Game(seed=game_seed(seed, 0))
    out = header(seed)
    step = 0
    while g.round_index < ROUNDS and not g.is_over:
        seat = g.to_act
        moves = g.legal_moves()
        obs = g.observation_tensor(seat)
        a = choose(step, len(moves))
        r0 = g.round_index
        out.append(f"step {step} seat {seat} phase {g.phase} legal {len(moves)} action {a} "
                   f"{moves[a]} | {fmt_obs(obs)}")
        g.play(moves[a])
        if g.round_index != r0 or g.is_over:
            res = g.last_round
            rew = [res.reward if (s & 1) == res.banker_team else -res.reward for s in range(4)]
            out.append(fmt_round(r0, rew))
        step += 1
    return out


def fmt_round(r: int, rewards) -> str:
    return f"round {r} over rewards " + " ".join(f"{float(x):g}" for x in rewards)


def trace_vec(seed: int) -> List[str]:
    """Through :class:`guandan.VecGame` (one game, the same seed)."""
    from guandan import Move, VecGame
    v = VecGame(1, seed=seed, unit="deal")     # done at each deal's end; the game goes on
    out = header(seed)
    step = 0
    rounds = 0
    while rounds < ROUNDS:
        o = v.observe()
        seat = int(o["seat"][0])
        offs, words = o["legal_offsets"], o["legal_words"]
        n = int(offs[1] - offs[0])
        a = choose(step, n)
        lo, hi = (int(x) for x in words[offs[0] + a])
        level = int(o["level"][0])
        phase = ("tribute", "back", "play", "over")[int(np.argmax(o["obs"][0][169:173]))]
        out.append(f"step {step} seat {seat} phase {phase} legal {n} action {a} "
                   f"{Move(lo, hi, level)} | {fmt_obs(o['obs'][0])}")
        rew, done = v.step(np.array([a]))
        if done[0]:
            out.append(fmt_round(rounds, rew[0]))
            rounds += 1
        step += 1
    return out


def trace_env(seed: int) -> List[str]:
    """Through the PettingZoo env (unit="deal", the next deal continues the game)."""
    from guandan.env import env
    e = env(unit="deal")
    e.reset(seed=seed)
    out = header(seed)
    step = 0
    for r in range(ROUNDS):
        if r:
            e.reset()
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            g = e.unwrapped.game
            seat = int(agent.split("_")[1])
            legal = info["legal_moves"]
            a = choose(step, len(legal))
            r0 = g.round_index
            out.append(f"step {step} seat {seat} phase {g.phase} legal {len(legal)} action {a} "
                       f"{legal[a]} | {fmt_obs(obs['observation'])}")
            e.step(a)
            if e.unwrapped.game.round_index != r0 or e.unwrapped.game.is_over:
                rew = [e.unwrapped.rewards[f"player_{s}"] for s in range(4)]
                out.append(fmt_round(r0, rew))
            step += 1
    return out


SERVER_PATH = os.path.join(DATA, f"server_seed{11}.txt")


def path(seed: int) -> str:
    return os.path.join(DATA, f"seed{seed}.txt")


def main() -> None:
    os.makedirs(DATA, exist_ok=True)
    for seed in SEEDS:
        with open(path(seed), "w") as f:
            f.write("\n".join(trace_game(seed)) + "\n")
        print("wrote", path(seed))
    with open(SERVER_PATH, "w") as f:
        f.write("\n".join(server_reference()) + "\n")
    print("wrote", SERVER_PATH)



SERVER_SEED = 11


def server_reference(seed: int = SERVER_SEED) -> List[str]:
    """The server's game (contest rules, game seed ``seed``) played through
    :class:`guandan.Game` with the contest order: what the server must send."""
    from guandan import Game, Rules
    g = Game(rules=Rules.contest(), seed=seed)
    out = [f"# golden server playthrough: game seed {seed}, contest rules, one game, "
           f"action index (step*7919+13) % actionList"]
    step = 0
    while not g.is_over:
        moves = g.legal_moves(order="contest")
        a = choose(step, len(moves))
        out.append(f"step {step} seat {g.to_act} {g.phase} n {len(moves)} act {a} "
                   f"{moves.to_platform()[a]}")
        g.play(moves[a])
        step += 1
    return out


def trace_server(seed: int = SERVER_SEED, timeout: float = 120.0) -> List[str]:
    """The same game through ``guandan serve``: four clients written here
    (raw websockets, no project code) answer every ``act`` by the fixed rule."""
    import asyncio
    import json
    import websockets
    from guandan import Rules
    from guandan.server import TableServer

    out = [f"# golden server playthrough: game seed {seed}, contest rules, one game, "
           f"action index (step*7919+13) % actionList"]
    counter = {"step": 0}

    async def client(port: int, name: str) -> None:
        async with websockets.connect(f"ws://127.0.0.1:{port}/game/{name}") as ws:
            seat = None
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("stage") == "beginning":
                    seat = msg["myPos"]
                if msg.get("type") == "act":
                    acts = msg["actionList"]
                    step = counter["step"]
                    a = choose(step, len(acts))
                    out.append(f"step {step} seat {seat} {msg['stage']} n {len(acts)} act {a} {acts[a]}")
                    counter["step"] += 1
                    await ws.send(json.dumps({"actIndex": a}))
                if msg.get("stage") == "gameResult":
                    return

    async def main() -> None:
        srv = TableServer(port=0, games=1, rules=Rules.contest(), seed=seed, timeout=0,
                          start_delay=0.05)
        srv, task = await server_harness.start(srv)
        clients = []
        for i in range(4):
            clients.append(asyncio.ensure_future(client(srv.bound_port, f"p{i}")))
            await asyncio.sleep(0.02)              # seats follow connection order
        await asyncio.gather(*clients)
        await task

    asyncio.run(asyncio.wait_for(main(), timeout))
    return out


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", "src"))
    main()
