"""The ``guandan`` command line: ``moves``, ``simulate``, ``play``, ``replay``,
``arena`` (rating bots by duplicate deals), ``serve`` / ``bot`` for the
contest protocol and ``web`` (the web table).

``guandan moves [--level L] [--last "Pair 5 S5 D5"] [--pattern] [--json] CARDS...``
prints the legal moves of a hand.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from typing import Any, Callable, List, NoReturn, Optional

from .errors import GuandanError

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``guandan CMD: error: ...``), exit code 2."""

    #: rewrites the argument words before parsing (``guandan arena``: the
    #: ``KEY=VALUE`` words after ``--engine``, one option value)
    regroup: Optional[Callable[[List[str]], List[str]]] = None

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} -h')\n")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self.regroup is not None:
            args = self.regroup(list(sys.argv[1:] if args is None else args))
        return super().parse_known_args(args, namespace)


_KEY_VALUE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _regroup_engines(words: List[str]) -> List[str]:
    """``--engine name=X cmd="python x.py {url}" dir=D`` (separate shell
    words) -> one ``--engine`` value: an ``--engine`` takes every following
    ``KEY=VALUE`` word up to the next option or a word that is not
    ``KEY=VALUE`` (a participant such as ``greedy`` or ``search:ms=200``).
    The value is the words shell-quoted, split again by :func:`_engine`."""
    out: List[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            out += words[i - 1:]
            break
        if w != "--engine" and not w.startswith("--engine="):
            out.append(w)
            continue
        group = [w.partition("=")[2]] if "=" in w else []
        if not group and i < len(words) and not words[i].startswith("-"):
            group.append(words[i])                 # the first word, whatever it is
            i += 1
        while i < len(words) and _KEY_VALUE.match(words[i]):
            group.append(words[i])
            i += 1
        out.append("--engine")
        if group:
            out.append(shlex.join(group))
    return out


def _engine(text: str) -> Any:
    """An argparse type for --engine: the words :func:`_regroup_engines` joined."""
    from .arena import Engine
    try:
        words = shlex.split(text)
    except ValueError:
        words = [text]
    try:
        return Engine.parse(words)
    except GuandanError as e:
        raise argparse.ArgumentTypeError(_one_line(e)) from None


def _count(option: str, lo: int = 1, hi: Optional[int] = None):
    """An argparse type: a whole number in lo..hi, the message naming the option."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r:.30}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, got {v}")
        if hi is not None and v > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi:,}, got {v:,}")
        return v
    parse.__name__ = option
    return parse


def _level(text: str) -> Any:
    """An argparse type for --level: a rank letter 2-9, T, J, Q, K, A (any
    case) or a number 2..14 (10 = T, 14 = A)."""
    from .positions import check_level
    t = text.strip()
    if t.isdigit() and 2 <= int(t) <= 14:
        return int(t)
    try:
        check_level(t, "--level")
    except GuandanError:
        raise argparse.ArgumentTypeError(
            f"a rank 2-9, T, J, Q, K, A or a number 2..14, got {text!r:.20}") from None
    return t


def _cmd_moves(args: argparse.Namespace) -> int:
    from .moves import legal_moves, parse_move
    from .rules import Rules

    cards = " ".join(args.cards)
    rules = Rules.named(args.rules)
    last = parse_move(args.last, args.level, rules=rules) if args.last else None
    moves = legal_moves(cards, args.level, last, mode="pattern" if args.pattern else "full",
                        rules=rules)
    if args.json:
        json.dump(moves.to_platform(), sys.stdout)
        sys.stdout.write("\n")
    else:
        width = len(str(len(moves)))
        for i, m in enumerate(moves):
            print(f"{i:>{width}}  {m}")
        print(f"{len(moves)} moves", file=sys.stderr)
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .policies import native_code
    from .rules import Rules
    from .simulation import SimulationInterrupted, check_output_path, simulate

    from .registry import split_specs
    pols = split_specs(args.policy)
    if len(pols) == 2:
        pols = [pols[0], pols[1], pols[0], pols[1]]   # seats 0,2 play the first, seats 1,3 the second
    if len(pols) == 1:
        pols = pols * 4
    if len(pols) != 4:
        raise GuandanError(f"--policy takes one, two or four policies, got {len(pols)}")
    for p in pols:
        native_code(p)                         # unknown names fail before anything runs
    rules = Rules.named(args.rules)
    out = check_output_path(args.out) if args.out else None      # before simulating, not after
    if args.games is not None:
        n, unit = args.games, "game"
    else:
        n, unit = args.deals, "deal"
    progress = False if args.quiet else (True if args.progress else None)   # None: when a terminal
    stopped = None
    try:
        res = simulate(n, unit=unit, policies=pols, rules=rules, seed=args.seed,
                       workers=args.workers, progress=progress, keep_rows=out is not None)
    except SimulationInterrupted as e:
        stopped, res = e, e.result
    if res.n:
        print(res.format_summary())
    path = res.save(out) if out and res.n else None
    if path and stopped is None:
        print(f"rows saved to {path}")
    if args.json and res.n:
        s = res.summary()
        s["team_win_ci95"] = [list(x) for x in s["team_win_ci95"]]
        print(json.dumps(s))
    if stopped is not None:
        kept = f", rows in {path}" if path else ("" if res.n else ", nothing kept")
        _interrupted(f"{res.n:,} of {stopped.asked:,} {unit}s simulated{kept}")
        return 130
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from ._files import check_output_path
    from .play import PlayInterrupted, play_terminal
    from .rules import Rules

    if args.record:
        check_output_path(args.record, "--record")         # before the game, not after it
    stopped = None
    try:
        g = play_terminal(args.seat, bots=args.bots, seed=args.seed, rules=Rules.named(args.rules),
                          rounds=args.rounds, hint=args.hint, practice=args.practice,
                          color=args.color)
    except PlayInterrupted as e:
        stopped, g = e, e.game
    if args.record:
        from ._files import atomic_write
        with atomic_write(args.record, "w") as f:
            json.dump(g.record(), f)
        if stopped is None:
            print(f"record saved to {args.record}")
    if stopped is not None:
        played = (f"{g.round_index} round{'' if g.round_index == 1 else 's'} finished, "
                  f"{len(g.moves_played)} actions played")
        kept = (f"record saved to {args.record} (guandan replay {args.record})" if args.record
                else "no record kept (--record FILE keeps one)")
        _interrupted(f"{played}; {kept}")
        return 130
    return 0


def _interrupted(what: str) -> None:
    """The one line a command prints on Ctrl-C: what was kept."""
    print(f"interrupted: {what}", file=sys.stderr, flush=True)


def _cmd_replay(args: argparse.Namespace) -> int:
    from .play import print_record
    from .records import read_record_file

    record = read_record_file(args.file)
    print_record(record)
    return 0


def _say(line: str) -> None:
    """An info line on stdout (start-up, results), shown at once."""
    print(line, flush=True)


def _folder(path: str) -> str:
    """A folder's path as said to the user: with one trailing slash."""
    return path if path.endswith("/") else path + "/"


def _cmd_serve(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from ._files import check_output_path
    from .rules import Rules
    from .server import MultiTableServer, TableServer, parse_bots

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    origins = [o.strip() for spec in args.origin or () for o in spec.split(",") if o.strip()]
    if args.web_hands and args.web is None:
        raise GuandanError("--web-hands goes with --web PORT")
    if args.record:
        check_output_path(args.record, "--record", folder=True)   # before anyone connects
    kwargs = dict(games=args.games, rules=Rules.named(args.rules),
                  bots=parse_bots(args.bots), timeout=args.timeout, record_dir=args.record,
                  on_disconnect=args.on_disconnect, seed=args.seed, late_grace=args.late_grace,
                  send_timeout=args.send_timeout, origins=origins, keep_records=0,
                  max_misses=args.max_misses, announce=_say)
    if args.tables != 1:                                # several tables on one port
        srv: Any = MultiTableServer(args.host, args.port, tables=args.tables, **kwargs)
        tables = srv.tables
    else:
        srv = TableServer(args.host, args.port, **kwargs)
        tables = [srv]
    try:
        with _listening(args.host, f"{args.port}" + (f" or {args.web}" if args.web is not None else "")):
            if args.web is None:
                asyncio.run(srv.run())
                return 0
            import os

            from .web.server import WebApp, run_with_tables
            if args.record:
                os.makedirs(args.record, exist_ok=True)
            app = WebApp(args.host, args.web, records=args.record, rules=Rules.named(args.rules),
                         program_hands=args.web_hands)
            asyncio.run(run_with_tables(srv, app, linger=True, announce=_say))
    except KeyboardInterrupt:
        played = sum(t.games_played for t in tables)
        total = sum(t.games for t in tables)
        kept = (f", records in {_folder(args.record)}" if args.record and played
                else ("" if played else "; nothing to keep"))
        on = f" on {len(tables)} tables" if len(tables) > 1 else ""
        _interrupted(f"{played} of {total} games played{on}{kept}")
        return 130
    return 0


class _listening:
    """OSError of a listening socket as one line (``cannot listen on ...``)."""

    def __init__(self, host: str, ports: str) -> None:
        self.where = f"{host}:{ports}"

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, e: Any, tb: Any) -> None:
        if isinstance(e, OSError) and not isinstance(e, FileNotFoundError):
            why = "the port is in use" if e.errno in (98, 48, 10048) else (e.strerror or str(e))
            raise GuandanError(f"cannot listen on {self.where}: {why}") from None


def _cmd_web(args: argparse.Namespace) -> int:
    import logging

    from .rules import Rules
    from .web import serve_web
    from .web.session import DEFAULT_BOTS

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from .registry import split_specs
    bots = split_specs(args.bots) if args.bots else list(DEFAULT_BOTS)
    watch = [split_specs(w) for w in args.watch or ()]
    origins = [o.strip() for spec in args.origin or () for o in spec.split(",") if o.strip()]
    try:
        with _listening(args.host, str(args.port)):
            serve_web(args.host, args.port, records=args.records, bots=bots, watch=watch,
                      watch_delay=args.watch_delay, bot_delay=args.bot_delay, seed=args.seed,
                      rules=Rules.named(args.rules), origins=origins,
                      announce=lambda url: _say(f"web table: {url}  (Ctrl-C stops)"))
    except KeyboardInterrupt:
        _interrupted("the web table stopped; it writes no files, so nothing was kept")
        return 130
    return 0


def _cmd_bot(args: argparse.Namespace) -> int:
    from .bots import BotInterrupted, check_url, load_bot, run_bot

    url = check_url(args.url)                   # before loading anything
    bot = load_bot(args.bot)
    _say(f"bot {args.bot} connecting to {url}  (Ctrl-C stops)")
    try:
        n = run_bot(bot, url, rules=args.rules, announce=_say)
    except BotInterrupted as e:
        _interrupted(f"{e.games} game{'' if e.games == 1 else 's'} played to the end; the bot "
                     f"keeps no files (the server keeps the records: serve --record DIR)")
        return 130
    _say(f"the server closed the connection after {n} game{'' if n == 1 else 's'}")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    import os

    from .rl.learner import require_jax
    from .rl.train import TrainConfig, plot_curve, train

    require_jax()                                   # before any work: a missing extra is one line
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise GuandanError("--plot needs matplotlib: pip install '.[plot]'") from None
    executor = None
    if args.dask:
        try:
            from distributed import Client
        except ImportError:
            raise GuandanError("--dask needs dask.distributed: pip install '.[dask]'") from None
        executor = Client(args.dask)
    cfg = TrainConfig(hidden=args.hidden, seed=args.seed, actors=args.actors or (os.cpu_count() or 1),
                      games=args.games, epsilon=args.epsilon, imitation=args.imitation, lr=args.lr,
                      imitation_lr=args.imitation_lr, opponent=args.against, init=args.init,
                      batch=args.batch, iterations=args.iterations, minutes=args.minutes, samples=args.samples,
                      eval_minutes=args.eval_minutes, eval_deals=args.eval_deals,
                      eval_opponents=tuple(o for o in args.eval_against.split(",") if o))
    if not args.resume:
        cfg.check()
    show = not args.quiet and sys.stderr.isatty()
    last: dict = {}

    def progress(e: dict) -> None:
        if e.get("kind") == "eval":
            last[e["opponent"]] = e
            lo, hi = e["score_ci"]
            line = (f"eval @ {e['samples']:,} samples, {e['wall'] / 60:.1f} min: vs {e['opponent']} "
                    f"{100 * e['score']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {e['deals']} duplicate deals")
            print(("\r\033[K" if show else "") + line, file=sys.stderr if show else sys.stdout, flush=True)
            return
        if e.get("kind") == "imitation_eval":
            print(("\r\033[K" if show else "") + f"imitation: {100 * e['agreement']:.1f}% agreement with "
                  f"expert on {e['decisions']:,} held-out decisions", flush=True)
            return
        if show:
            loss = f"{e['loss']:.3f}" if e.get("loss") is not None else "-"
            print(f"\r\033[K{e['phase']} iteration {e['iteration']}: {e['samples']:,} samples, "
                  f"{e['samples_per_s']:,.0f}/s, loss {loss}, {e['wall'] / 60:.1f} min",
                  end="", file=sys.stderr, flush=True)

    try:
        res = train(args.out, cfg if not args.resume else TrainConfig(
            iterations=args.iterations, minutes=args.minutes, samples=args.samples),
            resume=args.resume, executor=executor, progress=progress)
    finally:
        if show:
            print(file=sys.stderr)
        if executor is not None:
            executor.close()
    state = os.path.join(args.out, "state.npz")
    if res["stopped"]:
        print(f"interrupted: state saved at iteration {res['iterations']} ({res['samples']:,} samples) in "
              f"{state}; continue with: guandan train {args.out} --resume --minutes M")
    else:
        print(f"done: {res['iterations']} iterations, {res['samples']:,} samples in {res['wall'] / 60:.1f} "
              f"min; model {os.path.join(args.out, 'model.npz')}")
    if args.plot:
        print(f"learning curve: {plot_curve(os.path.join(args.out, 'log.jsonl'), args.plot)}")
    return 130 if res["stopped"] else 0


def _cmd_arena(args: argparse.Namespace) -> int:
    from .arena import ArenaInterrupted, Limits, arena, schedule_seed
    from .rules import Rules

    if args.verbose:
        import logging
        logging.basicConfig(level=logging.INFO,
                            format="%(asctime)s %(name)s %(levelname)s %(message)s")
    parts: List[object] = list(args.engine or [])
    parts += list(args.participants)
    seed = schedule_seed(args.seed, bool(args.engine))
    if args.seed is None and args.engine:
        _say(f"deal seed {seed} (random: the external programs must not know the deals; "
             f"--seed {seed} plays the same deals again)")
    if args.games is not None:
        n, unit = args.games, "game"
    else:
        n, unit = args.deals, "deal"
    limits = Limits(move_time=args.move_time, game_time=args.game_time,
                    connect_time=args.connect_time, max_rounds=args.max_rounds)
    show = args.progress or (not args.quiet and sys.stderr.isatty())
    if args.web_hands and args.web is None:
        raise GuandanError("--web-hands goes with --web PORT")
    # every output checked before the first deal (hours of play never end in "cannot write")
    from ._files import check_output_path
    if args.out:
        check_output_path(args.out, "--out")
    if args.records:
        check_output_path(args.records, "--records", folder=True)
    if args.plot:
        from .arena.report import check_plot
        check_plot(args.plot)
    if args.dask and args.engine:          # before connecting: one line, nothing started
        raise GuandanError(f"{args.engine[0].name}: an external program (--engine) cannot play on a Dask "
                           "cluster (the arena starts it as a local process connected to its own table "
                           "server); rate it without --dask")
    client = None
    if args.dask:
        from .arena.cluster import connect
        client = connect(args.dask)        # dask missing, scheduler unreachable: one line
    stop_web, hub = None, None
    if args.web is not None:
        from .feed import Spectators
        from .web.server import WebApp
        hub = Spectators()
        with _listening("127.0.0.1", str(args.web)):
            stop_web = WebApp("127.0.0.1", args.web, spectators=hub, records=None,
                              program_hands=args.web_hands).start_thread()
        _say(f"web table: http://127.0.0.1:{args.web}/#watch (the external programs' tables)")
    stopped = None
    try:
        with _StopOnSignals():
            try:
                res = arena(parts, deals=n, unit=unit, tournament=args.tournament, seed=seed,
                            rules=Rules.named(args.rules), levels=args.levels,
                            tribute=not args.no_tribute,
                            sprt=" ".join(args.sprt) if args.sprt else None,
                            concurrency=args.concurrency, executor=client, limits=limits,
                            records=args.records, progress=show, output=args.out, spectators=hub)
            except ArenaInterrupted as e:
                stopped = e
    finally:
        try:
            if stop_web is not None:
                stop_web()
        finally:
            if client is not None:
                client.close()
    if stopped is not None:
        if stopped.result is None:             # before the run had anything to keep
            _interrupted(f"by {stopped.signal_name} before the run started; nothing kept")
            return 128 + stopped.signum
        res = stopped.result
    print(res.format())
    if args.out:
        print(f"result saved to {args.out}")
    if args.records:
        print(f"records saved under {_folder(args.records)} (guandan replay FILE)")
    plotted = None
    if args.plot and (stopped is None or any(r.pairs for r in res.pairings)):
        plotted = res.plot(args.plot)
        print(f"plot saved to {plotted}")
    if stopped is None:
        return 0
    stop = res.interrupted or {}
    kept = [f"result in {args.out}"] if args.out else []
    kept += [f"records under {args.records}/"] if args.records else []
    kept += [f"plot in {plotted}"] if plotted else []
    _interrupted(f"{stop.get('pairs', 0)} of {stop.get('of', '?')} duplicate {unit} pairs played"
                 f"{', ' + ', '.join(kept) if kept else ' (the table above; --out FILE keeps it)'}")
    return 128 + stopped.signum


class _StopOnSignals:
    """While ``guandan arena`` runs, SIGINT (Ctrl-C) and SIGTERM raise
    :class:`ArenaInterrupted`, so both end the run the same way: every
    process it started ends, the finished pairs are kept. Later signals are
    ignored while the run cleans up (a few seconds at most)."""

    def __enter__(self) -> "_StopOnSignals":
        import signal
        self.fired = False
        self.old = {}
        for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
            if sig is None:
                continue
            try:
                self.old[sig] = signal.signal(sig, self._handler)
            except (ValueError, OSError):     # not the main thread: signals stay as they are
                pass
        return self

    def _handler(self, signum: int, frame: Any) -> None:
        if self.fired:
            return
        self.fired = True
        from .arena import ArenaInterrupted
        raise ArenaInterrupted(signum)

    def __exit__(self, *exc: Any) -> None:
        import signal
        for sig, old in self.old.items():
            signal.signal(sig, old)


#: the documentation, as paths in the repository (tests/test_cli_commands.py
#: checks that it names every docs/*.md)
DOCS = ("README.md", "docs/README.md", "docs/guandan-in-five-minutes.md", "docs/glossary.md", "docs/rules.md",
        "docs/protocol.md", "docs/bots.md", "docs/search.md", "docs/arena.md", "docs/web.md", "docs/rl.md",
        "docs/rl-encoding.md", "docs/benchmarks.md", "docs/profile.md", "docs/ARCHITECTURE.md")


def _policies(native_only: bool = False) -> str:
    """The registered policies as a user writes them, for help texts."""
    from .registry import policy_usages
    return ", ".join(policy_usages(native_only))


def _version() -> str:
    from . import __version__
    return __version__


def build_parser() -> argparse.ArgumentParser:
    DEFAULT_TIMEOUT = 30.0       # = guandan.server.DEFAULT_TIMEOUT (tested); not imported, for a light start
    pols = _policies()
    p = _Parser(prog="guandan", description="Guandan (掼蛋) engine: legal moves, games, bulk "
                "simulation, a terminal game, a web table, bot ratings and an AI-contest table "
                f"server. Policies (bots) by name: {pols}.",
                epilog="'guandan COMMAND -h' explains a command. Docs, in the repository: "
                + ", ".join(DOCS) + ".")
    p.add_argument("--version", action="version", version=f"guandan {_version()}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                           help="one of the commands below")

    m = sub.add_parser("moves", help="list the legal moves of a hand")
    m.add_argument("cards", nargs="+", help="cards in platform notation, e.g. S2 HT SB HR")
    m.add_argument("--level", default="2", type=_level, help="round level 2..A or 2..14 (default 2)")
    m.add_argument("--last", help='the play to beat, e.g. "Pair 5 S5 D5" or a JSON triple')
    m.add_argument("--pattern", action="store_true", help="suit-merged patterns only")
    m.add_argument("--json", action="store_true", help="print a JSON list of platform triples")
    m.add_argument("--rules", default="default", help="rules preset (default, contest)")
    m.set_defaults(func=_cmd_moves)

    s = sub.add_parser("simulate", help="simulate many deals or games in the native loop",
                       epilog=f"Policies with a native form (what simulate runs): {_policies(True)}.")
    s.add_argument("--deals", type=_count("--deals", 1, 1 << 40), default=100_000,
                   help="number of deals (default 100000)")
    s.add_argument("--games", type=_count("--games", 1, 1 << 40),
                   help="simulate whole games instead of deals")
    s.add_argument("--workers", type=_count("--workers"), default=None,
                   help="threads (default: all cores)")
    s.add_argument("--policy", default="greedy,random",
                   help="policies: one (all seats), two (team 0, team 1) or four, comma-separated, "
                        f"from {_policies(True)} (default greedy,random)")
    s.add_argument("--rules", default="default", help="rules preset (default, contest)")
    s.add_argument("--seed", type=_count("--seed", 0), default=0,
                   help="root seed: the same seed gives the same rows on any number of workers (default 0)")
    s.add_argument("--out", metavar="FILE", help="save the rows: .npz, .csv, or .parquet (with pyarrow); "
                   "the path is checked before simulating")
    s.add_argument("--progress", action="store_true", help="progress bar even when not a terminal")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--json", action="store_true", help="also print the summary as JSON")
    s.set_defaults(func=_cmd_simulate)

    pl = sub.add_parser("play", help="play one seat in the terminal against built-in bots",
                        epilog=f"Policies: {pols}.")
    pl.add_argument("--seat", type=int, default=0, choices=range(4),
                    help="your seat 0..3 (default 0, South; your partner sits opposite)")
    pl.add_argument("--bots", default="greedy",
                    help=f"the bots' policy, one of {pols} (default greedy)")
    pl.add_argument("--seed", type=_count("--seed", 0), default=None,
                    help="seed of the deals (default: a random one, shown at the start)")
    pl.add_argument("--rules", default="default", help="rules preset (default, contest)")
    pl.add_argument("--rounds", type=_count("--rounds"), default=None, help="stop after this many rounds")
    pl.add_argument("--record", metavar="FILE",
                    help="save the game record (JSON) here at the end, or on Ctrl-C (checked "
                         "before the game; 'guandan replay FILE' shows it)")
    pl.add_argument("--hint", nargs="?", const=True, default=False, metavar="POLICY",
                    help="show a hint and its reason at each of your turns: what the bots' policy "
                         "would play, or POLICY's (--hint expert); 'h' asks for one, 'y' plays it")
    pl.add_argument("--practice", action="store_true", help="practice mode: 'undo' takes back your last play")
    pl.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                    help="suit symbols and colour (default: when the terminal supports them)")
    pl.set_defaults(func=_cmd_play)

    rp = sub.add_parser("replay", help="print a game record readably (and validate it)")
    rp.add_argument("file", help="a JSON record from Game.record() or 'guandan play --record'")
    rp.set_defaults(func=_cmd_replay)

    sv = sub.add_parser("serve", help="a table server speaking the AI-contest protocol",
                        epilog=f"Policies for --bots: {pols}.")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=_count("--port", 0, 65535), default=23456,
                    help="port (default 23456; 0: any free port, printed at the start)")
    sv.add_argument("--games", type=_count("--games"), default=1, help="games to play (settingTimes)")
    sv.add_argument("--tables", type=_count("--tables"), default=1,
                    help="tables on this port, each its own game(s); connections fill them in "
                         "order, four client seats (minus --bots) per table (default 1)")
    sv.add_argument("--rules", default="contest", help="rules preset: contest (default) or default")
    sv.add_argument("--bots", help="built-in bots in seats, e.g. 1=expert,2=random,3=greedy or "
                    "1=search:cpu_ms=200,k=5,3=expert (a policy's options follow it); any policy "
                    "listed below")
    sv.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                    help="seconds a client may think, then its default action (index 0); "
                    "default 30, 0 = wait forever")
    sv.add_argument("--late-grace", type=float, default=None, metavar="SECONDS",
                    help="after a timeout, how long the seat's next question waits for its late "
                    "answer (discarded); default: the timeout")
    sv.add_argument("--send-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="a client that does not take a message within this time is "
                    "disconnected (default 10)")
    sv.add_argument("--max-misses", type=int, default=5, metavar="N",
                    help="a client leaving N questions in a row without any answer is "
                    "disconnected (default 5, 0 = never)")
    sv.add_argument("--origin", action="append", metavar="ORIGIN",
                    help="browser Origin allowed besides loopback pages (repeatable or comma "
                    "list; '*' = any); clients without Origin (bots) are always accepted")
    sv.add_argument("--record", metavar="DIR", help="write each game's record (JSON) into this folder "
                    "(created if needed; checked before anyone connects)")
    sv.add_argument("--on-disconnect", choices=("bot", "abort"), default="bot",
                    help="a disconnected seat is played by the greedy bot (default) or the session ends")
    sv.add_argument("--seed", type=_count("--seed", 0), default=None, help="seed of the first game's deals")
    sv.add_argument("--web", type=_count("--web", 0, 65535), metavar="PORT", default=None,
                    help="also serve the web table on this port to watch the tables live; "
                         "spectators see what every player sees, and each round's cards once it "
                         "ends (with --web-hands: every hand); it stays up after the games, "
                         "with their records to replay, until Ctrl-C")
    sv.add_argument("--web-hands", action="store_true",
                    help="let --web spectators see every hand while a round is played (a client "
                         "could then read its opponents' cards: for tables of your own programs)")
    sv.add_argument("-v", "--verbose", action="store_true", help="log every connection and decision")
    sv.set_defaults(func=_cmd_serve)

    wb = sub.add_parser("web", help="the web table: watch, replay and play against the bots in a browser",
                        description="Serve the web table (one page and its WebSocket on one port): "
                        "watch live tables, replay game records, play against the built-in bots.",
                        epilog=f"Policies for --bots and --watch: {pols}.")
    wb.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    wb.add_argument("--port", type=_count("--port", 0, 65535), default=8765, help="default 8765")
    wb.add_argument("--records", metavar="DIR",
                    help="offer the game records (*.json) under DIR for replay (serve --record, "
                         "arena --records, play --record output)")
    wb.add_argument("--bots", help="bots a player may choose, comma list (default: greedy, expert, "
                    "random, search:ms=300, search:rollouts=200)")
    wb.add_argument("--watch", action="append", metavar="BOTS",
                    help="start a bot table to watch: one bot or four (seats 0..3), e.g. "
                         "expert,greedy,expert,greedy (repeatable)")
    wb.add_argument("--watch-delay", type=float, default=0.8, metavar="SECONDS",
                    help="pause between two actions of a watched bot table (default 0.8)")
    wb.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                    help="pause before each bot action in a game against you (default 0.6)")
    wb.add_argument("--seed", type=_count("--seed", 0), default=0, help="seed of the watched tables' deals")
    wb.add_argument("--rules", default="default", help="rules preset (default, contest)")
    wb.add_argument("--origin", action="append", metavar="ORIGIN",
                    help="browser Origin allowed besides loopback pages (as for serve)")
    wb.add_argument("-v", "--verbose", action="store_true", help="log more")
    wb.set_defaults(func=_cmd_web)

    ar = sub.add_parser("arena", help="rate bots by duplicate deals (cutechess / fastchess style)",
                        epilog=f"Built-in policies: {pols}.",
                        description="Rate participants by duplicate deals: every deal is played "
                        "twice with the teams' seats swapped. Participants: built-in policies "
                        "(greedy, random, search:ms=200 ...), in-process SDK bots (module:Class), "
                        "external contest-protocol programs (--engine, listed first).")
    ar.regroup = _regroup_engines
    ar.add_argument("participants", nargs="*", help="built-in policy specs (listed below) or "
                    "module:Class bots (./module.py found from the current folder)")
    ar.add_argument("--engine", action="append", type=_engine, metavar="name=NAME cmd=CMD [dir=DIR]",
                    help='an external program, e.g. --engine name=mybot cmd="python mybot.py {url}": '
                         "the KEY=VALUE words up to the next option or participant; {url} in CMD "
                         "is replaced by its table's URL (repeatable; engines come before the "
                         "positional participants)")
    ar.add_argument("--deals", type=int, default=1000, help="duplicate deals per pairing (default 1000)")
    ar.add_argument("--games", type=int, help="play this many duplicate whole games instead of deals")
    ar.add_argument("--tournament", choices=("head-to-head", "gauntlet", "round-robin"),
                    help="default: head-to-head for two participants, else round-robin")
    ar.add_argument("--seed", type=_count("--seed", 0), default=None,
                    help="seed of the deal schedule (default 0; with --engine programs a random "
                         "seed, printed: a program that knew the schedule could deal the others' hands)")
    ar.add_argument("--rules", default="default", help="rules preset (default, contest)")
    ar.add_argument("--levels", default="random",
                    help="team levels of each deal: random (default), a rank for both, or L0,L1")
    ar.add_argument("--no-tribute", action="store_true",
                    help="first-round deals (no seeded previous order, hence no tribute)")
    ar.add_argument("--sprt", nargs="+", metavar="K=V",
                    help="stop when decided: elo0=0 elo1=10 alpha=0.05 beta=0.05 (logistic Elo)")
    ar.add_argument("--concurrency", type=int, default=None,
                    help="tables at once (default: cores; with --dask, the cluster's worker threads)")
    ar.add_argument("--dask", metavar="ADDRESS",
                    help="play the tables on this Dask scheduler (tcp://HOST:8786 or a scheduler "
                         "file .json; needs the dask extra): the same results as a local run with the "
                         "same seed; built-in policies and picklable in-process bots play there, "
                         "external programs (--engine) are refused")
    ar.add_argument("--move-time", type=float, default=10.0,
                    help="seconds per decision of an in-process or external bot (default 10)")
    ar.add_argument("--game-time", type=float, default=120.0,
                    help="a participant's thinking seconds per game/half (default 120)")
    ar.add_argument("--connect-time", type=float, default=30.0,
                    help="seconds an external program has to connect (default 30)")
    ar.add_argument("--max-rounds", type=int, default=100,
                    help="round cap of whole games (--games; default 100)")
    ar.add_argument("--records", metavar="DIR", help="save every game record (JSON) under DIR")
    ar.add_argument("--out", metavar="FILE", help="write the JSON result here (also on Ctrl-C)")
    ar.add_argument("--plot", metavar="PNG", help="plot ratings and score over time (needs matplotlib; "
                    "every output path and matplotlib are checked before the first deal)")
    ar.add_argument("--progress", action="store_true", help="progress line even when not a terminal")
    ar.add_argument("--quiet", action="store_true", help="no progress line")
    ar.add_argument("--web", type=_count("--web", 0, 65535), metavar="PORT", default=None,
                    help="serve the web table on this port (127.0.0.1) to watch the external "
                         "programs' tables live (hands hidden until each round ends, unless --web-hands)")
    ar.add_argument("--web-hands", action="store_true",
                    help="let --web spectators see every hand while a round is played (a program "
                         "could then read its opponents' cards)")
    ar.add_argument("-v", "--verbose", action="store_true",
                    help="log the table server's connections and faults (external bots)")
    ar.set_defaults(func=_cmd_arena)

    tr = sub.add_parser("train", help="train a learned bot: Deep Monte-Carlo self-play (needs the rl extra)",
                        description="Train a Q(s, a) network on the native engine (docs/rl.md): an "
                        "imitation warm start from the expert, then self-play Deep Monte-Carlo. "
                        "Writes OUT/model.npz (play it as net:path=OUT/model.npz), OUT/state.npz "
                        "(resume with --resume), OUT/log.jsonl and, with --plot, a learning curve. "
                        "Ctrl-C stops at the end of the current iteration and saves a resumable state.")
    tr.add_argument("out", metavar="OUT", help="the run's folder (created if missing)")
    tr.add_argument("--resume", action="store_true", help="continue the run in OUT (its settings; the "
                    "limits given here replace the old ones)")
    tr.add_argument("--hidden", default="256x3", help="hidden layers: WIDTHxDEPTH or a list (default 256x3)")
    tr.add_argument("--minutes", type=float, default=0.0, help="stop after this many minutes of wall time")
    tr.add_argument("--iterations", type=_count("--iterations", 0), default=0, help="stop after this many iterations")
    tr.add_argument("--samples", type=_count("--samples", 0), default=0, help="stop after this many samples")
    tr.add_argument("--imitation", type=_count("--imitation", 0), default=20,
                    help="warm-start iterations imitating the expert (default 20)")
    tr.add_argument("--actors", type=_count("--actors", 1, 1024), default=None,
                    help="actor tasks per iteration, run in parallel (default: the number of cores)")
    tr.add_argument("--games", type=_count("--games", 1, 65536), default=128,
                    help="deals per actor task (default 128)")
    tr.add_argument("--epsilon", type=float, default=0.05, help="exploration: share of random moves (default 0.05)")
    tr.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate (default 3e-4)")
    tr.add_argument("--imitation-lr", type=float, default=0.0,
                    help="the learning rate of the warm start (default: --lr)")
    tr.add_argument("--batch", type=_count("--batch", 8, 65536), default=1024, help="batch size (default 1024)")
    tr.add_argument("--seed", type=_count("--seed", 0), default=0, help="the run's seed (default 0)")
    tr.add_argument("--eval-minutes", type=float, default=10.0,
                    help="evaluate against the opponents every so often (default 10; 0: only at the end)")
    tr.add_argument("--eval-deals", type=_count("--eval-deals", 1), default=200,
                    help="duplicate deals per evaluation and opponent (default 200)")
    tr.add_argument("--eval-against", default="greedy,expert",
                    help="evaluation opponents, comma-separated policy specs (default greedy,expert)")
    tr.add_argument("--against", metavar="POLICY", default="",
                    help="self-play opponents: a native policy (expert) plays one team of every deal "
                         "(default: the network plays every seat)")
    tr.add_argument("--init", metavar="MODEL", default="",
                    help="start from this network (a model.npz; its hidden layers replace --hidden)")
    tr.add_argument("--dask", metavar="ADDRESS", help="run the actors on this Dask scheduler")
    tr.add_argument("--plot", metavar="PNG", help="write the learning curve here at the end (matplotlib)")
    tr.add_argument("--quiet", action="store_true", help="no progress line")
    tr.set_defaults(func=_cmd_train)

    bt = sub.add_parser("bot", help="run an SDK bot against a contest-protocol server")
    bt.add_argument("bot", help="module:Class of a guandan.bots.Bot subclass")
    bt.add_argument("--url", default="ws://127.0.0.1:23456/game/guandan",
                    help="the server's URL, ws://HOST:PORT/game/NAME (default "
                         "ws://127.0.0.1:23456/game/guandan, 'guandan serve' on this machine)")
    bt.add_argument("--rules", default="contest",
                    help="the server's rules preset: contest (default) or default")
    bt.set_defaults(func=_cmd_bot)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:          # plain 'guandan': the help
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except GuandanError as e:
        print(f"guandan: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:                          # before the command had anything to keep
        _interrupted("nothing kept")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:                               # files, sockets: one line, never a traceback
        where = f" {e.filename}" if getattr(e, "filename", None) else ""
        print(f"guandan: error:{where} {e.strerror or e}", file=sys.stderr)
        return 1


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


if __name__ == "__main__":
    sys.exit(main())
