"""`python -m tools.execute`: the engine's command line (engine.py)."""
from tools.execute.engine import main

raise SystemExit(main())
