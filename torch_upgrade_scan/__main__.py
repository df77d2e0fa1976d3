"""`python -m torch_upgrade_scan PATH ...`: the same as the `torch-upgrade-scan` command."""

import sys

from torch_upgrade_scan.cli import main

sys.exit(main())
