"""A labelled corpus for triage: files at the pin, the same files at HEAD, and facts read
at the pin, each labelled by a person with the outcome it should get.

Labels say what a careful reader of the diff would decide: ``touches`` when the
edit changes something the fact states (a value, a name, a behaviour),
``elsewhere`` when the fact is still true after the edit, ``moved`` when the file
was renamed/moved, ``deleted`` when it is gone.
"""

from __future__ import annotations

from dataclasses import dataclass

PIN_FILES: dict[str, str] = {
    "auth.py": '''\
import hashlib
import logging

log = logging.getLogger("auth")

SESSION_TTL = 30 * 60  # seconds
TOKEN_PREFIX = "Bearer"


class SessionStore:
    """Keeps sessions in memory."""

    def __init__(self):
        self.sessions = {}

    def expire(self, now):
        """Drop every session older than SESSION_TTL."""
        for sid, started in list(self.sessions.items()):
            if now - started > SESSION_TTL:
                del self.sessions[sid]


def hash_password(password, salt):
    return hashlib.sha256(salt + password).hexdigest()


def audit(event):
    log.info("auth event: %s", event)
''',
    "config.py": '''\
PORT = 8000
HOST = "127.0.0.1"
MAX_RETRIES = 3
DB_URL = "sqlite:///app.db"
REQUEST_TIMEOUT = 10
LOG_LEVEL = "INFO"
FEATURES = ["search", "export"]
''',
    "ranking.py": '''\
def score(rrf, confidence, importance, decay):
    return rrf*confidence*importance*decay

def decay(age_days, half_life=30):
    return 0.5 ** (age_days/half_life)

def boost(importance):
    return 1 + (importance-5)*0.1
''',
    "billing.py": '''\
COST_PER_CALL = 12  # cents
TAX_RATE = 0.2
CURRENCY = "EUR"


def invoice_total(calls):
    subtotal = calls * COST_PER_CALL
    return subtotal * (1 + TAX_RATE)


def format_amount(cents):
    return f"{cents / 100:.2f} {CURRENCY}"
''',
    "store.py": '''\
import sqlite3


class FactStore:
    def __init__(self, path):
        self.conn = sqlite3.connect(path)
        self.conn.execute("PRAGMA journal_mode=WAL")

    def remember(self, fact):
        self.conn.execute("INSERT INTO facts(fact) VALUES (?)", (fact,))

    def forget(self, fact_id):
        self.conn.execute("UPDATE facts SET retracted = 1 WHERE id = ?", (fact_id,))
''',
    "cache.py": '''\
from collections import OrderedDict

CACHE_SIZE = 128


class LruCache:
    def __init__(self, size=CACHE_SIZE):
        self.size = size
        self.items = OrderedDict()

    def get(self, key):
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        return None

    def put(self, key, value):
        self.items[key] = value
        self.items.move_to_end(key)
        if len(self.items) > self.size:
            self.items.popitem(last=False)
''',
    "legacy.py": '''\
def old_export(rows):
    """CSV export, kept for the v1 API."""
    return "\\n".join(",".join(map(str, r)) for r in rows)
''',
    "api.ts": '''\
export const API_BASE = "/v1";

export async function recallQuery(q: string, limit = 20): Promise<Fact[]> {
  const res = await fetch(`${API_BASE}/recall?q=${encodeURIComponent(q)}&limit=${limit}`);
  return res.json();
}

export async function fetchUser(id: number): Promise<User> {
  const res = await fetch(`${API_BASE}/users/${id}`);
  return res.json();
}

export function isAdmin(user: User): boolean {
  return user.roles.includes("admin");
}
''',
    "server.py": '''\
import asyncio

WORKERS = 4


def health():
    return {"status": "ok"}


async def serve(app, port):
    server = await asyncio.start_server(app, port=port)
    async with server:
        await server.serve_forever()


def shutdown(server):
    server.close()
''',
    "scheduler.go": '''\
package scheduler

import "time"

const pollInterval = 5 * time.Second
const maxBatch = 500

func (s *Scheduler) Run() {
\tticker := time.NewTicker(pollInterval)
\tfor range ticker.C {
\t\ts.drain(maxBatch)
\t}
}

func (s *Scheduler) drain(n int) {
\ts.queue.Pop(n)
}
''',
    "docs/recall.md": '''\
# Recall

Recall ranks facts by RRF times confidence times importance times decay.
The half-life of decay is 30 days.
Recall returns at most 20 facts by default.
Facts retracted by the user never appear.
''',
    "limits.py": '''\
RATE_LIMIT = 100  # requests per minute
BURST = 20


def allow(bucket, now):
    bucket.refill(now, RATE_LIMIT / 60)
    return bucket.take(1)
''',
    "parser.py": '''\
import re

TOKEN_RE = re.compile(r"[A-Za-z_]+")


def tokenize(text):
    return TOKEN_RE.findall(text.lower())


def parse_query(text):
    words = tokenize(text)
    return {"terms": words, "mode": "and"}
''',
    "login.py": '''\
MIN_PASSWORD_LENGTH = 8


def login(user, password):
    if not password:
        raise ValueError("empty password")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValueError("password too short")
    return check_credentials(user.name, password, retries=2, timeout=5)


def logout(user):
    user.session = None
''',
    "jobs.py": '''\
import heapq
import threading

MAX_QUEUE = 1000
WORKER_COUNT = 4
BACKOFF_SECONDS = [1, 2, 4, 8]


class JobQueue:
    """A priority queue of jobs; lower numbers run first."""

    def __init__(self):
        self._heap = []
        self._lock = threading.Lock()

    def push(self, job, priority=10):
        with self._lock:
            if len(self._heap) >= MAX_QUEUE:
                raise OverflowError("queue full")
            heapq.heappush(self._heap, (priority, job))

    def pop(self):
        with self._lock:
            return heapq.heappop(self._heap)[1]


def retry_delay(attempt):
    return BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS) - 1)]
''',
}

