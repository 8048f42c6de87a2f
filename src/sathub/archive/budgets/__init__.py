"""Per-client budgets for the archive's costly doors: searches and exports (docs/archive-crawlers.md,
"Budgets")."""
