#!/bin/sh
# Installed by `mneme hooks install`: refuses a commit that changes facts in .ledger/facts/
# unless it is a mneme review decision. Skip once with `git commit --no-verify`.
exec mneme hooks commit-msg "$1"
