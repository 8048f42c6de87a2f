"""Every module of sathub imports on its own: nothing depends on another module having been
imported first (as the Jinja globals once did), and no import cycle breaks a cold import."""

import pkgutil
import subprocess
import sys

import sathub

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(sathub.__path__, "sathub.")
    if ".migrations" not in info.name and info.name != "sathub.__main__"
)

# Each module in a fresh interpreter state for sathub: the sathub modules imported before are
# forgotten, third-party ones are kept (they are not ours, and importing them again is slow).
PROBE = """
import importlib, sys
failures = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "sathub" or m.startswith("sathub.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failures.append(f"{name}: {type(exc).__name__}: {exc}")
print("\\n".join(failures))
"""


def test_the_module_list_covers_both_interfaces():
    assert {"sathub.status.api.v1", "sathub.status.store.reports", "sathub.web", "sathub.cli"} <= set(MODULES)
    assert any(name.startswith("sathub.archive.") for name in MODULES)


def test_every_module_imports_alone():
    result = subprocess.run([sys.executable, "-c", PROBE, *MODULES], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
