# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which HTTPS stacks a service's program uses: the import scanner on Python 2 and 3 sources
(whatever runs it), the stack table, the bounded walk with each limit and each partial answer,
the package probe run for real under Python 2.7 and this test's interpreter, and the per-stack
inputs a forecast takes from both."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import json
import os
import random
import subprocess
import sys
import time
import zipfile

import pytest

from ansible_collections.pep493.https.plugins.module_utils._forecast import stacks

try:
    from hypothesis import given, settings, strategies as st
except ImportError:     # the seeded loop below still runs
    given = None

PYTHON27 = '/root/.pyenv/versions/2.7.18/bin/python'
COLLECTION = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..'))
WHEELS = os.environ.get('PEP493_WHEELS', os.path.join(COLLECTION, '.cache', 'wheels'))
LIMITS = dict(max_files=50, max_bytes=1 << 20, max_depth=10)


def tree(root, files):
    for path, data in files.items():
        full = os.path.join(str(root), path)
        if not os.path.isdir(os.path.dirname(full)):
            os.makedirs(os.path.dirname(full))
        with open(full, 'wb') as handle:
            handle.write(data)
    return str(root)


def read(path):
    with open(path, 'rb') as handle:
        return handle.read()


def scan(program, search_path, as_module=False, list_dir=os.listdir, read_file=read, python_major=2,
         clock=time.time, **limits):
    given_limits = dict(LIMITS, deadline=time.time() + 60)
    given_limits.update(limits)
    return stacks.scan_program(program, read_file, search_path, given_limits, as_module=as_module,
                               list_dir=list_dir, python_major=python_major, clock=clock)


def found(result, stack):
    entries = result['stacks'].get(stack, [])
    return [(entry['module'], os.path.basename(entry['file']), entry['line']) for entry in entries]


def kinds(data, kind):
    return [hint for hint in stacks.imports_in_source(data)['hints'] if hint['hint'] == kind]


# --- imports_in_source ------------------------------------------------------------------------

PYTHON2_PROGRAM = b'''#!/usr/bin/python
# -*- coding: latin-1 -*-
"""Caf\xe9 service. import notamodule"""
import os, sys
import urllib2 as u2, xml.dom.minidom


def main():
    try:
        import json
    except ImportError, exc:
        import simplejson as json
    print "import fake", `exc`
    print >>sys.stderr, ur"raw import notamodule"
    exec "import hidden"
    mask = 0777L
    from helper import fetch  # import commented
    return fetch

if __name__ == '__main__': main()
'''

PYTHON3_PROGRAM = b'''import asyncio
from typing import Optional


async def get(url: str) -> Optional[bytes]:
    import http.client as client
    name = f"{url!r:>{10}} import nope1 {'{'}"
    other = f"{d["key"]} import nope2 {f'{x}'}"
    multi = f"""{
        value  # import nope3
    } import nope4 {x:'>10}"""
    if (n := len(url)) > 3:
        from urllib.request import urlopen
    match n:
        case 1:
            import xmlrpc.client
    return rb"import nope5 \\\\" + b'\\x00' + t"{x} import nope6"
'''

TRICKY = b"\n".join([
    b"a = 'import s1'",
    b'b = "import s2 # not a comment"',
    b"c = '''",
    b"import s3",
    b"'''",
    b'd = """it\'s \\""" import s4 """',
    b"e = 'it\\'s import s5'",
    b"f = r'\\\\' ; import real1",
    b'g = "line \\',
    b'import s6"',
    b"# import c1",
    b"h = 1  # import c2",
    b'"""docstring',
    b'import s7"""',
    b'i = ("import s8"',
    b'     "import s9"); import real2',
    b"if i: import real3",
    b"import real4, \\",
    b"    real5",
    b"from real6 import (a,",
    b"    b as c)",
    b"x = 1; from real7 import *",
])


