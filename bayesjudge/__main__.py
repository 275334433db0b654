"""Run the command line as ``python -m bayesjudge``."""

import sys

from bayesjudge.cli.app import main

sys.exit(main())
