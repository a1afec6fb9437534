"""JSON that strict parsers accept: JSON has no NaN or infinity, so mjsim writes null for a
figure without a value (an interval of one deal, a rate of no hands)."""
from __future__ import annotations

import math


def null_if_not_finite(value):
    """`value` with every NaN or infinite float, however deeply nested, replaced by None."""
    if isinstance(value, dict):
        return {k: null_if_not_finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [null_if_not_finite(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value