def test_a_python2_program_is_read_by_any_interpreter():
    result = stacks.imports_in_source(PYTHON2_PROGRAM)
    assert result['modules'] == ['helper', 'json', 'os', 'simplejson', 'sys', 'urllib2', 'xml.dom.minidom']
    assert result['clean'] and not result['absolute_import']
    lines = dict((record['module'], record['line']) for record in result['imports'])
    assert lines == {'os': 4, 'sys': 4, 'urllib2': 5, 'xml.dom.minidom': 5, 'json': 10, 'simplejson': 12,
                     'helper': 17}
    assert [record['alias'] for record in result['imports'][:3]] == [None, None, 'u2']


def test_a_python3_program_with_nested_fstrings_is_read_by_any_interpreter():
    result = stacks.imports_in_source(PYTHON3_PROGRAM)
    assert result['modules'] == ['asyncio', 'http.client', 'typing', 'urllib.request', 'xmlrpc.client']
    assert result['clean'], result['problems']
    assert [record['line'] for record in result['imports']] == [1, 2, 6, 13, 16]


def test_strings_and_comments_that_say_import_are_skipped():
    result = stacks.imports_in_source(TRICKY)
    assert result['modules'] == ['real1', 'real2', 'real3', 'real4', 'real5', 'real6', 'real7'], result['problems']
    assert result['clean']
    lines = dict((record['module'], record['line']) for record in result['imports'])
    assert lines == {'real1': 8, 'real2': 16, 'real3': 17, 'real4': 18, 'real5': 18, 'real6': 20, 'real7': 22}
    assert [record['names'] for record in result['imports'] if record['kind'] == 'from'] == [['a', 'b'], ['*']]


def test_line_ends_byte_order_mark_and_bytes_that_are_not_utf8():
    data = b'\xef\xbb\xbfimport a\r\nx = "\xff\xfe import no"\rimport b\r\n\xe9t\xe9 = 1\nimport c'
    result = stacks.imports_in_source(data)
    assert [(record['module'], record['line']) for record in result['imports']] == [('a', 1), ('b', 3), ('c', 5)]
    assert stacks.imports_in_source(data.decode('latin-1'))['modules'] == ['a', 'b', 'c']


def test_relative_imports_are_reported_as_relative():
    result = stacks.imports_in_source(b'from . import x\nfrom .. import y\nfrom .mod import z\n'
                                      b'from ...pkg.sub import (w)\nfrom __future__ import absolute_import\n')
    assert result['modules'] == ['.', '..', '...pkg.sub', '.mod', '__future__']
    assert [(record['level'], record['module'], record['names']) for record in result['imports'][:4]] == [
        (1, '', ['x']), (2, '', ['y']), (1, 'mod', ['z']), (3, 'pkg.sub', ['w'])]
    assert result['absolute_import']


def test_literal_dynamic_imports_are_imports_and_others_are_hints():
    data = (b"import importlib, runpy\nm = importlib.import_module('plugins.net')\nn = __import__('httplib')\n"
            b"o = import_module('.local', __package__)\np = __import__(name)\nrunpy.run_module('tool')\n"
            b"q = imp.load_source('x', path)\nr = pkg_resources.load_entry_point('d', 'console_scripts', 'x')\n")
    result = stacks.imports_in_source(data)
    assert [(r['kind'], r['level'], r['module'], r['line']) for r in result['imports'] if r['kind'] == 'dynamic'] == [
        ('dynamic', 0, 'plugins.net', 2), ('dynamic', 0, 'httplib', 3), ('dynamic', 1, 'local', 4),
        ('dynamic', 0, 'tool', 6)]
    assert [(h['call'], h['line']) for h in result['hints'] if h['hint'] == 'dynamic_import'] == [
        ('__import__', 5), ('load_source', 7), ('load_entry_point', 8)]


