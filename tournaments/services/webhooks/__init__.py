"""Organisers' webhooks, delivered by the Standard Webhooks rules; one module per
responsibility:

- :mod:`~tournaments.services.webhooks.management`: an organiser's webhooks added, changed,
  deleted, their secret rotated, a test ``ping`` sent (the actor checked, an audit row written);
- :mod:`~tournaments.services.webhooks.delivery`: the outbox rows a change makes
  (``tournaments.notifications.webhooks``), the delivery job's attempts, backoff and sweep;
- :mod:`~tournaments.services.webhooks.signing`: the secrets and the ``webhook-signature``
  header, for both ends;
- :mod:`~tournaments.services.webhooks.transport`: one ``POST`` to a checked public address,
  pinned (a second lookup cannot swap in another), no redirects, a bounded timeout.

Every delivery is a ``POST`` of the feed's message (``tournaments.notifications.Change``) as JSON
with three headers:

- ``webhook-id``: the event's id (``msg_<tournament>_<version>``), the same on every attempt;
- ``webhook-timestamp``: the attempt's time, in whole seconds since the epoch;
- ``webhook-signature``: ``v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>``; a
  space-separated list, so that a secret can be rotated.
"""
