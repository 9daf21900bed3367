"""``python -m pokertable``: the ``pokertable`` command, with the program's own packages first on ``sys.path`` (the
service demo starts its server this way, so an installed wheel's child process imports pokertable's ``service``)."""

from pokertable import main

raise SystemExit(main())