def test_each_usage_hint():
    wraps = kinds(b'import ssl\nssl.wrap_socket(s)\nssl.wrap_socket(s, cert_reqs=ssl.CERT_NONE)\n'
                  b'ssl.wrap_socket(s, None, None, False, ssl.CERT_REQUIRED)\nssl.wrap_socket(s, **kw)\n'
                  b'context.wrap_socket(s)\ndef wrap_socket(x): pass\n', 'ssl_wrap_socket')
    assert [(h['line'], h['cert_reqs'], h['value']) for h in wraps] == [
        (2, False, None), (3, True, 'ssl.CERT_NONE'), (4, True, None), (5, None, None)]
    assert [h['line'] for h in kinds(b'from ssl import wrap_socket\nwrap_socket(s)\n', 'ssl_wrap_socket')] == [2]
    assert kinds(b'wrap_socket(s)\n', 'ssl_wrap_socket') == []      # not ssl's, as far as this file tells
    assert [h['explicit'] for h in kinds(b'ssl.create_default_context(cafile=f)\n', 'create_default_context')] == [
        ['cafile']]
    assert len(kinds(b'ctx = ssl.SSLContext(ssl.PROTOCOL_TLSv1_2)\n', 'ssl_context')) == 1
    calls = kinds(b'urllib2.urlopen(u)\nurllib2.urlopen(u, context=c)\nhttplib.HTTPSConnection(h, cafile=f)\n'
                  b'urllib.request.urlopen(u, capath=p)\nxmlrpclib.ServerProxy(u, **o)\nproxy.Server(u)\n',
                  'stdlib_https_call')
    assert [(h['line'], h['call'], h['explicit']) for h in calls] == [
        (1, 'urlopen', []), (2, 'urlopen', ['context']), (3, 'HTTPSConnection', ['cafile']),
        (4, 'urlopen', ['capath']), (5, 'ServerProxy', ['**'])]
    verify = stacks.imports_in_source(b'requests.get(u, verify=False)\ns.post(u, verify="/etc/ca.pem")\n'
                                      b'session.verify = False\nverify = False\nrequests.get(u, verify=True)\n'
                                      b'if verify == False: pass\n')['hints']
    assert [(h['hint'], h['line'], h['call'], h['value']) for h in verify] == [
        ('verify_false', 1, 'get', 'False'), ('verify_argument', 2, 'post', "'/etc/ca.pem'"),
        ('verify_false', 3, 'attribute', 'False')]
    assert [h['line'] for h in kinds(b'ctx = ssl._create_unverified_context()\n', 'unverified_context')] == [1]
    replaced = kinds(b'ssl._create_default_https_context = ssl._create_unverified_context\n',
                     'default_context_replaced')
    assert [h['value'] for h in replaced] == ['ssl._create_unverified_context']
    assert [(h['call'], h['value']) for h in kinds(b"PoolManager(cert_reqs='CERT_NONE')\n", 'cert_reqs')] == [
        ('PoolManager', "'CERT_NONE'")]
    assert len(kinds(b"sys.path.insert(0, p)\nsys.path = []\nsite.addsitedir(d)\nprint(sys.path[0])\n",
                     'sys_path_change')) == 3
    assert [h['option'] for h in kinds(b'c.setopt(pycurl.SSL_VERIFYPEER, 0)\n', 'curl_verify_option')] == [
        'SSL_VERIFYPEER']
    assert len(kinds(b"os.environ['PYTHONHTTPSVERIFY'] = '0'\n", 'knob_in_code')) == 1
    assert [h['name'] for h in kinds(b'urllib.urlopen(u)\nurllib.quote(u)\n', 'urllib_http')] == ['urlopen']


def test_text_that_does_not_tokenize_is_flagged():
    assert stacks.imports_in_source(b'import a\nx = "open\nimport b\n')['problems'] == [
        'unterminated string from line 2']
    result = stacks.imports_in_source(b'import a\nx = (1,\nimport b\n')
    assert not result['clean'] and result['modules'] == ['a']


# Fragments of Python's syntax, shuffled: what trips a tokenizer (quotes, prefixes, braces, escapes).
FRAGMENTS = [b'import a', b'from . import b', b'"', b"'", b'"""', b"'''", b'f"', b"rb'", b'{', b'}', b'(', b')',
             b'\\', b'\n', b'\r', b'#', b' ', b':', b';', b'=', b'.', b'verify=False', b'ssl.wrap_socket(',
             b'__import__(', b'\xff', b'\x00', b'{x:', b'!r', b'N{', b'\\N{', b'  ', b'\t']
