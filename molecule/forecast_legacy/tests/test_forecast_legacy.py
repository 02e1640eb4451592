"""forecast_legacy: verification_forecast run by ansible-core 2.16 under Python 2.7 gives the
verdicts of the forecast scenario."""

import os
import sys

import pep493_testlib as lib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "forecast", "tests"))

from test_forecast import PREDICTED, verdicts  # noqa: E402


def test_the_module_ran_under_python_2_7(host):
    assert lib.results(host)["python"]["version"]["major"] == 2


def test_same_verdicts_as_on_python_3(host):
    found = verdicts(lib.results(host)["forecast"])
    assert {u: found.get(u) for u in PREDICTED} == PREDICTED
