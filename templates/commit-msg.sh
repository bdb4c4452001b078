#!/bin/sh
# Installed by mneme (`mneme init`, `mneme hooks install`): refuses a commit that changes facts in
# .ledger/facts/ unless it is a mneme review decision. Skip once with `git commit --no-verify`.
# A commit-msg hook that was here before mneme runs first, from commit-msg.pre-mneme.
chained="$(dirname "$0")/commit-msg.pre-mneme"
if [ -x "$chained" ]; then
  "$chained" "$@" || exit $?
fi
exec mneme hooks commit-msg "$1"
