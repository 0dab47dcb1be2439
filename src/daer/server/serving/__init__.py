"""Serving (服务): the rooms one process serves — new codes, creating, finding, restoring and handing rooms over
(:mod:`~daer.server.serving.manager`, with the leases it keeps), and the rooms' expiry on a schedule
(:mod:`~daer.server.serving.expiry`).

May import :mod:`daer.server.table` (a room and its match), :mod:`daer.server.social`, :mod:`daer.server.safety`,
:mod:`daer.server.ops`, :mod:`daer.server.protocol` and everything below the server; imported by
:mod:`daer.server.http` only.
"""
