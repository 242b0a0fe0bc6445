"""The engine: break-even and ranking over a columnar offer table.

Pure arithmetic on data it is handed: no Flask, no SQL, no documents. The documents package
turns its results into answers; an import contract (pyproject, `lint-imports`) keeps it so.
"""
