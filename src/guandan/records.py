"""Game records (:meth:`guandan.Game.record`): the format and its validator.

Records are files people exchange: :func:`validate_record` type-checks every
field :meth:`guandan.Game.replay` needs, and replay then validates every
action, so an untrusted record can be loaded safely.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from ._checks import check_int
from ._files import read_bounded
from .errors import GuandanError
from .positions import check_seed
from .rules import Rules

__all__ = ["RECORD_FORMAT", "MAX_RECORD_ACTIONS", "MAX_RECORD_BYTES", "validate_record", "read_record_file"]

RECORD_FORMAT = "guandan-record/1"


MAX_RECORD_ACTIONS = 1_000_000
MAX_RECORD_BYTES = 64 * 2**20


def read_record_file(path: str, *, shown: Optional[str] = None) -> Any:
    """A record file's JSON (at most :data:`MAX_RECORD_BYTES`), or a
    GuandanError saying why not (not validated: see :func:`validate_record`);
    the messages name the file ``shown``, when given, instead of its path."""
    name = path if shown is None else shown
    text = read_bounded(path, MAX_RECORD_BYTES, "record", GuandanError, shown=name)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise GuandanError(f"{name} is not JSON: {str(e)[:100]}") from None


def validate_record(record: Any) -> Dict[str, Any]:
    """The validator of game records (:meth:`Game.record` output, from a file
    or the network): the fields replay needs, type-checked, or a GuandanError."""
    if isinstance(record, (bytes, bytearray)):
        try:
            record = record.decode("utf-8")
        except UnicodeDecodeError:
            raise GuandanError("a record is UTF-8 JSON") from None
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except (ValueError, RecursionError):
            raise GuandanError("a record is a JSON object; this is not JSON") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise GuandanError(f"not a {RECORD_FORMAT} record")
    for key in ("rules", "seed", "actions"):
        if key not in record:
            raise GuandanError(f"the record has no {key!r} field")
    rules = Rules.from_dict(record["rules"])
    seed = check_seed(record["seed"])
    start = record.get("start")
    if start is not None and not isinstance(start, str):
        raise GuandanError("the record's 'start' is a position string or null")
    actions = record["actions"]
    if not isinstance(actions, list) or len(actions) > MAX_RECORD_ACTIONS:
        raise GuandanError("the record's 'actions' is a list of [seat, move] pairs")
    out = []
    for i, a in enumerate(actions):
        if not isinstance(a, list) or len(a) != 2:
            raise GuandanError(f"action {i} is not a [seat, move] pair")
        out.append((check_int(a[0], f"action {i}'s seat", 0, 3), a[1]))
    rs = record.get("round_start")
    if rs is not None:
        if start is not None or not isinstance(rs, dict) or \
                set(rs) != {"team_levels", "owner", "last_order"}:
            raise GuandanError("the record's 'round_start' is {team_levels, owner, last_order}")
    deals = record.get("deals")
    if deals is not None:
        if not isinstance(deals, list) or not all(
                isinstance(d, list) and len(d) == 4 and all(isinstance(x, str) for x in d) for d in deals):
            raise GuandanError("the record's 'deals' is a list of four card strings per round")
        deals = [list(d) for d in deals]
        if not deals:
            deals = None
    return {"rules": rules, "seed": seed, "start": start, "round_start": rs, "actions": out,
            "deals": deals}
