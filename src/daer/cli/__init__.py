"""The ``daer`` command line: score, rules, and (with the engine) sim, play, replay."""
