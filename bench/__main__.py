"""`python -m bench [options]`: run the benchmark (see bench/run.py or --help)."""

import signal
import sys

from bench.run import main

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))  # finally blocks stop the servers
    sys.exit(main())
