"""The Textual app: screens, widgets, themes loader. Data comes only from the Store."""
