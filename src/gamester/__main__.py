from gamester.play.cli import main

raise SystemExit(main())
