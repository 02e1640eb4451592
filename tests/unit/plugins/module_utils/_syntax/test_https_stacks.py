# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which HTTPS stacks a service's program uses: the stack table and the standard library of each
Python, the bounded walk of a program's imports with each limit and each partial answer, and the
per-stack inputs a forecast takes from the walk and the package probe."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import sys
import time
import zipfile

import pytest

from ansible_collections.pep493.https.plugins.module_utils._syntax import https_stacks as stacks
from ansible_collections.pep493.https.tests.unit.stack_scan import RHEL_BUNDLE, found, scan
from ansible_collections.pep493.https.tests.unit.tree import read, write_tree as tree


def test_classify_names_each_stack_and_the_module_that_says_so():
    names = ['urllib2', 'httplib', 'xmlrpclib', 'urllib', 'urllib.parse', 'urllib.request', 'http.client',
             'xmlrpc.client', 'six.moves.urllib.request', 'six.moves.urllib.parse', 'six.moves.http_client',
             'requests', 'requests.adapters', 'pip._vendor.requests', 'botocore.vendored.requests',
             'requests.packages.urllib3.util', 'urllib3', 'ssl', 'pycurl', 'httplib2', 'tornado.httpclient',
             'tornado.web', 'json', 'urllib2']
    assert [(hit['module'], hit['stack'], hit['matched'], hit['governed']) for hit in stacks.classify(names)] == [
        ('urllib2', 'stdlib', 'urllib2', True), ('httplib', 'stdlib', 'httplib', True),
        ('xmlrpclib', 'stdlib', 'xmlrpclib', True), ('urllib', 'stdlib', 'urllib', True),
        ('urllib.request', 'stdlib', 'urllib.request', False), ('http.client', 'stdlib', 'http.client', False),
        ('xmlrpc.client', 'stdlib', 'xmlrpc.client', False),
        ('six.moves.urllib.request', 'stdlib', 'six.moves.urllib.request', True),
        ('six.moves.http_client', 'stdlib', 'six.moves.http_client', True),
        ('requests', 'requests', 'requests', None), ('requests.adapters', 'requests', 'requests', None),
        ('pip._vendor.requests', 'requests', 'pip._vendor.requests', None),
        ('botocore.vendored.requests', 'requests', 'botocore.vendored.requests', None),
        ('requests.packages.urllib3.util', 'urllib3', 'requests.packages.urllib3', None),
        ('urllib3', 'urllib3', 'urllib3', None), ('ssl', 'raw_ssl', 'ssl', None), ('pycurl', 'pycurl', 'pycurl', None),
        ('httplib2', 'httplib2', 'httplib2', None), ('tornado.httpclient', 'other', 'tornado.httpclient', None)]
    assert stacks.stack_of('urllib', ['quote', 'urlencode']) is None
    assert stacks.stack_of('urllib', ['urlopen']) == ('stdlib', 'urllib', True)


def test_standard_library_names_of_each_python():
    assert stacks.is_stdlib('urllib2', 2) and not stacks.is_stdlib('urllib2', 3)
    assert stacks.is_stdlib('http.client', 3) and not stacks.is_stdlib('http', 2)
    assert not stacks.is_stdlib('enum', 2) and stacks.is_stdlib('enum', 3)     # enum34 is a package on 2
    assert not stacks.is_stdlib('requests', 2) and not stacks.is_stdlib('six', 3)
    # every module of this interpreter's own library is known
    ours = stacks.STDLIB_27 if sys.version_info[0] == 2 else stacks.STDLIB_3
    listed = set(sys.builtin_module_names) | set(getattr(sys, 'stdlib_module_names', ()))
    library = os.path.dirname(os.__file__)
    for folder in (library, os.path.join(library, 'lib-dynload')):
        for entry in os.listdir(folder):
            name = entry.split('.')[0]
            if entry.endswith(('.py', '.so')) or os.path.isfile(os.path.join(folder, entry, '__init__.py')):
                listed.add(name)
    listed -= set(('site-packages', 'dist-packages', 'config-3'))
    assert sorted(name for name in listed if name not in ours and not name.startswith('_sysconfigdata')) == []


