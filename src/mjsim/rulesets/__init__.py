"""Rule sets: Rules and its registry, and per rule set its translation to the native core."""
