"""Players: a person known across rooms, made without a form the first time they take a seat.

Owns the player cookie (a long random secret, only its hash stored), the 我的 endpoints (``/api/me…``:
nickname and avatar, devices, export, delete), the second device's one-time link and its QR code, and
passkeys (WebAuthn).  Seats are linked to players by :mod:`daer.server.http.app`, which calls
:meth:`~daer.server.players.identity.Players.seated` after a create or a join.

May import: :mod:`daer.store` (its player tables, :mod:`daer.store.players`), :mod:`daer.server.safety`
(rate limits, bounds) and the libraries (``segno``, ``webauthn``).  Never :mod:`daer.server.table` or
:mod:`daer.server.http`: it sits beside the table, below the HTTP layer (``tests/test_layers.py``).
"""
