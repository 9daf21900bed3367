"""``python -m service.cli``: the ``pokertable`` command."""

from service.cli.main import main

raise SystemExit(main())
