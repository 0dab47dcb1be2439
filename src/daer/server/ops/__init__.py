"""Operations (运维): health and readiness, Prometheus metrics, structured logs, the collector's tuning.

- :mod:`~daer.server.ops.metrics`: ``/healthz``, ``/readyz``, ``/metrics``;
- :mod:`~daer.server.ops.tallies`: lock-free counters and histograms for the hot path;
- :mod:`~daer.server.ops.logs`: one JSON object a line, or plain text;
- :mod:`~daer.server.ops.collector`: ``--gc tuned``.

The bottom of the server: imports nothing of it but :mod:`daer.server.protocol` (and the store below); what it
reads of the rooms it is handed (:class:`~daer.server.ops.metrics.ServedRooms`).
"""
