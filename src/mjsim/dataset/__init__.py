"""The dataset on disk: the Arrow/Parquet schema of the three tables, the hive layout, the manifest, and safe storage (atomic writes, the lock, quarantine, resume checks)."""
