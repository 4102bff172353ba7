#!/usr/bin/env bash
# The tree's structural rules: see check_layers.py (this name is kept for old callers).
exec python3 "$(dirname "$0")/check_layers.py" "$@"
