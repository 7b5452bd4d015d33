"""What a run writes for others to read: announcements (and the templates that make them),
the report and its charts, the archive (CSV, SQLite), the card ledger's file, a first game
file, docs/rulesets.md."""
