# Sourced by ./start.sh and ./test.sh (not run on its own): makes sure ./.venv exists and holds
# this checkout's dependencies, then activates it. Usage: . scripts/setup.sh [app|test]
#
# The virtual environment is created when missing; the project is (re)installed when it never
# was, or when pyproject.toml changed since (a stamp file in .venv remembers which extras were
# installed from which pyproject.toml), so a second start costs nothing.
_chronocept_extras="${1:-app}"
if [ ! -x .venv/bin/python ]; then
  echo "chronocept: creating the virtual environment in .venv" >&2
  python3 -m venv .venv
fi
. .venv/bin/activate
_chronocept_spec="."
[ "$_chronocept_extras" = "test" ] && _chronocept_spec=".[test]"
_chronocept_stamp=".venv/.chronocept-$_chronocept_extras"
if [ ! -f "$_chronocept_stamp" ] || ! cmp -s pyproject.toml "$_chronocept_stamp"; then
  echo "chronocept: installing the project and its dependencies ($_chronocept_spec)" >&2
  pip install -q -e "$_chronocept_spec"
  cp pyproject.toml "$_chronocept_stamp"
fi
unset _chronocept_extras _chronocept_spec _chronocept_stamp
