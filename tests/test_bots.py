"""The bot SDK: one Bot class plays over the network, in-process and in the simulator."""

import asyncio

import pytest

from guandan import Game, GuandanError, simulate
from guandan.bots import Bot, ProtocolClient, _run, load_bot
from guandan.server import TableServer, parse_bots
import server_harness


class FirstBot(Bot):
    """Plays the first legal move (the pass when following)."""

    def __init__(self):
        self.seen = []

    def act(self, observation, legal_moves):
        assert observation["hand"]
        return 0

    def notify(self, message):
        self.seen.append(message["stage"])


def test_sdk_bot_plays_a_full_game_against_the_server(tmp_path):
    async def main():
        srv = TableServer("127.0.0.1", 0, games=1, bots=parse_bots("1=greedy,2=greedy,3=greedy"),
                          seed=5, record_dir=str(tmp_path), start_delay=0.05)
        srv, task = await server_harness.start(srv)
        bot = Bot()
        await asyncio.wait_for(_run(bot, server_harness.url(srv, "sdk")), 60)
        records = await asyncio.wait_for(task, 10)
        return records

    records = asyncio.run(main())
    assert len(records) == 1
    g = Game.replay(records[0])
    assert g.is_over
    assert list(tmp_path.glob("*.json"))


def test_same_bot_in_process_and_in_simulator():
    g = Game(seed=4)
    g.play_out([FirstBot(), "greedy", Bot(), "random"], until="round")
    assert g.round_index == 1
    r = simulate(5, policies=(Bot(), "greedy", "greedy", "greedy"), seed=1, workers=1)
    assert len(r.rows["decisions"]) == 5


def test_protocol_client_handles_messages():
    c = ProtocolClient(FirstBot())
    assert c.handle({"type": "notify", "stage": "beginning", "handCards": ["S2"], "myPos": 2}) is None
    msg = {"type": "act", "stage": "play", "handCards": ["S2", "S3"],
           "publicInfo": [{"rest": 2, "playArea": None}] * 4, "selfRank": "2", "oppoRank": "2",
           "curRank": "2", "curPos": -1, "curAction": [None] * 3, "greaterPos": -1,
           "greaterAction": [None] * 3,
           "actionList": [["Single", "2", ["S2"]], ["Single", "3", ["S3"]]], "indexRange": 1}
    assert c.handle(msg) == {"actIndex": 0}
    with pytest.raises(GuandanError):
        c.handle({"no": "type"})


def test_load_bot_errors():
    assert isinstance(load_bot("guandan.bots:Bot"), Bot)
    for spec in ("nocolon", "guandan.nope:X", "guandan.bots:Nope"):
        with pytest.raises(GuandanError):
            load_bot(spec)
    with pytest.raises(GuandanError):
        parse_bots("5=greedy")
