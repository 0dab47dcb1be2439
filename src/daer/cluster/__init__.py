"""A local cluster in one command (``daer cluster up|down``, ``scripts/cluster.sh``): a private PostgreSQL,
HAProxy routing every request of a room by its code, and N ``daer serve`` workers, all on loopback ports and
from Debian's packages.  ``docs/deploy.md``, "Cluster"."""
