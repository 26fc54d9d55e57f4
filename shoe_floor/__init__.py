"""The pit's floor collector: every table's ledger from the broker into one database
(docs/floor.md)."""
