"""亲友圈 clubs on the server: who may do what (access), the endpoints (routes), 战绩 (records), standing
tables, and the live club page (docs/clubs.md)."""
