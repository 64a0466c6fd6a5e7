#!/usr/bin/env bash
# Set up (the first time) and run the whole test suite: ./test.sh [pytest options]
# Creates .venv when missing, installs the project with its test extras, installs Debian's
# Chromium for the browser tests and Node.js for the JS unit tests when they are missing and this
# user can, TypeScript (npm ci) for the JS type check, then runs pytest.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "chronocept: installing Chromium for the browser tests" >&2
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "chronocept: the browser tests need Chromium: sudo apt-get install chromium" >&2
    exit 1
  fi
fi
if ! command -v node >/dev/null 2>&1; then  # the JS unit tests (tests/js) run with node --test
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "chronocept: installing Node.js for the JS unit tests" >&2
    apt-get update -qq && apt-get install -y -qq nodejs >/dev/null
  else
    echo "chronocept: the JS unit tests need Node.js 18 or later: sudo apt-get install nodejs" >&2
    exit 1
  fi
fi
# TypeScript for the JS type check (tests/unit/test_js_types.py), pinned in package-lock.json;
# installed again only when the lock file changed (a copy in node_modules remembers it)
if [ ! -x node_modules/.bin/tsc ] || ! cmp -s package-lock.json node_modules/.chronocept-lock; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "chronocept: the JS type check needs npm (it comes with Node.js from nodejs.org; Debian: apt-get install npm)" >&2
    exit 1
  fi
  echo "chronocept: installing TypeScript for the JS type check (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json node_modules/.chronocept-lock
fi
. scripts/setup.sh test
exec python -m pytest "$@"
