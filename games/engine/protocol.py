"""The engine protocol (``engine-protocol.md``): JSON lines on stdin, one answer line each.

    python -m games.engine.protocol

One game at a time; a malformed line, an unknown command or rule option is ``bad_request`` and
the process goes on; a refused action changes nothing.  :class:`Session` is the same loop as an
object, for in-process use:

>>> session = Session()
>>> session.handle('{"cmd": "new", "rules": {}, "seed": 42}')
{'ok': True}
>>> session.handle('{"cmd": "act", "action": {"seat": 9, "type": "take"}}')["error"]
'bad_request'
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from .actions import Action
from .errors import BadRequest, EngineError
from .game import apply, from_deal, legal_actions, new_game, rng_for_seed, view
from .rules import Rules
from .state import GameState

__all__ = ["Session", "main"]

_COMMANDS = ("new", "act", "check", "legal", "state", "view")


class Session:
    """One protocol process: holds the current game and answers requests."""

    def __init__(self) -> None:
        self.state: GameState | None = None

    def handle(self, line: str) -> dict[str, Any]:
        """Answer one request line (a JSON object) with one answer object."""
        try:
            try:
                request = json.loads(line)
            except ValueError as exc:
                raise BadRequest(f"not JSON: {exc}") from None
            return self.request(request)
        except EngineError as err:
            return {"ok": False, "error": err.code, "message": str(err)}
        except Exception as exc:  # a bug must not end the process nor change the game
            return {"ok": False, "error": "illegal", "message": f"internal error: {exc!r}"}

    def request(self, request: Any) -> dict[str, Any]:
        """Answer one decoded request; raise :class:`EngineError` to refuse it."""
        if not isinstance(request, dict):
            raise BadRequest("a request is a JSON object")
        cmd = request.get("cmd")
        if cmd not in _COMMANDS:
            raise BadRequest(f"unknown cmd {cmd!r} (one of {', '.join(_COMMANDS)})")
        if cmd == "new":
            self.state = self._new(request)
            return {"ok": True}
        state = self.state
        if state is None:
            raise BadRequest("no game: send {'cmd': 'new', ...} first")
        if cmd in ("act", "check"):
            action = Action.from_json(request.get("action"))
            after = apply(state, action)
            if cmd == "act":
                self.state = after
            return {"ok": True}
        if cmd == "legal":
            seat = request.get("seat")
            if type(seat) is not int:
                raise BadRequest("legal: 'seat' must be an integer")
            return {"ok": True, "actions": [a.to_json() for a in legal_actions(state, seat)]}
        if cmd == "state":
            return {"ok": True, "state": state.to_json()}
        seat = request.get("seat")
        if seat is not None and type(seat) is not int:
            raise BadRequest("view: 'seat' must be an integer or null")
        return {"ok": True, "view": view(state, seat)}

    @staticmethod
    def _new(request: dict[str, Any]) -> GameState:
        extra = set(request) - {"cmd", "rules", "deal", "seed"}
        if extra:
            raise BadRequest(f"new: unknown key(s) {', '.join(sorted(map(str, extra)))}")
        rules = Rules.from_dict(request.get("rules", {}))
        if ("deal" in request) == ("seed" in request):
            raise BadRequest("new: give either 'deal' or 'seed'")
        if "deal" in request:
            return from_deal(rules, request["deal"])
        return new_game(rules, rng_for_seed(request["seed"]))


def main(stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
    """Run the protocol loop until the end of input."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    session = Session()
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(json.dumps(session.handle(line), ensure_ascii=False) + "\n")
        stdout.flush()


if __name__ == "__main__":
    main()
