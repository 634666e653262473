"""The version of the event tables `toolsel export` writes (Parquet, not JSON: no JSON
Schema is published for them; toolsel/events/schema.py defines their columns)."""

EVENTS_SCHEMA = "toolsel.events/v1"