HEAD_FILES: dict[str, str | None] = {
    # the TTL halves; the audit log message changes
    "auth.py": PIN_FILES["auth.py"]
    .replace("SESSION_TTL = 30 * 60", "SESSION_TTL = 15 * 60")
    .replace('log.info("auth event: %s", event)', 'log.warning("auth: %s", event)'),
    # port changes, MAX_RETRIES renamed, timeout only re-spaced, a feature added to the list
    "config.py": '''\
PORT = 8080
HOST = "127.0.0.1"
MAX_ATTEMPTS = 3
DB_URL = "sqlite:///app.db"
REQUEST_TIMEOUT  =  10
LOG_LEVEL = "INFO"
FEATURES = ["search", "export", "share"]
''',
    # black-style reformatting only
    "ranking.py": '''\
def score(rrf, confidence, importance, decay):
    return rrf * confidence * importance * decay


def decay(age_days, half_life=30):
    return 0.5 ** (age_days / half_life)


def boost(importance):
    return 1 + (importance - 5) * 0.1
''',
    # tax rate changes; a new function is appended
    "billing.py": PIN_FILES["billing.py"].replace("TAX_RATE = 0.2", "TAX_RATE = 0.25")
    + '''

def refund(amount_cents):
    return -amount_cents
''',
    # moved unchanged
    "store.py": None,
    "storage/store.py": PIN_FILES["store.py"],
    # moved with an edit: the cache doubles
    "cache.py": None,
    "util/cache.py": PIN_FILES["cache.py"].replace("CACHE_SIZE = 128", "CACHE_SIZE = 256"),
    # deleted
    "legacy.py": None,
    # recallQuery renamed, API base bumped, fetchUser untouched
    "api.ts": PIN_FILES["api.ts"]
    .replace('API_BASE = "/v1"', 'API_BASE = "/v2"')
    .replace("recallQuery(q: string, limit = 20)", "recallFacts(q: string, limit = 20)"),
    # functions reordered (shutdown moved above serve), WORKERS unchanged
    "server.py": '''\
import asyncio

WORKERS = 4


def health():
    return {"status": "ok"}


def shutdown(server):
    server.close()


async def serve(app, port):
    server = await asyncio.start_server(app, port=port)
    async with server:
        await server.serve_forever()
''',
    # poll interval changes; batch size stays
    "scheduler.go": PIN_FILES["scheduler.go"].replace(
        "pollInterval = 5 * time.Second", "pollInterval = 2 * time.Second"
    ),
    # the default limit changes; a line about retraction is reworded only in case
    "docs/recall.md": PIN_FILES["docs/recall.md"].replace(
        "at most 20 facts", "at most 50 facts"
    ),
    # the comment is corrected; the value stays
    "limits.py": PIN_FILES["limits.py"].replace(
        "RATE_LIMIT = 100  # requests per minute",
        "RATE_LIMIT = 100  # requests per minute, per client",
    ),
    # the regex now also accepts digits; parse_query unchanged
    "parser.py": PIN_FILES["parser.py"].replace('r"[A-Za-z_]+"', 'r"[A-Za-z0-9_]+"'),
    # the length rule goes up (written as words in one fact), a lockout check is inserted,
    # and the long call is only re-wrapped over several lines
    "login.py": '''\
MIN_PASSWORD_LENGTH = 12


def login(user, password):
    if not password:
        raise ValueError("empty password")
    if user.locked:
        raise PermissionError("account locked")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValueError("password too short")
    return check_credentials(
        user.name,
        password,
        retries=2,
        timeout=5,
    )


def logout(user):
    user.session = None
''',
    # second blind batch: limits raised, a default lowered, a list extended, an exception
    # and a lock type swapped, a docstring inserted
    "jobs.py": PIN_FILES["jobs.py"]
    .replace("MAX_QUEUE = 1000", "MAX_QUEUE = 5000")
    .replace("priority=10", "priority=5")
    .replace("[1, 2, 4, 8]", "[1, 2, 4, 8, 16]")
    .replace('raise OverflowError("queue full")', 'raise QueueFull("queue full")')
    .replace("threading.Lock()", "threading.RLock()")
    .replace("    def pop(self):\n", '    def pop(self):\n        """Remove and return the next job."""\n'),
}