# --- scan_program -----------------------------------------------------------------------------
def test_a_local_helper_that_imports_requests_is_followed(tmp_path):
    root = tree(tmp_path, {'srv/app/service.py': b'#!/usr/bin/python\nimport helper\nprint "started"\n',
                           'srv/app/helper.py': b'import json\nfrom requests import Session\n',
                           'site/requests/__init__.py': b'import httplib\nimport urllib3\n'})
    result = scan(root + '/srv/app/service.py', [root + '/site'])
    assert result['complete'] and result['cut_short'] is None and result['partial'] == []
    # requests is named, not walked: its own httplib and urllib3 are its business
    assert result['files_read'] == [root + '/srv/app/service.py', root + '/srv/app/helper.py']
    assert found(result, 'requests') == [('requests', 'helper.py', 2)]
    assert sorted(result['stacks']) == ['requests']
    assert stacks.knobs_reach(stacks.stack_verdict_inputs(result)) is False


def test_a_package_init_runs_before_its_module(tmp_path):
    root = tree(tmp_path, {'app/run.py': b'from tools.net import fetch\n',
                           'site/tools/__init__.py': b'import urllib2\n',
                           'site/tools/net.py': b'import ssl\nssl.wrap_socket(sock)\n'})
    result = scan(root + '/app/run.py', [root + '/site'])
    assert [os.path.relpath(path, root) for path in result['files_read']] == [
        'app/run.py', 'site/tools/__init__.py', 'site/tools/net.py']
    assert found(result, 'stdlib') == [('urllib2', '__init__.py', 1)]
    assert result['stacks']['stdlib'][0]['governed'] is True
    inputs = stacks.stack_verdict_inputs(result)
    assert stacks.knobs_reach(inputs) is True
    assert inputs['raw_ssl']['used'] is True and inputs['raw_ssl']['verifies_today_without_knobs'] is False


def test_python_m_runs_a_package_with_relative_imports(tmp_path):
    root = tree(tmp_path, {'work/svc/__init__.py': b'',
                           'work/svc/__main__.py': b'from . import client\nfrom .util import helpers\n',
                           'work/svc/client.py': b'from six.moves.urllib.request import urlopen\n',
                           'work/svc/util/__init__.py': b'',
                           'work/svc/util/helpers.py': b'from .. import client\nimport pycurl\n'})
    result = scan('svc', [root + '/work', root + '/site'], as_module=True)
    assert [os.path.relpath(path, root + '/work/svc') for path in result['files_read']] == [
        '__init__.py', '__main__.py', 'client.py', 'util/__init__.py', 'util/helpers.py']
    assert found(result, 'stdlib') == [('six.moves.urllib.request', 'client.py', 1)]
    assert found(result, 'pycurl') == [('pycurl', 'helpers.py', 2)] and result['complete']
    single = scan('svc.client', [root + '/work'], as_module=True)
    assert names(single) == ['__init__.py', 'client.py']
    missing = scan('nosuch.mod', [root + '/work'], as_module=True)
    assert missing['files_read'] == [] and missing['not_found'] == [dict(module='nosuch.mod', file=None, line=None)]


def test_python2_imports_a_sibling_first_unless_absolute_import(tmp_path):
    root = tree(tmp_path, {'app/main.py': b'import pkg.a\nimport pkg.b\n', 'site/pkg/__init__.py': b'',
                           'site/pkg/a.py': b'import tools\n', 'site/pkg/tools.py': b'import urllib2\n',
                           'site/pkg/b.py': b'from __future__ import absolute_import\nimport tools\n',
                           'site/tools.py': b'import requests\n'})
    python2 = scan(root + '/app/main.py', [root + '/site'])
    assert found(python2, 'stdlib') == [('urllib2', 'tools.py', 1)]
    assert found(python2, 'requests') == [('requests', 'tools.py', 1)]
    assert root + '/site/pkg/tools.py' in python2['files_read'] and root + '/site/tools.py' in python2['files_read']
    python3 = scan(root + '/app/main.py', [root + '/site'], python_major=3)
    assert 'stdlib' not in python3['stacks'] and root + '/site/pkg/tools.py' not in python3['files_read']


def names(result):
    return [os.path.basename(path) for path in result['files_read']]


CHAIN = {'app/main.py': b'import one\n', 'app/one.py': b'import two\n', 'app/two.py': b'import three\n',
         'app/three.py': b'import requests\n'}


