# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if 'PEP493_FAULTS_PYTHON' not in os.environ:
    raise pytest.UsageError('run the fault tests through tests/faults/run')


@pytest.fixture
def root(tmp_path):
    """A throw-away root, readable by every user (some cases drop privileges)."""
    os.chmod(str(tmp_path), 0o755)
    path = tmp_path / 'root'
    path.mkdir(mode=0o755)
    return str(path)
