"""``python -m daer`` runs the command line."""

from daer.cli.entry import main

main()