def test_each_limit_cuts_the_walk_short_and_says_which(tmp_path):
    root = tree(tmp_path, CHAIN)
    program = root + '/app/main.py'
    whole = scan(program, [])
    assert whole['complete'] and names(whole) == ['main.py', 'one.py', 'two.py', 'three.py']
    size = len(CHAIN['app/main.py']) + len(CHAIN['app/one.py'])
    clock = [0.0]

    def slow_read(path):
        clock[0] += 1.0
        return read(path)
    for limits, cut, read_names, unread in (
            (dict(max_files=2), 'max_files', ['main.py', 'one.py'], ['two']),
            (dict(max_depth=1), 'max_depth', ['main.py', 'one.py'], ['two']),
            (dict(max_depth=0), 'max_depth', ['main.py'], ['one']),
            (dict(max_bytes=size), 'max_bytes', ['main.py', 'one.py'], ['two']),
            (dict(max_bytes=size + 1), 'max_bytes', ['main.py', 'one.py'], ['two']),
            (dict(deadline=1.5, read_file=slow_read, clock=lambda: clock[0]), 'deadline', ['main.py', 'one.py'],
             ['two']),
            (dict(deadline=time.time() - 1), 'deadline', [], ['__main__'])):
        clock[0] = 0.0
        result = scan(program, [], **limits)
        assert (result['cut_short'], result['limits_hit'], names(result), result['unread']) == (
            cut, [cut], read_names, unread), limits
        assert not result['complete'] and 'requests' not in result['stacks']
        inputs = stacks.stack_verdict_inputs(result)
        assert inputs['requests']['used'] is None and stacks.knobs_reach(inputs) is None


@pytest.mark.parametrize('bad', [float('inf'), float('-inf'), float('nan'), -1, None, 'ten', True])
def test_limits_must_be_finite_numbers(tmp_path, bad):
    root = tree(tmp_path, CHAIN)
    for name in ('max_files', 'max_bytes', 'max_depth', 'deadline'):
        with pytest.raises(ValueError):
            scan(root + '/app/main.py', [], **{name: bad})
    with pytest.raises(ValueError):
        stacks.scan_program(root + '/app/main.py', read, [], dict(max_files=1, max_bytes=1, max_depth=1))


def test_unreadable_files_make_the_answer_partial(tmp_path):
    root = tree(tmp_path, {'app/main.py': b'import helper\nimport urllib2\n', 'app/helper.py': b'import requests\n'})

    def refuse(path):
        if path.endswith('helper.py'):
            raise IOError(errno.EACCES, 'Permission denied')
        return read(path)
    result = scan(root + '/app/main.py', [], read_file=refuse)
    assert result['partial'] == [dict(reason='unreadable', path=root + '/app/helper.py', detail='Permission denied')]
    assert not result['complete'] and found(result, 'stdlib') == [('urllib2', 'main.py', 2)]
    inputs = stacks.stack_verdict_inputs(result)
    assert stacks.knobs_reach(inputs) is True and inputs['requests']['used'] is None
    gone = scan(root + '/app/nothere.py', [], read_file=lambda path: None)
    assert gone['files_read'] == [] and gone['partial'][0]['detail'] == 'no such file'

    def failing(path):
        raise OSError(errno.EIO, 'Input/output error')
    oserror = scan(root + '/app/main.py', [], read_file=failing)
    assert [entry['reason'] for entry in oserror['partial']] == ['unreadable'] and not oserror['complete']


def test_a_zip_on_the_path_before_a_module_makes_it_partial(tmp_path):
    root = tree(tmp_path, {'app/main.py': b'import helper\nimport gone\n', 'site/helper.py': b'import urllib2\n'})
    os.makedirs(root + '/eggs')
    archive = zipfile.ZipFile(root + '/eggs/lib.egg', 'w')
    archive.writestr('gone.py', b'import requests\n')
    archive.close()
    search = [root + '/usr/lib/python36.zip', root + '/eggs/lib.egg', root + '/site']
    result = scan(root + '/app/main.py', search)
    assert [(entry['reason'], entry['module'], entry['path']) for entry in result['partial']] == [
        ('zip', 'helper', root + '/eggs/lib.egg'), ('zip', 'gone', root + '/eggs/lib.egg')]
    assert found(result, 'stdlib') == [('urllib2', 'helper.py', 1)] and not result['complete']
    assert [entry['module'] for entry in result['not_found']] == ['gone']
    assert scan(root + '/app/main.py', [search[0], search[2]])['partial'] == []     # a missing zip is no entry


