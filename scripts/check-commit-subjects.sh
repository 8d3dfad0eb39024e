#!/usr/bin/env bash
# Fails when a commit made after the history's last long subject has a subject over 72
# characters. Older commits are history; from BASE on, every subject is at most 72.
#   scripts/check-commit-subjects.sh            all commits after BASE up to HEAD
#   scripts/check-commit-subjects.sh FILE       one commit message (the commit-msg hook)
set -euo pipefail
MAX=72
# The last commit whose subject was allowed to be longer; every later one is checked.
BASE=b653e750204d58b3dd4f2bd8bea8849d56cc404f
if [ $# -eq 1 ]; then
  subject=$(grep -v '^#' "$1" | head -n 1)
  if [ "${#subject}" -gt "$MAX" ]; then
    echo "commit subject is ${#subject} characters; at most $MAX (put the detail in the body):"
    echo "  $subject"
    exit 1
  fi
  exit 0
fi
cd "$(dirname "$0")/.."
base=$(git rev-parse -q --verify "$BASE^{commit}" 2>/dev/null || true)
range=${base:+$base..}HEAD
[ -n "$base" ] || echo "note: $BASE is not in this clone (shallow?): checking every commit it has"
bad=$(git log --format='%h %s' "$range" | awk -v max="$MAX" '{ subject = substr($0, index($0, " ") + 1); if (length(subject) > max) print length(subject) " chars: " $0 }')
checked=$(git rev-list --count "$range")
if [ -n "$bad" ]; then
  echo "commit subjects over $MAX characters (put the detail in the body):"
  echo "$bad"
  exit 1
fi
echo "$checked commit subjects checked, none over $MAX characters"
