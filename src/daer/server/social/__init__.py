"""What a table of friends does besides playing: the dissolve vote, quick phrases and emotes, the same-network
warning and the spectators' delayed view.  Below :mod:`daer.server.table` (the match uses it), above
:mod:`daer.server.safety`; no I/O."""