def test_compiled_only_modules_make_it_partial(tmp_path):
    root = tree(tmp_path, {'app/main.py': b'import fast\nimport old\nimport cpkg\nimport both\nimport plain\n',
                           'site/fast.so': b'\x7fELF', 'site/old.pyc': b'\x03\xf3\r\n', 'site/cpkg/__init__.pyc': b'',
                           'site/both.py': b'import requests\n', 'site/both.cpython-36m-x86_64-linux-gnu.so': b'',
                           'site/plain.py': b'import pycurl\n', 'site/plain.pyc': b''})
    result = scan(root + '/app/main.py', [root + '/site'])
    assert [(entry['reason'], entry['module'], os.path.basename(entry['path'])) for entry in result['partial']] == [
        ('compiled', 'fast', 'fast.so'), ('compiled', 'old', 'old.pyc'), ('compiled', 'cpkg', '__init__.pyc'),
        ('compiled', 'both', 'both.cpython-36m-x86_64-linux-gnu.so')]
    assert found(result, 'pycurl') == [('pycurl', 'plain.py', 1)] and 'requests' not in result['stacks']


def test_modules_not_found_are_listed_and_without_listings_make_it_partial(tmp_path):
    root = tree(tmp_path, {'app/main.py': b'import nowhere\nimport helper\n', 'app/helper.py': b'import requests\n'})
    listed = scan(root + '/app/main.py', [])
    assert listed['complete'] and listed['not_found'] == [dict(module='nowhere', file=root + '/app/main.py', line=1)]
    tree(root, {'app/other.py': b'import helper.sub\n'})        # helper is a module: it runs, then .sub fails
    chained = scan(root + '/app/other.py', [])
    assert names(chained) == ['other.py', 'helper.py'] and chained['not_found'][0]['module'] == 'helper.sub'
    blind = scan(root + '/app/main.py', [], list_dir=None)
    assert found(blind, 'requests') == [('requests', 'helper.py', 1)]
    assert [(entry['reason'], entry['module']) for entry in blind['partial']] == [('no-listing', 'nowhere')]


def test_dynamic_imports_are_followed_when_literal_and_partial_otherwise(tmp_path):
    main = b"import importlib\nm = importlib.import_module('plugin')\np = __import__(n)\n"
    root = tree(tmp_path, {'app/plugin.py': b'import pycurl\n', 'app/main.py': main})
    result = scan(root + '/app/main.py', [])
    assert found(result, 'pycurl') == [('pycurl', 'plugin.py', 1)]
    assert [(entry['reason'], entry['line']) for entry in result['partial']] == [('dynamic-import', 3)]


def test_namespace_packages_span_their_folders(tmp_path):
    extend = b"__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n"
    root = tree(tmp_path, {'app/main.py': b'from corp import net\nimport ns.mod\n', 'lib/corp/__init__.py': extend,
                           'lib64/corp/__init__.py': extend, 'lib64/corp/net.py': b'import urllib2\n',
                           'lib/ns/mod.py': b'import requests\n'})
    result = scan(root + '/app/main.py', [root + '/lib', root + '/lib64'])
    assert found(result, 'stdlib') == [('urllib2', 'net.py', 1)] and found(result, 'requests') == [
        ('requests', 'mod.py', 1)]
    assert result['complete']


def test_path_entries_that_are_relative_and_path_changes_are_reported(tmp_path):
    root = tree(tmp_path, {'app/main.py': b"import sys\nsys.path.insert(0, '/opt/lib')\nimport extra\n"})
    result = scan(root + '/app/main.py', ['', 'lib'])
    assert [(entry['reason'], entry.get('path'), entry.get('line')) for entry in result['partial']] == [
        ('relative-path-entry', '', None), ('relative-path-entry', 'lib', None), ('sys-path-changed', None, 2)]


def test_urllib_counts_only_for_its_http_names(tmp_path):
    for source, used in ((b'import urllib\nurllib.quote(x)\n', False), (b'import urllib\nurllib.urlopen(u)\n', True),
                         (b'from urllib import urlencode, quote\n', False), (b'from urllib import urlopen\n', True),
                         (b'import urllib as u\n', True)):
        root = tree(tmp_path, {'main.py': source})
        assert ('stdlib' in scan(root + '/main.py', [])['stacks']) is used, source


def test_a_python3_service_is_never_governed(tmp_path):
    root = tree(tmp_path, {'app/main.py': b'import urllib2\nimport http.client\n'})
    result = scan(root + '/app/main.py', [], python_major=3)
    assert [(entry['module'], entry['governed']) for entry in result['stacks']['stdlib']] == [
        ('urllib2', False), ('http.client', False)]
    inputs = stacks.stack_verdict_inputs(result)
    assert inputs['stdlib']['used'] is False and not inputs['stdlib']['governed_by_knobs']
    assert stacks.knobs_reach(inputs) is False


