# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The package probe (``package_probe.PACKAGE_SCRIPT``) run for real, under Python 2.7 and this
test's interpreter: on a fake site, with the bundle requests would take, bounded and reporting
errors per package, and on real wheels; with what the stack inputs make of its answer."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys
import time
import zipfile

import pytest

from ansible_collections.pep493.https.plugins.module_utils._forecast import package_probe
from ansible_collections.pep493.https.plugins.module_utils._syntax import https_stacks as stacks
from ansible_collections.pep493.https.tests.unit.stack_scan import PYTHON27, RHEL_BUNDLE, scan
from ansible_collections.pep493.https.tests.unit.tree import write_tree as tree

COLLECTION = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
WHEELS = os.environ.get('PEP493_WHEELS', os.path.join(COLLECTION, '.cache', 'wheels'))

INTERPRETERS = [pytest.param(sys.executable, id='this-python'),
                pytest.param(PYTHON27, id='python2.7', marks=pytest.mark.skipif(
                    not os.path.exists(PYTHON27), reason='no Python 2.7 at ' + PYTHON27))]


def fake_site(root, urllib3_file='_version.py', urllib3_version='1.26.18', requests_init=b''):
    files = {'requests/__init__.py': requests_init + b'from .__version__ import __version__\nprint("hello")\n',
             'requests/__version__.py': b"__version__ = '2.6.0'\n",
             # a distribution's patch: requests' own bundle is the system one
             'requests/certs.py': b"def where():\n    return '" + RHEL_BUNDLE.encode('ascii') + b"'\n",
             'certifi/__init__.py': b"from .core import where\n__version__ = '2021.10.08'\n",
             'certifi/core.py': b"import os\n\n\ndef where():\n    return os.path.join(os.path.dirname(__file__), "
                                b"'cacert.pem')\n",
             'pycurl.so': b'\x7fELF, not really', 'pycurl-7.19.0-py2.7.egg-info': b'Name: pycurl\nVersion: 7.19.0\n',
             'httplib2/__init__.py': b'# no version here\n',
             'httplib2-0.9.2.dist-info/METADATA': b'Metadata-Version: 2.1\nName: httplib2\nVersion: 0.9.2\n'}
    version = b'__version__ = "' + urllib3_version.encode('ascii') + b'"\n'
    files['urllib3/__init__.py'] = version if urllib3_file == '__init__.py' else b'from ._version import __version__\n'
    if urllib3_file != '__init__.py':
        files['urllib3/_version.py'] = version
    return tree(os.path.join(str(root), 'site'), files)


def snapshot(root):
    return sorted((path, tuple(sorted(names))) for path, _folders, names in os.walk(str(root)))


