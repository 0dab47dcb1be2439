"""Club tournaments (比赛): duplicate deals, Swiss rounds, live standings (docs/tournaments.md).

``scoring`` and ``pairing`` are pure arithmetic; ``service`` runs the rounds on the server's rooms; ``routes``
is the HTTP surface.  This package sits above ``clubs`` in the server's layers.
"""
