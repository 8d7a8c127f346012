"""The Staleness tab's parts: the pass controller and the small widgets the dashboard composes."""
