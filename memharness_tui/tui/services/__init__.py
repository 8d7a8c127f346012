"""The UI's doors to the outside: the database (``StoreService`` on one DB thread) and git
(``GitView``). Widgets use these by name; nothing in the UI holds a Store or a lambda over one.
"""

from memharness_tui.tui.services.gateway import (
           StoreGateway,
           StoreInfo,
           default_now,
           should_open_readonly,
)
from memharness_tui.tui.services.git import GitView, Judged
from memharness_tui.tui.services.store import (
           BulkResult,
           FactValues,
           FlaggedPage,
           RecallQuery,
           StoreService,
)

__all__ = ["BulkResult", "FactValues", "FlaggedPage", "GitView", "Judged", "RecallQuery",
           "StoreGateway", "StoreInfo", "StoreService", "default_now", "should_open_readonly"]