def probe(python, site, cwd, environment=None, request=b'{}'):
    env = {'PATH': '/usr/bin:/bin', 'LC_ALL': 'C', 'PYTHONPATH': site}
    env.update(environment or {})
    process = subprocess.Popen([python, '-B', '-c', package_probe.PACKAGE_SCRIPT], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    out, err = process.communicate(request)
    assert process.returncode == 0, err
    return json.loads(out.decode('utf-8'))


@pytest.mark.parametrize('python', INTERPRETERS)
@pytest.mark.parametrize('urllib3_file, urllib3_version, verifies', [
    ('_version.py', '1.26.18', True), ('_version.py', '1.24.3', False), ('__init__.py', '1.24.3', False)])
def test_the_package_probe_on_a_fake_site(tmp_path, python, urllib3_file, urllib3_version, verifies):
    site = fake_site(tmp_path, urllib3_file, urllib3_version)
    before = snapshot(tmp_path)
    answer = probe(python, site, str(tmp_path))
    assert snapshot(tmp_path) == before          # nothing written: no bytecode, no __pycache__
    assert answer['errors'] == [] and not answer['timed_out'] and answer['dont_write_bytecode'] is True
    assert site in answer['path'] and answer['version_info'][0] in (2, 3)
    packages = answer['packages']
    requests = packages['requests']
    assert (requests['importable'], requests['version'], requests['version_from'], requests['file']) == (
        True, '2.6.0', '__version__.py', os.path.join(site, 'requests', '__init__.py'))
    assert (requests['ca_bundle'], requests['ca_bundle_from']) == (RHEL_BUNDLE, 'requests.certs.where()')
    urllib3 = packages['urllib3']
    assert (urllib3['version'], urllib3['version_from'], urllib3['verifies_by_default'], urllib3['imported']) == (
        urllib3_version, urllib3_file, verifies, False)
    assert packages['requests.packages.urllib3']['alias_of'] == 'urllib3'
    assert (packages['certifi']['version'], packages['certifi']['where']) == (
        '2021.10.08', os.path.join(site, 'certifi', 'cacert.pem'))
    assert (packages['pycurl']['importable'], packages['pycurl']['version'], packages['pycurl']['imported']) == (
        True, '7.19.0', False)
    assert (packages['httplib2']['version'], packages['httplib2']['version_from']) == (
        '0.9.2', 'httplib2-0.9.2.dist-info')
    # what a forecast takes from it, with a program that uses urllib3 directly
    program = tree(tmp_path, {'app/main.py': b'import urllib3\nhttp = urllib3.PoolManager()\n'})
    inputs = stacks.stack_verdict_inputs(scan(program + '/app/main.py', [site]), answer)
    assert inputs['urllib3']['used'] is True and inputs['urllib3']['verifies_today_without_knobs'] is verifies
    assert inputs['urllib3']['trust'] == ('system' if verifies else None)
    assert stacks.knobs_reach(inputs) is False


@pytest.mark.parametrize('python', INTERPRETERS)
def test_the_probe_takes_the_bundle_requests_would_take(tmp_path, python):
    site = fake_site(tmp_path)
    for environment, bundle, source in (
            ({}, RHEL_BUNDLE, 'requests.certs.where()'),
            ({'SSL_CERT_FILE': '/etc/ssl/other.pem'}, RHEL_BUNDLE, 'requests.certs.where()'),   # ignored by requests
            ({'CURL_CA_BUNDLE': '/srv/curl.pem'}, '/srv/curl.pem', 'CURL_CA_BUNDLE'),
            ({'CURL_CA_BUNDLE': '/srv/curl.pem', 'REQUESTS_CA_BUNDLE': '/srv/req.pem'}, '/srv/req.pem',
             'REQUESTS_CA_BUNDLE'),
            ({'CURL_CA_BUNDLE': '/srv/curl.pem', 'REQUESTS_CA_BUNDLE': ''}, '/srv/curl.pem', 'CURL_CA_BUNDLE')):
        requests = probe(python, site, str(tmp_path), environment)['packages']['requests']
        assert (requests['ca_bundle'], requests['ca_bundle_from'], requests['certs_where']) == (
            bundle, source, RHEL_BUNDLE), environment


@pytest.mark.parametrize('python', INTERPRETERS)
def test_the_probe_reports_errors_per_package_and_bounds_itself(tmp_path, python):
    broken = fake_site(tmp_path.joinpath('broken'), requests_init=b'raise ImportError("no chardet")\n')
    answer = probe(python, broken, str(tmp_path), request=b'not json')
    assert answer['errors'][0].startswith('request: ')
    requests = answer['packages']['requests']
    assert requests['importable'] is False and 'no chardet' in requests['error'] and requests['ca_bundle'] is None
    assert answer['packages']['urllib3']['version'] == '1.26.18'
    static = probe(python, broken, str(tmp_path), request=b'{"import": []}')['packages']
    assert static['requests']['importable'] is True and static['requests']['imported'] is False
    assert 'where' not in static['certifi']
    slow = fake_site(tmp_path.joinpath('slow'), requests_init=b'import time\ntime.sleep(30)\n')
    started = time.time()
    answer = probe(python, slow, str(tmp_path), request=b'{"timeout": 1}')
    assert answer['timed_out'] and time.time() - started < 20
    assert answer['packages']['requests']['error'] == 'timed out while importing'
    assert answer['packages']['urllib3']['version'] == '1.26.18'     # found before requests was imported


WHEEL_FILES = ['requests-2.27.1-py2.py3-none-any.whl', 'urllib3-1.26.18-py2.py3-none-any.whl',
               'certifi-2021.10.8-py2.py3-none-any.whl', 'idna-2.10-py2.py3-none-any.whl',
               'chardet-4.0.0-py2.py3-none-any.whl']


@pytest.mark.skipif(not all(os.path.exists(os.path.join(WHEELS, name)) for name in WHEEL_FILES),
                    reason='the wheels are not in .cache/wheels (tools/test-wheels fetches them; tools/units does)')
@pytest.mark.parametrize('python', INTERPRETERS)
def test_the_probe_on_real_wheels(tmp_path, python):
    site = os.path.join(str(tmp_path), 'site')
    for name in WHEEL_FILES:
        archive = zipfile.ZipFile(os.path.join(WHEELS, name))
        archive.extractall(site)
        archive.close()
    before = snapshot(tmp_path)
    answer = probe(python, site, str(tmp_path))
    assert snapshot(tmp_path) == before
    packages = answer['packages']
    assert (packages['requests']['version'], packages['requests']['imported']) == ('2.27.1', True)
    assert packages['requests']['ca_bundle'] == os.path.join(site, 'certifi', 'cacert.pem')
    assert (packages['urllib3']['version'], packages['urllib3']['verifies_by_default']) == ('1.26.18', True)
    assert packages['certifi']['version'] == '2021.10.08'
    program = tree(tmp_path, {'app/main.py': b'import requests\nrequests.get(URL)\n'})
    result = scan(program + '/app/main.py', [site])
    assert result['files_read'] == [program + '/app/main.py'] and sorted(result['stacks']) == ['requests']
    inputs = stacks.stack_verdict_inputs(result, answer)
    assert inputs['requests']['trust'] == 'bundle:' + os.path.join(site, 'certifi', 'cacert.pem')
    assert inputs['requests']['verifies_today_without_knobs'] is True and stacks.knobs_reach(inputs) is False
