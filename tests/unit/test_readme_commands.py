"""README's two commands: ./start.sh sets up and starts the app, ./test.sh sets up and runs the
tests, and CI (.ci/run) runs exactly the second."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^## {title}\n(.*?)^## ", text, re.S | re.M)
    assert match, f"README has no '## {title}' section"
    return match.group(1)


def test_readme_names_one_command_to_start_and_one_to_test():
    assert "```bash\n./start.sh\n```" in _section("Start")
    assert "```bash\n./test.sh\n```" in _section("Test")
    assert "sqlite:///" in _section("Start")  # the SQLite URL form is shown too


def test_ci_runs_the_readme_test_command():
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines[-1] == "exec ./test.sh"


def test_the_scripts_are_executable_and_valid_bash():
    for name in ("start.sh", "test.sh", ".ci/run"):
        path = ROOT / name
        assert os.access(path, os.X_OK), f"{name} is not executable"
        subprocess.run(["bash", "-n", str(path)], check=True)
    subprocess.run(["bash", "-n", str(ROOT / "scripts" / "setup.sh")], check=True)


def test_setup_installs_only_when_pyproject_changed(tmp_path):
    """scripts/setup.sh with a stand-in python3/pip: the first run creates .venv and installs,
    the second does nothing, a changed pyproject.toml installs again."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    # python3 -m venv .venv → a .venv whose activate puts a logging pip on PATH
    (bin_dir / "python3").write_text(f"""#!/usr/bin/env bash
echo "python3 $*" >> {log}
mkdir -p .venv/bin
printf '#!/usr/bin/env bash\\n' > .venv/bin/python && chmod +x .venv/bin/python
printf 'export PATH="{bin_dir}/venv:$PATH"\\n' > .venv/bin/activate
""")
    (bin_dir / "venv").mkdir()
    (bin_dir / "venv" / "pip").write_text(f'#!/usr/bin/env bash\necho "pip $*" >> {log}\n')
    for f in (bin_dir / "python3", bin_dir / "venv" / "pip"):
        f.chmod(0o755)
    work = tmp_path / "checkout"
    (work / "scripts").mkdir(parents=True)
    (work / "scripts" / "setup.sh").write_text((ROOT / "scripts" / "setup.sh").read_text())
    (work / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def setup(kind: str) -> list[str]:
        log.write_text("")
        subprocess.run(["bash", "-c", f". scripts/setup.sh {kind}"], cwd=work, env=env, check=True,
                       capture_output=True)
        return log.read_text().splitlines()

    assert setup("test") == ["python3 -m venv .venv", "pip install -q -e .[test]"]
    assert setup("test") == []
    assert setup("app") == ["pip install -q -e ."]
    (work / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '2'\n")
    assert setup("test") == ["pip install -q -e .[test]"]
