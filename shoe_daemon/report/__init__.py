"""`shoe-daemon report`: the shift report for the pit, per shoe, from the ledger or an export.

| module | what |
| --- | --- |
| `figures` | `ShiftReport`: the figures of a time range, read from the records (docs/report.md) |
| `text` | the report as the pit reads it |
| `cli` | the command: the records (a ledger, an export), checked first; the range |

The report reads the ledger's records (or an export's events.jsonl), never the results
file: every figure comes from records the audit checks, and the report is refused where
`audit verify` would fail.
"""
