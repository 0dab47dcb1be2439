"""``python -m daer`` runs the command line."""

from daer.cli.main import main

main()
