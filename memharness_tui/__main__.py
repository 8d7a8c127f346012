from memharness_tui.cli import main

raise SystemExit(main())
