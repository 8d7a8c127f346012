from memharness_tui.launch import main

raise SystemExit(main())