PATHOLOGICAL = [b'f"{' * 3000, b'(' * 50000, b'"""' * 1001, b'\\' * 10001, b"'" * 10001, b'f"{f\'{f"{' * 400,
                b'f"{x:{' * 2000, b'import ' * 5000, b'ssl.wrap_socket(' * 5000, b'verify=' * 5000]


def total(data):
    started = time.time()
    result = stacks.imports_in_source(data)
    assert time.time() - started < 10
    json.dumps(result)
    assert all(isinstance(record['line'], int) and record['line'] >= 1 for record in result['imports'])
    return result


def test_any_bytes_give_an_answer_seeded():
    rng = random.Random(493)
    for data in PATHOLOGICAL + [PYTHON2_PROGRAM, PYTHON3_PROGRAM, TRICKY]:
        total(data)
    for _round in range(300):
        total(b''.join(rng.choice(FRAGMENTS) for _i in range(rng.randint(0, 60))))
        total(bytes(bytearray(rng.randint(0, 255) for _i in range(rng.randint(0, 300)))))
        source = rng.choice([PYTHON2_PROGRAM, PYTHON3_PROGRAM, TRICKY])
        start = rng.randint(0, len(source))
        total(source[start:start + rng.randint(0, 200)])


if given is not None:
    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.binary(max_size=2000), st.lists(st.sampled_from(FRAGMENTS), max_size=80).map(b''.join)))
    def test_any_bytes_give_an_answer(data):
        total(data)


# Run by an interpreter on a sample of its own library: what its ast says each file imports.
AST_TRUTH = r"""
import ast, json, os, sys
library = os.path.dirname(os.__file__)
paths = sorted(os.path.join(folder, name) for folder, _sub, names in os.walk(library) for name in names
               if name.endswith('.py') and 'site-packages' not in folder and 'tests/data' not in folder)
truth = {}
for path in paths[::int(sys.argv[1])]:
    try:
        tree = ast.parse(open(path, 'rb').read())
    except Exception:
        continue
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add('.' * (node.level or 0) + (node.module or ''))
    truth[path] = sorted(found)
sys.stdout.write(json.dumps(truth))
"""


@pytest.mark.parametrize('python', [pytest.param(sys.executable, id='this-python'), pytest.param(
    PYTHON27, id='python2.7', marks=pytest.mark.skipif(not os.path.exists(PYTHON27), reason='no Python 2.7'))])
def test_the_scanner_agrees_with_ast_on_a_whole_standard_library_sample(python):
    truth = json.loads(subprocess.check_output([python, '-B', '-c', AST_TRUTH, '7']).decode('utf-8'))
    assert len(truth) > 150
    for path, imported in sorted(truth.items()):
        result = stacks.imports_in_source(read(path))
        assert result['clean'], (path, result['problems'])
        static = [record for record in result['imports'] if record['kind'] != 'dynamic']
        assert sorted(set('.' * record['level'] + record['module'] for record in static)) == imported, path


# --- classify and the standard library --------------------------------------------------------

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

INTERPRETERS = [pytest.param(sys.executable, id='this-python'),
                pytest.param(PYTHON27, id='python2.7', marks=pytest.mark.skipif(
                    not os.path.exists(PYTHON27), reason='no Python 2.7 at ' + PYTHON27))]
RHEL_BUNDLE = '/etc/pki/tls/certs/ca-bundle.crt'


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
    process = subprocess.Popen([python, '-B', '-c', stacks.PACKAGE_SCRIPT], stdin=subprocess.PIPE,
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
                    reason='the wheels are not in .cache/wheels (see the pip download line in this file)')
@pytest.mark.parametrize('python', INTERPRETERS)
def test_the_probe_on_real_wheels(tmp_path, python):
    # pip download --python-version 2.7 --only-binary=:all: --implementation py --abi none --platform any
    #   --no-deps -d .cache/wheels requests==2.27.1 urllib3==1.26.18 certifi==2021.10.8 idna==2.10 chardet==4.0.0
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


# --- stack_verdict_inputs ---------------------------------------------------------------------

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
