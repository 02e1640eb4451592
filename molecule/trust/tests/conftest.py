import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))

from pep493_testlib import pytest_configure  # noqa: E402,F401 (pytest hook: hosts from Molecule's inventory) pylint: disable=unused-import
