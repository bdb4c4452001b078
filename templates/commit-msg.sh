#!/bin/sh
# Installed by mneme (`mneme init`, `mneme hooks install`): refuses a commit that changes facts in
# .ledger/facts/ unless it is a mneme review decision. Skip once with `git commit --no-verify`.
# A commit-msg hook that was here before mneme runs first, from commit-msg.pre-mneme.
chained="$(dirname "$0")/commit-msg.pre-mneme"
if [ -x "$chained" ]; then
  "$chained" "$@" || exit $?
fi
# mneme as the agents' hooks find it: on the PATH, else in the project's node_modules/.bin.
m=$(command -v mneme) || m="$(git rev-parse --show-toplevel 2>/dev/null)/node_modules/.bin/mneme"
if [ ! -x "$m" ]; then
  echo "mneme's commit-msg hook: \`mneme\` is not on the PATH git gives this hook, nor in node_modules/.bin, so this commit cannot be checked for direct fact edits. Install mneme (docs/install.md), or commit with --no-verify." >&2
  exit 1
fi
exec "$m" hooks commit-msg "$1"
