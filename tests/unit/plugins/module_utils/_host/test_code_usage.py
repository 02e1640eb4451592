# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a service's Python 2 code reaches the standard library's HTTPS (module_utils/_forecast/
usage.py), walked in a throw-away root as a service's interpreter would find its modules."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.pep493.https.plugins.module_utils._host import code_usage as usage
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.tests.unit.tree import write

SITE = '/usr/lib/python2.7/dist-packages'


def tree(tmp_path, programs):
    write(tmp_path, '/usr/lib/python2.7/os.py', b'# the standard library is not walked\n')
    write(tmp_path, SITE + '/requests/__init__.py', b'import urllib3\nfrom .compat import urllib2\n')
    write(tmp_path, SITE + '/urllib3/__init__.py', b'import ssl\n')
    write(tmp_path, '/usr/bin/python2.7', b'')
    for path, source in programs.items():
        write(tmp_path, path, source)
    return hostfiles.HostFiles(str(tmp_path))


def usage_of(files, scripts):
    path = usage.default_search_path('/usr/bin/python2.7', files)
    return usage.service_usage(scripts, files, path, deadline=time.time() + 10)


def test_a_program_on_urllib2_is_governed_and_says_where(tmp_path):
    files = tree(tmp_path, {'/opt/agent/agent.py': b'import helper\nhelper.fetch()\n',
                            '/opt/agent/helper.py': b'import json\nimport urllib2\n'})
    found = usage_of(files, [('file', '/opt/agent/agent.py')])
    assert found['governed'] is True and 'urllib2' in found['why'] and 'helper.py' in found['why']


def test_a_program_on_requests_alone_is_not_governed(tmp_path):
    """requests' own use of the standard library is requests' business: it is not walked."""
    files = tree(tmp_path, {'/opt/agent/agent.py': b'import requests\nprint requests.get("https://x")\n'})
    found = usage_of(files, [('file', '/opt/agent/agent.py')])
    assert found['governed'] is False and 'requests' in found['why'], found
    assert found['stacks']['requests']['used'] is True


def test_a_program_with_no_https_at_all_is_not_governed(tmp_path):
    files = tree(tmp_path, {'/opt/agent/agent.py': b'import os, json\n'})
    found = usage_of(files, [('file', '/opt/agent/agent.py')])
    assert found['governed'] is False and found['why'] == 'its code uses no HTTPS client'


def test_what_cannot_be_read_makes_it_unknown_with_the_reason(tmp_path):
    files = tree(tmp_path, {'/opt/agent/agent.py': b'import vendored\n'})
    found = usage_of(files, [('file', '/opt/agent/agent.py')])
    assert found['governed'] is None and 'vendored' in found['why'], found
    gone = usage_of(files, [('file', '/opt/agent/missing.py')])
    assert gone['governed'] is None
    stdin = usage_of(files, [None])
    assert stdin['governed'] is None and 'standard input' in stdin['why']


def test_every_python2_command_counts(tmp_path):
    """An ExecStartPre= on urllib2 makes the service governed, whatever ExecStart= uses."""
    files = tree(tmp_path, {'/opt/agent/pre.py': b'import urllib2\n', '/opt/agent/agent.py': b'import requests\n'})
    found = usage_of(files, [('file', '/opt/agent/pre.py'), ('file', '/opt/agent/agent.py')])
    assert found['governed'] is True


def test_python_m_and_python_c(tmp_path):
    files = tree(tmp_path, {SITE + '/agentpkg/__init__.py': b'', SITE + '/agentpkg/__main__.py': b'import httplib\n'})
    assert usage_of(files, [('module', 'agentpkg')])['governed'] is True
    assert usage_of(files, [('code', 'import xmlrpclib')])['governed'] is True
    assert usage_of(files, [('code', 'import requests')])['governed'] is False


def test_a_compiled_extension_module_does_not_make_it_unknown(tmp_path):
    files = tree(tmp_path, {'/opt/agent/agent.py': b'import _speedups\nimport requests\n',
                            SITE + '/_speedups.so': b'\x7fELF'})
    assert usage_of(files, [('file', '/opt/agent/agent.py')])['governed'] is False


def test_default_search_path_finds_the_usual_folders_of_a_source_build(tmp_path):
    write(tmp_path, '/opt/py27/bin/python2.7', b'')
    write(tmp_path, '/opt/py27/lib/python2.7/site-packages/x.py', b'')
    write(tmp_path, SITE + '/y.py', b'')
    files = hostfiles.HostFiles(str(tmp_path))
    assert usage.default_search_path('/opt/py27/bin/python2.7', files) == [
        '/opt/py27/lib/python2.7', '/opt/py27/lib/python2.7/site-packages', '/usr/lib/python2.7',
        '/usr/lib/python2.7/dist-packages']
