# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``root`` is checked once (module_utils/_host/paths.py ``root_error``): every module refuses an
empty root and one that is not a folder with the same words, and changes nothing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import paths
from ansible_collections.pep493.https.plugins.modules import ca_trust, cert_verification, service_verification
from ansible_collections.pep493.https.plugins.modules import verification_forecast, verification_info

MODULES = [(cert_verification, dict(verify='enable')), (service_verification, dict(services=[])),
           (verification_info, dict()), (verification_forecast, dict()), (ca_trust, dict(cas=[]))]


@pytest.mark.parametrize('module, args', MODULES, ids=lambda value: getattr(value, '__name__', '').split('.')[-1])
def test_an_empty_root_is_refused_with_one_message(run_module, module, args):
    result = run_module.fail(module, dict(args, root=''))
    assert paths.EMPTY_ROOT in result['msg']
    assert 'Traceback' not in result['msg'] and 'exception' not in result


@pytest.mark.parametrize('module, args', MODULES, ids=lambda value: getattr(value, '__name__', '').split('.')[-1])
def test_a_root_that_is_not_a_folder_is_refused_with_one_message(run_module, tmp_path, module, args):
    missing = str(tmp_path / 'missing')
    result = run_module.fail(module, dict(args, root=missing))
    assert paths.root_error(missing) in result['msg']
    assert os.listdir(str(tmp_path)) == []


def test_root_error_is_none_for_the_host_and_a_folder(tmp_path):
    assert paths.root_error(None) is None
    assert paths.root_error(str(tmp_path)) is None
    assert paths.root_error('') == paths.EMPTY_ROOT
