"""The table (牌桌): a room and its match (一场), with what happens at it.

- a room and its match: :mod:`~daer.server.table.rooms` (the world around a match: store, sockets, clock),
  :mod:`~daer.server.table.match` (the state machine, no I/O), :mod:`~daer.server.table.outcome` (what a step
  asks the world to do);
- its clock and bots: :mod:`~daer.server.table.clock`, :mod:`~daer.server.table.thinking`;
- seats and audiences: :mod:`~daer.server.table.seating`, :mod:`~daer.server.table.audience`,
  :mod:`~daer.server.table.hints`, :mod:`~daer.server.table.replies`;
- deals and settlements: :mod:`~daer.server.table.dealing` (公平发牌), :mod:`~daer.server.table.settling`;
- its store: :mod:`~daer.server.table.port` (leases and fenced writes);
- what friends do at a table besides playing (the dissolve vote, spectators one turn behind):
  :mod:`~daer.server.table.together`, over :mod:`daer.server.social`.

The rooms one process serves are :mod:`daer.server.serving`'s.

May import :mod:`daer.server.social`, :mod:`daer.server.safety`, :mod:`daer.server.ops`,
:mod:`daer.server.protocol` and everything below the server (engine, bots, store); never
:mod:`daer.server.serving` or :mod:`daer.server.http`.
"""
