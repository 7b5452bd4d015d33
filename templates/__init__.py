"""The built-in templates (announcements, the report): this folder is the package
``tally.templates`` once installed, read with importlib.resources (tally.outputs.written.templating)."""
