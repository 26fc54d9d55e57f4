"""The pit's live page of every table (`shoe-floor serve`; docs/floor.md, "The pit's page")."""
