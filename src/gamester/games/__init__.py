"""The games. Each subpackage registers its ``Game`` through the ``gamester.games`` entry points."""
