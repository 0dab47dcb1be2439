"""Alembic environment: the connection comes from :meth:`daer.store.Store.migrate`."""

from __future__ import annotations

from alembic import context

from daer.store.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
