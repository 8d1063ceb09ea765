"""``durak_site.layerformat``: the channel layer's messages, decoded once per process."""

from __future__ import annotations

from durak_site import layerformat
from durak_site.layerformat import SharedMsgPack


def test_the_same_bytes_decode_to_one_shared_message() -> None:
    fmt = SharedMsgPack()
    message = {"type": "game.changed", "version": 3, "state": {"hands": [[1, 2], [3]]}}
    data = fmt.serialize(message)
    first = fmt.deserialize(data)
    assert first == message
    # every socket of the process after the first gets the message decoded for the first
    assert fmt.deserialize(data) is first
    assert fmt.deserialize(bytes(data)) is first  # equal bytes, another object
    # other bytes are other messages; only the last few are kept
    others = [fmt.deserialize(fmt.serialize({"n": n})) for n in range(layerformat.KEPT)]
    assert [o["n"] for o in others] == list(range(layerformat.KEPT))
    assert fmt.deserialize(data) is not first
    assert fmt.deserialize(data) == message
