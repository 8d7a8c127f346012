# Sourced by scripts/demo and scripts/test (run from the repo root): a project-local .venv that
# is (re)installed only when pyproject.toml changed since the last install, not on every run.
# The stamp inside .venv records the checksum of pyproject.toml and the extras installed.

_say() { printf '%s\n' "$*" >&2; }

_pyproject_sum() { cksum < pyproject.toml | cut -d' ' -f1; }

# ensure_venv [EXTRA]: make .venv if missing and install the project (with [EXTRA]) if needed.
ensure_venv() {
  local extra=${1:-} stamp=.venv/.memharness-install want have spec=.
  if [ ! -x .venv/bin/python ]; then
    _say "creating .venv…"
    python3 -m venv --clear .venv
    # The pip bundled with Python works; a newer one is quieter and faster. Offline is fine.
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  fi
  want="$(_pyproject_sum) ${extra}"
  have=$(cat "$stamp" 2>/dev/null || true)
  if [ -x .venv/bin/memharness-tui ] && { [ "$have" = "$want" ] ||
      { [ -z "$extra" ] && [ "${have%% *}" = "${want%% *}" ]; }; }; then
    return 0  # installed from this pyproject.toml (an install with extras also serves none)
  fi
  if [ -n "$extra" ]; then
    spec=".[$extra]"
    _say "installing memharness-tui with its $extra tools (first run or pyproject.toml changed, ~30 s)…"
  else
    _say "installing memharness-tui (first run or pyproject.toml changed: 20 s to a few minutes)…"
  fi
  rm -f "$stamp"
  # -qq: errors only (not the index warnings of a local pip config). The filter drops
  # setuptools' "Editable installation." notice box, nothing else.
  PYTHONWARNINGS='ignore:Editable installation' .venv/bin/python -m pip install -qq -e "$spec"
  printf '%s\n' "$want" > "$stamp"
}
