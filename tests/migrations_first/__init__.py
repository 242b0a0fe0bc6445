"""Revisions as they first landed, before later commits edited them in place: fixtures for
tests/test_migrations.py, which builds stores the way these revisions built them."""