@dataclass(frozen=True)
class Case:
    path: str
    fact: str
    expected: str  # touches / elsewhere / moved / deleted
    touched: bool | None = None  # moved only: do the move's edits hit the fact?


T, E, M, D = "touches", "elsewhere", "moved", "deleted"

CASES: tuple[Case, ...] = (
    # auth.py: TTL 30 → 15 minutes, audit message changed
    Case("auth.py", "sessions expire after 30 minutes", T),
    Case("auth.py", "SESSION_TTL is 1800 seconds", T),
    Case("auth.py", "`session_ttl` is thirty minutes", T),
    Case("auth.py", "SessionStore.expire drops sessions older than SESSION_TTL", E),
    Case("auth.py", "the auth header prefix is \"Bearer\"", E),
    Case("auth.py", "passwords are hashed with sha256 and a salt", E),
    Case("auth.py", "hash_password returns a hex digest", E),
    Case("auth.py", "SessionStore keeps sessions in an in-memory dict", E),
    Case("auth.py", "audit() logs auth events at INFO level", T),
    Case("auth.py", "the audit log message is 'auth event: %s'", T),
    # config.py
    Case("config.py", "the server listens on port 8000", T),
    Case("config.py", "requests are retried 3 times (MAX_RETRIES)", T),
    Case("config.py", "the database is sqlite at app.db (DB_URL)", E),
    Case("config.py", "REQUEST_TIMEOUT is 10 seconds", E),
    Case("config.py", "LOG_LEVEL defaults to INFO", E),
    Case("config.py", "the server binds to host 127.0.0.1", E),
    Case("config.py", "FEATURES lists search and export", T),
    # ranking.py: reformatting only
    Case("ranking.py", "score multiplies rrf × confidence × importance × decay", E),
    Case("ranking.py", "decay has a half_life of 30 days", E),
    Case("ranking.py", "boost adds 0.1 per importance point above 5", E),
    Case("ranking.py", "decay halves every half_life days", E),
    # billing.py: tax 0.2 → 0.25, refund() added
    Case("billing.py", "each call costs 12 cents (COST_PER_CALL)", E),
    Case("billing.py", "TAX_RATE is 20 percent", T),
    Case("billing.py", "invoice_total adds tax of 0.2 to the subtotal", T),
    Case("billing.py", "amounts are shown in EUR with 2 decimals", E),
    Case("billing.py", "format_amount divides cents by 100", E),
    Case("billing.py", "invoice_total multiplies calls by COST_PER_CALL", E),
    # store.py → storage/store.py, unchanged
    Case("store.py", "FactStore opens sqlite in WAL journal mode", M, False),
    Case("store.py", "forget() sets retracted = 1 instead of deleting", M, False),
    Case("store.py", "remember inserts into the facts table", M, False),
    # cache.py → util/cache.py, CACHE_SIZE 128 → 256
    Case("cache.py", "the LRU cache holds 128 items (CACHE_SIZE)", M, True),
    Case("cache.py", "LruCache.get moves a hit to the end", M, False),
    Case("cache.py", "put evicts the oldest item when over size", M, False),
    Case("cache.py", "LruCache is backed by an OrderedDict", M, False),
    # legacy.py deleted
    Case("legacy.py", "old_export writes CSV for the v1 API", D),
    Case("legacy.py", "rows are joined with commas", D),
    # api.ts
    Case("api.ts", "recallQuery returns at most 20 facts by default", T),
    Case("api.ts", "the API base path is /v1", T),
    Case("api.ts", "fetchUser loads /users/{id}", E),
    Case("api.ts", "isAdmin checks for the \"admin\" role", E),
    Case("api.ts", "recallQuery URL-encodes the query", T),
    Case("api.ts", "responses are parsed with res.json()", E),
    # server.py: functions reordered only
    Case("server.py", "the server runs 4 WORKERS", E),
    Case("server.py", "health() returns status ok", E),
    Case("server.py", "shutdown closes the server", E),
    Case("server.py", "serve uses asyncio.start_server and serves forever", E),
    # scheduler.go: poll 5s → 2s
    Case("scheduler.go", "the scheduler polls every 5 seconds", T),
    Case("scheduler.go", "pollInterval is 5 * time.Second", T),
    Case("scheduler.go", "Run drains at most 500 items per tick (maxBatch)", E),
    Case("scheduler.go", "drain pops n items from the queue", E),
    # docs/recall.md: default 20 → 50
    Case("docs/recall.md", "recall returns at most 20 facts by default", T),
    Case("docs/recall.md", "the decay half-life is 30 days", E),
    Case("docs/recall.md", "retracted facts never appear in recall", E),
    Case("docs/recall.md", "recall ranks by RRF times confidence times importance times decay", E),
    # limits.py: comment reworded only
    Case("limits.py", "RATE_LIMIT allows 100 requests per minute", T),
    Case("limits.py", "BURST is 20 requests", E),
    Case("limits.py", "allow() refills the bucket at RATE_LIMIT / 60 per second", E),
    # parser.py: regex widened to digits
    Case("parser.py", "TOKEN_RE only matches letters and underscores", T),
    Case("parser.py", "tokenize lower-cases the text", E),
    Case("parser.py", "parse_query uses mode \"and\"", E),
    Case("parser.py", "parse_query returns the terms and the mode", E),
    # login.py: written before tuning, to see what the rules miss
    Case("login.py", "passwords must be at least eight characters", T),
    Case("login.py", "minPasswordLength is 8", T),
    Case("login.py", "login only checks the password, never the account state", T),
    Case("login.py", "check_credentials is called with retries=2 and timeout=5", E),
    Case("login.py", "logout clears user.session", E),
    Case("login.py", "an empty password raises ValueError", E),
    # jobs.py: a second batch written before any further tuning
    Case("jobs.py", "the job queue holds at most 1000 jobs", T),
    Case("jobs.py", "push uses priority 10 by default", T),
    Case("jobs.py", "retries back off 1, 2, 4 then 8 seconds", T),
    Case("jobs.py", "a full queue raises OverflowError", T),
    Case("jobs.py", "JobQueue guards its heap with a threading.Lock", T),
    Case("jobs.py", "there are 4 workers (WORKER_COUNT)", E),
    Case("jobs.py", "lower priority numbers run first", E),
    Case("jobs.py", "pop returns the job with the lowest priority number", E),
    Case("jobs.py", "retry_delay caps the attempt at the last backoff step", E),
    Case("jobs.py", "the queue is a heapq-based priority queue", E),
)
