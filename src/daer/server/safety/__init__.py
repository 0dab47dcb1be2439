"""Safety (安全): bounds on everything a client chooses, abuse limits, and HTTP hardening.

- :mod:`~daer.server.safety.bounds`: room options, house rules, bots, names and ids, each refused whole with a
  Chinese reason first;
- :mod:`~daer.server.safety.limits`: per-address token buckets, connection caps, the server's options;
- :mod:`~daer.server.safety.guard`: security headers, allowed origins, JSON-only bodies (one ASGI middleware).

May import :mod:`daer.server.protocol` and everything below the server; never the table or the HTTP surface.
"""
