"""Where the project and its virtualenv's programs are.

Every process the harness starts runs from ROOT with programs from BIN (the
directory of the running interpreter), so a test, `python -m bench` and
`python -m faults` all exercise the same checkout with the same packages.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
