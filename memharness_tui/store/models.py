"""Peewee model of the ``facts`` table. Never ``create_table``: the migrations own the schema."""

from __future__ import annotations

from peewee import (
    BlobField,
    CharField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    SqliteDatabase,
    TextField,
)


class FactModel(Model):
    id = IntegerField(primary_key=True)
    subject = TextField()
    predicate = TextField(default="")
    fact = TextField()
    confidence = FloatField(default=1.0)
    valid_from = TextField()
    valid_to = TextField(null=True)
    tx_at = TextField()
    superseded_by = ForeignKeyField("self", null=True, column_name="superseded_by", lazy_load=False)
    source_agent = TextField(default="")
    source_ref = TextField(default="")
    retracted_at = TextField(null=True)
    embedding = BlobField(null=True)
    importance = IntegerField(default=5)
    kind = CharField(default="semantic")
    last_accessed_at = TextField(null=True)
    embedding_dim = IntegerField(null=True)
    embedding_model = TextField(null=True)
    source_commit = TextField(null=True)
    source_path = TextField(null=True)
    freshness = TextField(null=True)
    checked_at = TextField(null=True)
    checked_head = TextField(null=True)

    class Meta:
        table_name = "facts"


def bound_model(db: SqliteDatabase) -> type[FactModel]:
    """A FactModel subclass bound to one database (binding the base class is global state)."""

    class BoundFact(FactModel):
        class Meta:
            database = db
            table_name = "facts"

    return BoundFact
