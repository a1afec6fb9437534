import sys
from pathlib import Path

# the reference implementation and hand generators live beside the tests, not in src
sys.path.insert(0, str(Path(__file__).parent))
