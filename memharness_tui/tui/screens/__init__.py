"""Screens: the main tabbed screen, fact detail, and the modals."""