# --- PACKAGE_SCRIPT, run for real -------------------------------------------------------------


def scanned(stack_entries=None, hints=(), complete=True, python_major=2):
    return dict(stacks=stack_entries or {}, hints=list(hints), complete=complete, python_major=python_major)


def entry(module, governed=None, line=1):
    return dict(module=module, imported=module, file='/srv/app.py', line=line, governed=governed)


def hint(kind, **extra):
    return dict(extra, hint=kind, file='/srv/app.py', line=extra.pop('line', 9))


def test_verdict_inputs_per_stack():
    facts = dict(packages={'requests': dict(importable=True, ca_bundle=RHEL_BUNDLE),
                           'urllib3': dict(importable=True, verifies_by_default=False),
                           'requests.packages.urllib3': dict(importable=False, alias_of='urllib3'),
                           'pycurl': dict(importable=False)})
    inputs = stacks.stack_verdict_inputs(scanned({'requests': [entry('requests')],
                                                  'urllib3': [entry('requests.packages.urllib3')],
                                                  'pycurl': [entry('pycurl')]}), facts)
    assert sorted(inputs) == sorted(stacks.STACKS)
    requests = inputs['requests']
    assert (requests['used'], requests['governed_by_knobs'], requests['verifies_today_without_knobs'],
            requests['trust']) == (True, False, True, 'bundle:' + RHEL_BUNDLE)
    urllib3 = inputs['urllib3']
    assert (urllib3['used'], urllib3['verifies_today_without_knobs'], urllib3['trust']) == (True, False, None)
    assert inputs['pycurl']['used'] is False and 'not importable' in inputs['pycurl']['notes'][0]
    assert inputs['stdlib']['used'] is False and stacks.knobs_reach(inputs) is False
    assert stacks.stack_verdict_inputs(scanned({'pycurl': [entry('pycurl')]}, complete=False), facts)[
        'pycurl']['used'] is None


def test_verdict_inputs_from_hints():
    stdlib = {'stdlib': [entry('urllib2', True)]}
    assert stacks.knobs_reach(stacks.stack_verdict_inputs(scanned(stdlib))) is True
    assert stacks.knobs_reach(stacks.stack_verdict_inputs(scanned({}, complete=False))) is None
    replaced = stacks.stack_verdict_inputs(scanned(stdlib, [hint('default_context_replaced', value='x')]))
    assert replaced['stdlib']['governed_by_knobs'] is None and stacks.knobs_reach(replaced) is None
    explicit = stacks.stack_verdict_inputs(scanned(stdlib, [hint('stdlib_https_call', call='urlopen',
                                                                 explicit=['context'])]))
    assert explicit['stdlib']['governed_by_knobs'] is True and 'own context' in explicit['stdlib']['notes'][0]
    knob = stacks.stack_verdict_inputs(scanned(stdlib, [hint('knob_in_code')]))['stdlib']
    assert knob['governed_by_knobs'] is True and 'PYTHONHTTPSVERIFY' in knob['notes'][0]
    python3_names = stacks.stack_verdict_inputs(scanned({'stdlib': [entry('http.client', False)]}))
    assert python3_names['stdlib']['used'] is False and stacks.knobs_reach(python3_names) is False
    loose = stacks.stack_verdict_inputs(scanned({'requests': [entry('requests')]}, [hint('verify_false')]))
    assert loose['requests']['verifies_today_without_knobs'] is None
    wraps = [hint('ssl_wrap_socket', cert_reqs=False, value=None),
             hint('ssl_wrap_socket', cert_reqs=True, value='ssl.CERT_NONE')]
    raw = stacks.stack_verdict_inputs(scanned({'raw_ssl': [entry('ssl')]}, wraps))['raw_ssl']
    assert (raw['used'], raw['verifies_today_without_knobs']) == (True, False)
    default = stacks.stack_verdict_inputs(scanned({}, [hint('create_default_context', explicit=[])]))['raw_ssl']
    assert (default['used'], default['verifies_today_without_knobs'], default['trust']) == (True, True, 'system')
    imported_only = stacks.stack_verdict_inputs(scanned({'raw_ssl': [entry('ssl')]}))['raw_ssl']
    assert imported_only['used'] is None
    curl = stacks.stack_verdict_inputs(scanned({'pycurl': [entry('pycurl')]}, [hint('curl_verify_option')]))
    assert curl['pycurl']['verifies_today_without_knobs'] is None
