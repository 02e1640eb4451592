# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The import scanner (``python_imports.imports_in_source``) on Python 2 and 3 sources, whatever
interpreter runs it: imports, relative and dynamic ones, each usage hint, text that does not
tokenize, any bytes at all, and agreement with ``ast`` on a sample of the standard library."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import random
import subprocess
import sys
import time

import pytest

try:
    from hypothesis import given, settings, strategies as st
except ImportError:     # the seeded loop below still runs
    given = None

from ansible_collections.pep493.https.plugins.module_utils._syntax import python_imports
from ansible_collections.pep493.https.tests.unit.stack_scan import PYTHON27
from ansible_collections.pep493.https.tests.unit.tree import read


def kinds(data, kind):
    return [hint for hint in python_imports.imports_in_source(data)['hints'] if hint['hint'] == kind]


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
    result = python_imports.imports_in_source(PYTHON2_PROGRAM)
    assert result['modules'] == ['helper', 'json', 'os', 'simplejson', 'sys', 'urllib2', 'xml.dom.minidom']
    assert result['clean'] and not result['absolute_import']
    lines = dict((record['module'], record['line']) for record in result['imports'])
    assert lines == {'os': 4, 'sys': 4, 'urllib2': 5, 'xml.dom.minidom': 5, 'json': 10, 'simplejson': 12,
                     'helper': 17}
    assert [record['alias'] for record in result['imports'][:3]] == [None, None, 'u2']


def test_a_python3_program_with_nested_fstrings_is_read_by_any_interpreter():
    result = python_imports.imports_in_source(PYTHON3_PROGRAM)
    assert result['modules'] == ['asyncio', 'http.client', 'typing', 'urllib.request', 'xmlrpc.client']
    assert result['clean'], result['problems']
    assert [record['line'] for record in result['imports']] == [1, 2, 6, 13, 16]


def test_strings_and_comments_that_say_import_are_skipped():
    result = python_imports.imports_in_source(TRICKY)
    assert result['modules'] == ['real1', 'real2', 'real3', 'real4', 'real5', 'real6', 'real7'], result['problems']
    assert result['clean']
    lines = dict((record['module'], record['line']) for record in result['imports'])
    assert lines == {'real1': 8, 'real2': 16, 'real3': 17, 'real4': 18, 'real5': 18, 'real6': 20, 'real7': 22}
    assert [record['names'] for record in result['imports'] if record['kind'] == 'from'] == [['a', 'b'], ['*']]


def test_line_ends_byte_order_mark_and_bytes_that_are_not_utf8():
    data = b'\xef\xbb\xbfimport a\r\nx = "\xff\xfe import no"\rimport b\r\n\xe9t\xe9 = 1\nimport c'
    result = python_imports.imports_in_source(data)
    assert [(record['module'], record['line']) for record in result['imports']] == [('a', 1), ('b', 3), ('c', 5)]
    assert python_imports.imports_in_source(data.decode('latin-1'))['modules'] == ['a', 'b', 'c']


def test_relative_imports_are_reported_as_relative():
    result = python_imports.imports_in_source(b'from . import x\nfrom .. import y\nfrom .mod import z\n'
                                              b'from ...pkg.sub import (w)\nfrom __future__ import absolute_import\n')
    assert result['modules'] == ['.', '..', '...pkg.sub', '.mod', '__future__']
    assert [(record['level'], record['module'], record['names']) for record in result['imports'][:4]] == [
        (1, '', ['x']), (2, '', ['y']), (1, 'mod', ['z']), (3, 'pkg.sub', ['w'])]
    assert result['absolute_import']


def test_literal_dynamic_imports_are_imports_and_others_are_hints():
    data = (b"import importlib, runpy\nm = importlib.import_module('plugins.net')\nn = __import__('httplib')\n"
            b"o = import_module('.local', __package__)\np = __import__(name)\nrunpy.run_module('tool')\n"
            b"q = imp.load_source('x', path)\nr = pkg_resources.load_entry_point('d', 'console_scripts', 'x')\n")
    result = python_imports.imports_in_source(data)
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
    verify = python_imports.imports_in_source(b'requests.get(u, verify=False)\ns.post(u, verify="/etc/ca.pem")\n'
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
    assert python_imports.imports_in_source(b'import a\nx = "open\nimport b\n')['problems'] == [
        'unterminated string from line 2']
    result = python_imports.imports_in_source(b'import a\nx = (1,\nimport b\n')
    assert not result['clean'] and result['modules'] == ['a']


# Fragments of Python's syntax, shuffled: what trips a tokenizer (quotes, prefixes, braces, escapes).
FRAGMENTS = [b'import a', b'from . import b', b'"', b"'", b'"""', b"'''", b'f"', b"rb'", b'{', b'}', b'(', b')',
             b'\\', b'\n', b'\r', b'#', b' ', b':', b';', b'=', b'.', b'verify=False', b'ssl.wrap_socket(',
             b'__import__(', b'\xff', b'\x00', b'{x:', b'!r', b'N{', b'\\N{', b'  ', b'\t']
PATHOLOGICAL = [b'f"{' * 3000, b'(' * 50000, b'"""' * 1001, b'\\' * 10001, b"'" * 10001, b'f"{f\'{f"{' * 400,
                b'f"{x:{' * 2000, b'import ' * 5000, b'ssl.wrap_socket(' * 5000, b'verify=' * 5000]


def total(data):
    started = time.time()
    result = python_imports.imports_in_source(data)
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
        result = python_imports.imports_in_source(read(path))
        assert result['clean'], (path, result['problems'])
        static = [record for record in result['imports'] if record['kind'] != 'dynamic']
        assert sorted(set('.' * record['level'] + record['module'] for record in static)) == imported, path
