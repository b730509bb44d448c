from crmarena_tui.cli import main

raise SystemExit(main())
