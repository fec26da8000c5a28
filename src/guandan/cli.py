"""The ``guandan`` command line.

``guandan moves [--level L] [--last "Pair 5 S5 D5"] [--pattern] [--json] CARDS...``
prints the legal moves of a hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from .errors import GuandanError

__all__ = ["main"]


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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="guandan", description="Guandan (掼蛋) engine")
    sub = p.add_subparsers(dest="command", required=True)

    m = sub.add_parser("moves", help="list the legal moves of a hand")
    m.add_argument("cards", nargs="+", help="cards in platform notation, e.g. S2 HT SB HR")
    m.add_argument("--level", default="2", help="round level 2..A (default 2)")
    m.add_argument("--last", help='the play to beat, e.g. "Pair 5 S5 D5" or a JSON triple')
    m.add_argument("--pattern", action="store_true", help="suit-merged patterns only")
    m.add_argument("--json", action="store_true", help="print a JSON list of platform triples")
    m.add_argument("--rules", default="default", help="rules preset (default, contest)")
    m.set_defaults(func=_cmd_moves)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GuandanError as e:
        print(f"guandan: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
