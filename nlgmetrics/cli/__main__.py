import sys

from nlgmetrics.cli import main

sys.exit(main())
