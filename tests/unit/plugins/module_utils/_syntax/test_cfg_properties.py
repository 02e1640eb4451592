# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property tests: the reader agrees with Python 2.7's own ConfigParser, and writes hold.

The oracle is the real thing: Python 2.7's ``ConfigParser.RawConfigParser`` plus the lookup
RHEL 7's ``ssl`` does. Under Python 2 it runs in-process; under Python 3 a batch of generated
files is sent to a ``python2.7`` interpreter in one process.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg

ORACLE_FUNCTION = r'''
import io
import ConfigParser
def rhel7(data):
    parser = ConfigParser.RawConfigParser()
    try:
        parser.readfp(io.BytesIO(data), 'cert-verification.cfg')
    except (ConfigParser.MissingSectionHeaderError, ConfigParser.ParsingError):
        return 'raise'
    try:
        status = parser.get('https', 'verify')
    except (ConfigParser.NoSectionError, ConfigParser.NoOptionError):
        status = 'platform_default'
    if status not in ('enable', 'disable', 'platform_default'):
        status = 'platform_default'
    return status
'''
ORACLE = ORACLE_FUNCTION + r'''
import base64, json, sys
print(json.dumps([rhel7(base64.b64decode(item)) for item in json.load(sys.stdin)]))
'''

# Pieces that exercise every branch of ConfigParser's line loop.
FRAGMENTS = [
    b'[https]', b'[HTTPS]', b'[https ]', b'[DEFAULT]', b'[other]', b'[https] x', b'[https', b'[]',
    b'verify=enable', b'verify=disable', b'verify=platform_default', b'verify = disable ; c',
    b'verify=disable;c', b'verify=disable # c', b'VERIFY: enable', b'Verify=Disable', b'verify=',
    b'verify=;disable ', b'verify=""', b' verify=disable', b'\tmore', b'  ', b'', b'# c', b'; c',
    b'rem x', b'REM', b'remark=1', b'junk', b'=v', b':v', b'key=v', b'key:v', b'k = v ; c',
    b'\xff\xfe', b'caf\xe9=1', b'verify=disable\r', b'\x0bverify=enable', b'verify\t=\tenable',
]


def _python27():
    """A Python 2.7 to compare with: pyenv's, or one on PATH (a virtualenv's base interpreter,
    since the oracle runs with -S, which a virtualenv's python cannot start with)."""
    candidates = [os.path.expanduser('~/.pyenv/versions/2.7.18/bin/python2.7'), '/usr/bin/python2.7']
    candidates += [os.path.join(folder, 'python2.7') for folder in os.environ.get('PATH', '').split(os.pathsep)]
    for candidate in candidates:
        candidate = _base_interpreter(candidate)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _base_interpreter(path):
    """``path``, or for a virtualenv's python the interpreter it was made from (pyvenv.cfg)."""
    config = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(path))), 'pyvenv.cfg')
    try:
        with open(config) as handle:
            for line in handle:
                key, sep, value = line.partition('=')
                if sep and key.strip() == 'base-executable':
                    return value.strip()
    except (IOError, OSError):
        pass
    return path


def rhel7_batch(items):
    if sys.version_info[0] == 2:
        scope = {}
        exec(ORACLE_FUNCTION, scope)
        return [scope['rhel7'](item) for item in items]
    python = _python27()
    if python is None:
        pytest.skip('no python2.7 here to compare with Python 2.7 ConfigParser')
    payload = json.dumps([base64.b64encode(item).decode('ascii') for item in items]).encode('ascii')
    proc = subprocess.Popen([python, '-E', '-S', '-c', ORACLE], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out, dummy = proc.communicate(payload)
    assert proc.returncode == 0
    return json.loads(out.decode('ascii'))


def ours(data):
    parsed = cfg.parse_cfg(data)
    return 'raise' if parsed.errors else parsed.verify


def random_file(rng):
    lines = [rng.choice(FRAGMENTS) for dummy in range(rng.randint(0, 8))]
    ending = rng.choice([b'\n', b'\r\n'])
    tail = ending if rng.random() < 0.8 else b''
    return ending.join(lines) + (tail if lines else b'')


def test_reader_agrees_with_python27_configparser_on_generated_files():
    rng = random.Random(493)
    files = [random_file(rng) for dummy in range(3000)]
    expected = rhel7_batch(files)
    mismatches = [(f, e, ours(f)) for f, e in zip(files, expected) if ours(f) != e]
    assert not mismatches[:5]
    # the corpus really covers every outcome
    assert set(expected) == {'raise', 'enable', 'disable', 'platform_default'}


def test_writer_output_reads_back_in_python27_configparser():
    rng = random.Random(2016)
    inputs = [f for f in (random_file(rng) for dummy in range(3000)) if not cfg.parse_cfg(f).errors]
    cases = []
    for data in inputs:
        verify = rng.choice(cfg.VALUES + (None,))
        cases.append((cfg.render_cfg(data, verify), verify))
    seen = rhel7_batch([new for new, verify in cases])
    for (new, verify), got in zip(cases, seen):
        assert got == (verify or 'platform_default'), new


lines_strategy = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.binary(max_size=12)), max_size=10)


@settings(max_examples=300, deadline=None)
@given(lines_strategy, st.sampled_from([b'\n', b'\r\n']))
def test_parse_never_raises(lines, ending):
    parsed = cfg.parse_cfg(ending.join(lines))
    assert parsed.verify in cfg.VALUES
    for lineno, kind, text in parsed.errors:
        assert kind in (cfg.NO_SECTION, cfg.JUNK) and lineno >= 1


@settings(max_examples=300, deadline=None)
@given(lines_strategy, st.sampled_from(cfg.VALUES + (None,)))
def test_write_yields_request_and_keeps_every_unrelated_line(lines, verify):
    data = b'\n'.join(lines)
    parsed = cfg.parse_cfg(data)
    if parsed.errors:
        with pytest.raises(cfg.MalformedConfigError):
            cfg.render_cfg(data, verify)
        data = cfg.repair_cfg(data)
        assert cfg.parse_cfg(data).valid
        parsed = cfg.parse_cfg(data)
    new = cfg.render_cfg(data, verify)
    after = cfg.parse_cfg(new)
    assert after.valid
    if verify is None:
        assert after.value is None
    else:
        assert after.value == verify and after.verify_keys == 1
    kept = [line.raw.rstrip(b'\r\n') for line in after.lines]
    for line in parsed.lines:
        about_verify = line.kind == cfg.OPTION_LINE and line.option == cfg.OPTION and \
            line.section in (cfg.SECTION, cfg.DEFAULT_SECTION)
        of_verify = line.kind == cfg.CONTINUATION and line.owner.option == cfg.OPTION and \
            line.owner.section in (cfg.SECTION, cfg.DEFAULT_SECTION)
        if not (about_verify or of_verify):
            assert line.raw.rstrip(b'\r\n') in kept
    assert cfg.render_cfg(new, verify) == new
