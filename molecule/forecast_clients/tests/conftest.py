import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))

from pep493_testlib import pytest_configure  # noqa: E402,F401 (pytest hook: hosts from Molecule's inventory) pylint: disable=unused-import
import clients_judge as judge  # noqa: E402

# The table goes here as well as into the test output (.cache is the checkout's own, ignored by git)
OUTPUT = os.path.join(judge.SCENARIO, "..", "..", ".cache", "forecast_clients")


def pytest_terminal_summary(terminalreporter):
    """Print every leg's verdict table, and write it (with what the table was made from) under .cache/."""
    results = os.path.join(os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "/nonexistent"), "results")
    stems = sorted(glob.glob(os.path.join(results, "*.converge.000.json")))
    if not stems:
        return
    os.makedirs(OUTPUT, exist_ok=True)
    tables = ["# forecast_clients: the forecast's verdicts against the clients' real outcomes", ""]
    for path in stems:
        leg = os.path.basename(path)[:-len(".converge.000.json")]
        with open(path) as handle:
            kept = json.load(handle)
        try:
            tables.append(judge.table(leg, kept, judge.rows(kept)))
        except Exception as exc:  # the table is a report: a harness error is shown, the tests fail on their own
            tables.append("## %s\n\ncould not make the table: %r\n" % (leg, exc))
        # all of it: the forecast's raw result, the marks and the clients' logs
        with open(os.path.join(OUTPUT, leg + ".json"), "w") as handle:
            json.dump(kept, handle, indent=1, sort_keys=True)
    text = "\n".join(tables)
    with open(os.path.join(OUTPUT, "verdicts.md"), "w") as handle:
        handle.write(text)
    terminalreporter.write_sep("=", "forecast_clients verdicts (also in %s)" % os.path.normpath(os.path.join(OUTPUT, "verdicts.md")))
    terminalreporter.write_line(text)
