"""Reading a dataset: measures, per-chunk sufficient statistics, intervals and tests, the report."""
