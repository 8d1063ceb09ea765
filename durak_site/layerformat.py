"""The Redis channel layer's message format: msgpack, each message decoded once per process.

The pub/sub layer hands the same bytes of a group message to every socket of the group in the
process, and each socket decodes them itself: a final table's thousands of spectators decoded
every state thousands of times. Here a decoded message is kept for the bytes it came from (the
last :data:`KEPT`), so the sockets after the first share one dict. They only read it: a message
from the layer is never changed by its receiver.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from channels_redis.serializers import MsgPackSerializer, registry

#: Decoded messages kept per process.
KEPT = 64
FORMAT = "durak-msgpack"


class SharedMsgPack(MsgPackSerializer):  # type: ignore[misc]  # channels_redis is untyped
    """msgpack, as the layer's own format; decoding the same bytes again gives the same dict."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._decoded: OrderedDict[bytes, Any] = OrderedDict()

    def deserialize(self, message: bytes) -> Any:
        # The layer's receiver puts the one bytes object in each socket's queue: its hash is
        # computed once (CPython keeps it) and the key compares by identity.
        found = self._decoded.get(message)
        if found is None:
            found = self._decoded[message] = super().deserialize(message)
            if len(self._decoded) > KEPT:
                self._decoded.popitem(last=False)
        return found


registry.register_serializer(FORMAT, SharedMsgPack)
