# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Interpreter probing: real interpreters where the machine has them, fake ones for failures."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import ssl
import sys

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import interpreters as probe

KEYS = {'path', 'version', 'honours_env', 'reads_config', 'verifies_by_default', 'error'}


def _base_interpreter(path):
    """``path``, or for a virtualenv's python the interpreter it was made from: the probe runs
    with -S, which a virtualenv's python cannot start with."""
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


# ansible-test runs with a HOME of its own, so look on PATH too (tools/units puts .cache/pybin there)
PYTHON27 = [p for p in (_base_interpreter(c) for c in [os.path.expanduser('~/.pyenv/versions/2.7.18/bin/python2.7'),
                                                       '/usr/bin/python2.7']
                        + [os.path.join(d, 'python2.7') for d in os.environ.get('PATH', '').split(os.pathsep) if d])
            if os.path.isfile(p) and os.access(p, os.X_OK)]


def fake(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(u'#!/bin/sh\n' + body + u'\n')
    os.chmod(str(path), 0o755)
    return str(path)


RHEL7_ANSWER = {'version': '2.7.5', 'honours_env': True,
                'reads_config': '/etc/python/cert-verification.cfg', 'verifies_by_default': False}


def test_this_python3_honours_nothing_and_verifies():
    if sys.version_info[0] < 3:
        pytest.skip('needs a Python 3 to probe as the test interpreter')
    [result] = probe.probe_interpreters([sys.executable])
    assert set(result) == KEYS and result['error'] is None
    assert result['version'] == '%d.%d.%d' % sys.version_info[:3]
    assert result['honours_env'] is False and result['reads_config'] is None
    assert result['verifies_by_default'] is True


@pytest.mark.skipif(not PYTHON27, reason='no Python 2.7 interpreter on this machine')
def test_upstream_python27_honours_the_variable_and_the_probe_ignores_ours(monkeypatch):
    monkeypatch.setenv('PYTHONHTTPSVERIFY', '0')     # the probe's clean environment must not see it
    [result] = probe.probe_interpreters(PYTHON27[:1])
    assert result['error'] is None and result['version'].startswith('2.7.')
    assert result['honours_env'] is True and result['reads_config'] is None
    assert result['verifies_by_default'] is True


def test_a_rhel7_like_answer_is_collected_and_found_as_reader(tmp_path):
    path = fake(tmp_path, 'python2.7', "echo '%s'" % json.dumps(RHEL7_ANSWER))
    results = probe.probe_interpreters([path])
    assert results == [dict(RHEL7_ANSWER, path=path, error=None)]
    assert probe.readers_of(results, '/etc/python/cert-verification.cfg') == results
    assert probe.readers_of(results, '/opt/rh/python27/root/etc/python/cert-verification.cfg') == []


def failing_ssl_interpreter(tmp_path, exc):
    """This Python, with an ``ssl`` that fails as RHEL 7's does on a malformed cfg file."""
    lib = tmp_path / 'lib'
    lib.mkdir()
    (lib / 'ssl.py').write_text(
        u"_https_verify_envvar = 'PYTHONHTTPSVERIFY'\n"
        u"_cert_verification_config = '/etc/python/cert-verification.cfg'\n"
        u"def _get_verify_status(protocol):\n"
        u"    raise %s\n"
        u"_create_default_https_context = _get_verify_status('https')\n" % exc)
    return with_ssl_from(tmp_path, lib)


def with_ssl_from(tmp_path, lib):
    """A fake interpreter: this Python with ``lib`` first on sys.path.

    The probe runs PYTHON -E -S -c SCRIPT; -S is left out here, because a virtualenv's Python 2
    finds no standard library without its site module.
    """
    return fake(tmp_path, 'python2.7', 'exec "%s" -E -c "import sys; sys.path.insert(0, %r); exec(sys.argv.pop(1))" "$4"'
                % (sys.executable, str(lib)))


def test_an_interpreter_whose_ssl_import_fails_on_the_cfg_file_is_still_a_reader(tmp_path):
    """RHEL 7's python raises at "import ssl" on a malformed cfg file: it reads the file all the same."""
    path = failing_ssl_interpreter(tmp_path, "ValueError('File contains parsing errors: "
                                             "/etc/python/cert-verification.cfg')")
    [result] = probe.probe_interpreters([path])
    assert result['error'] == ('import ssl failed: ValueError: File contains parsing errors: '
                               '/etc/python/cert-verification.cfg')
    assert result['version'] == '%d.%d.%d' % sys.version_info[:3]
    assert result['reads_config'] == '/etc/python/cert-verification.cfg'
    assert result['honours_env'] is True
    assert result['verifies_by_default'] is None
    assert probe.readers_of([result], '/etc/python/cert-verification.cfg') == [result]


def test_an_interpreter_whose_ssl_import_fails_elsewhere_reads_nothing_known(tmp_path):
    lib = tmp_path / 'lib'
    lib.mkdir()
    (lib / 'ssl.py').write_text(u"raise ImportError('No module named _ssl')\n")
    path = with_ssl_from(tmp_path, lib)
    [result] = probe.probe_interpreters([path])
    assert result['error'] == 'import ssl failed: ImportError: No module named _ssl'
    assert result['reads_config'] is None and result['honours_env'] is None
    assert result['verifies_by_default'] is None


def test_broken_missing_slow_and_garbage_interpreters_are_reported(tmp_path):
    broken = fake(tmp_path, 'broken', "echo 'ImportError: No module named _ssl' >&2; exit 1")
    pid_file = tmp_path / 'slow.pid'
    slow = fake(tmp_path, 'slow', 'echo $$ > %s; exec sleep 600' % pid_file)
    garbage = fake(tmp_path, 'garbage', 'echo "[1, 2]"')
    missing = str(tmp_path / 'missing')
    results = probe.probe_interpreters([broken, slow, garbage, missing], timeout=1.0)
    by_path = dict((r['path'], r) for r in results)
    assert [r['path'] for r in results] == [broken, slow, garbage, missing]
    assert all(set(r) == KEYS and r['version'] is None for r in results)
    assert by_path[broken]['error'] == 'probe failed (exit 1): ImportError: No module named _ssl'
    assert by_path[slow]['error'] == 'no answer within 1.0 seconds'
    assert by_path[garbage]['error'] == 'probe printed unexpected output'
    assert by_path[missing]['error'].startswith('cannot run: ')
    # killed and reaped at the timeout, not left running
    with pytest.raises(OSError):
        os.kill(int(pid_file.read_text()), 0)


def test_probes_run_in_parallel(tmp_path):
    # Each fake interpreter answers only once all four have started: run one after the other,
    # the first would wait until the probe's timeout and be reported as not answering.
    started = tmp_path / 'started'
    started.mkdir()
    body = ("touch %s/$$; n=0; while [ $(ls %s | wc -l) -lt 4 ] && [ $n -lt 300 ]; do sleep 0.05; n=$((n+1)); done; "
            "[ $(ls %s | wc -l) -ge 4 ] && echo '%s'" % (started, started, started, json.dumps(RHEL7_ANSWER)))
    paths = [fake(tmp_path, 'p%d' % n, body) for n in range(4)]
    results = probe.probe_interpreters(paths, timeout=30)
    assert [r['error'] for r in results] == [None] * 4


def test_candidates_keep_extra_paths_and_drop_duplicates(tmp_path, monkeypatch):
    real = fake(tmp_path, 'python2.7', 'exit 0')
    link = str(tmp_path / 'python2')
    os.symlink(real, link)
    monkeypatch.setattr(probe, 'CANDIDATE_GLOBS', (str(tmp_path / 'python*'),))
    missing = str(tmp_path / 'nope' / 'python')
    found = probe.candidate_interpreters([real, missing, missing])
    assert found == [link, missing]


def test_this_python_says_where_its_openssl_looks(monkeypatch):
    if sys.version_info[0] < 3:
        pytest.skip('needs a Python 3 to probe as the test interpreter')
    monkeypatch.setenv('SSL_CERT_FILE', '/nowhere/cert.pem')    # the compiled-in paths are asked, not the variable
    [result] = probe.probe_verify_paths([_base_interpreter(sys.executable)])
    expected = ssl.get_default_verify_paths()
    assert result == dict(path=_base_interpreter(sys.executable), version='%d.%d.%d' % sys.version_info[:3],
                          cafile=expected.openssl_cafile, capath=expected.openssl_capath, error=None)


@pytest.mark.skipif(not PYTHON27, reason='no Python 2.7 interpreter on this machine')
def test_python27_says_where_its_openssl_looks():
    [result] = probe.probe_verify_paths(PYTHON27[:1])
    assert result['error'] is None and result['version'].startswith('2.7.')
    assert result['cafile'].endswith('.pem') and result['capath']


def test_a_verify_paths_probe_that_fails_says_why(tmp_path):
    broken = fake(tmp_path, 'python3', 'echo "Traceback" >&2; exit 1')
    missing = str(tmp_path / 'python9')
    first, second = probe.probe_verify_paths([broken, missing])
    assert (first['cafile'], first['error']) == (None, 'probe failed (exit 1): Traceback')
    assert second['error'].startswith('cannot run: ')
