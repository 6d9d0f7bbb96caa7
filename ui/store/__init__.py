"""What server replicas share: API sessions, answer records, feedback and Slack event ids, in one SQL database.

``GPU_ADVISOR_DATABASE_URL`` picks the database: a SQLite file under the data directory by default (one
host), PostgreSQL (``postgresql://...``, through psycopg 3) for several replicas.
"""

from ui.store.database import Database, StoreError

__all__ = ["Database", "StoreError"]
