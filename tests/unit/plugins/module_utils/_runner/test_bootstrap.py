# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's start on the target: the in-memory importer of the payload's sources, and whole
runs of a module through the runner on the Python these tests run on (2.7, 3.6, 3.12, 3.13):
the sources from memory, nothing written to disk, the result printed as one JSON object."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import os
import subprocess
import sys
import traceback
import zlib

import pytest

from ansible_collections.pep493.https.plugins.module_utils._runner import bootstrap

MODULE_UTILS = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', '..', 'plugins', 'module_utils')
PACKAGE = 'ansible_collections.pep493.https.plugins.module_utils'


@pytest.fixture
def importer():
    """An importer of a small package of its own (names no other test uses), removed afterwards."""
    sources = {
        'pep493runnertest.pkg.values': u'# -*- coding: utf-8 -*-\nVALUE = u"caf\\u00e9"\nfrom . import helper\n',
        'pep493runnertest.pkg.helper': u'def fail():\n    raise ValueError("from the payload")\n',
        'pep493runnertest.pkg.broken': u'import pep493runnertest.pkg.helper\nraise RuntimeError("import failed")\n',
    }
    found = bootstrap.PayloadImporter(sources, {'pep493runnertest.pkg': u'PACKAGE_CODE = True\n'})
    sys.meta_path.insert(0, found)
    try:
        yield found
    finally:
        sys.meta_path.remove(found)
        for name in [n for n in sys.modules if n.startswith('pep493runnertest')]:
            del sys.modules[name]


def test_the_payload_sources_are_imported_from_memory(importer):
    from pep493runnertest.pkg import values
    import pep493runnertest.pkg
    assert values.VALUE == u'caf\u00e9'
    assert values.helper.fail.__module__ == 'pep493runnertest.pkg.helper'
    assert pep493runnertest.pkg.PACKAGE_CODE is True
    assert pep493runnertest.__path__ == [] and pep493runnertest.pkg.__path__ == []
    assert values.__file__ == '%s/pep493runnertest/pkg/values.py' % bootstrap.ORIGIN
    assert not os.path.exists(values.__file__)


def test_a_traceback_shows_the_payload_source_lines(importer):
    from pep493runnertest.pkg import helper
    text = ''
    try:
        helper.fail()
    except ValueError:
        text = traceback.format_exc()
    assert 'pep493runnertest/pkg/helper.py", line 2, in fail' in text
    assert 'raise ValueError("from the payload")' in text


def test_a_module_that_fails_to_import_is_not_left_half_imported(importer):
    with pytest.raises(RuntimeError):
        import pep493runnertest.pkg.broken  # noqa: F401
    assert 'pep493runnertest.pkg.broken' not in sys.modules


def test_only_the_payload_names_are_served(importer):
    assert importer.find_module('json') is None
    assert importer.find_module('pep493runnertest.pkg.missing') is None
    if sys.version_info >= (3, 4):
        assert importer.find_spec('json') is None


# --- whole runs on this Python ----------------------------------------------------------------------

def _pack(data):
    return base64.b64encode(zlib.compress(json.dumps(data).encode('utf-8'))).decode('ascii')


def _sources():
    modules, packages = {}, {}
    for folder, _dirs, files in os.walk(MODULE_UTILS):
        for name in files:
            if not name.endswith('.py'):
                continue
            relative = os.path.relpath(os.path.join(folder, name), MODULE_UTILS)[:-3].replace(os.sep, '.')
            with open(os.path.join(folder, name), 'rb') as handle:
                text = handle.read().decode('utf-8')
            if relative.endswith('__init__'):
                packages['%s.%s' % (PACKAGE, relative[:-len('.__init__')])] = text
            else:
                modules['%s.%s' % (PACKAGE, relative)] = text
    return dict(modules=modules, packages=packages)


def run_payload(tmp_path, module, params, paths=(), check_mode=False, env=None):
    """Run ``module`` through the runner in a new process of this Python; (exit code, result, files written)."""
    request = dict(module=module, params=params, paths=[list(p) for p in paths], env_fallbacks=[], no_log_values=[],
                   no_log_flags={}, aliases={}, warnings=[], deprecations=[], supports_check_mode=True,
                   internal=dict(module_name='pep493.https.' + module, check_mode=check_mode, diff=True, no_log=True,
                                 debug=False, verbosity=0, selinux_special_fs=['nfs'], syslog_facility='LOG_USER',
                                 shell_executable='/bin/sh'))
    with open(bootstrap.__file__.replace('.pyc', '.py'), 'rb') as handle:
        source = handle.read().decode('utf-8')
    script = (u'import sys\nsys.path[:] = [p for p in sys.path[1:] if p not in ("", ".")]\n_scope = {}\n'
              u'exec(compile(%r, "bootstrap", "exec", 0, True), _scope)\n_scope["main"](%r, %r)\n'
              % (str(source), str(_pack(_sources())), str(_pack(request))))
    work = tmp_path / 'work'
    work.mkdir()
    # a json.py in the working folder must not stand in for the standard module
    (work / 'json.py').write_text(u'import os\nopen(os.path.join(os.path.dirname(__file__), "SHADOWED"), "w").close()\n')
    before = set(os.listdir(str(tmp_path)))
    child_env = dict(os.environ, TMPDIR=str(tmp_path / 'tmp'), **(env or {}))
    (tmp_path / 'tmp').mkdir()
    child = subprocess.Popen([sys.executable, '-'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             cwd=str(work), env=child_env)
    out, err = child.communicate(script.encode('utf-8'))
    assert not err, err
    written = sorted(set(os.listdir(str(work))) - set(['json.py'])) + sorted(os.listdir(str(tmp_path / 'tmp')))
    assert set(os.listdir(str(tmp_path))) - before == set(['tmp'])
    return child.returncode, json.loads(out.decode('utf-8').strip()), written


CERT = dict(verify='enable', state='present', path='/etc/python/cert-verification.cfg', create=True, backup=False,
            repair=False, follow=False, allow_disable=False, mode=None, owner=None, group=None, seuser=None, serole=None,
            selevel=None, setype=None, attributes=None, unsafe_writes=False)


def test_a_module_runs_through_the_runner_on_this_python(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc').mkdir(parents=True)
    code, result, written = run_payload(tmp_path, 'cert_verification', dict(CERT, root=str(root)))
    assert (code, written) == (0, [])
    assert result['changed'] is True and result['mode'] == '0644' and result['state'] == 'file'
    assert result['invocation']['module_args']['root'] == str(root)
    assert result['diff'][0]['after'].endswith('[https]\nverify=enable\n')
    with open(str(root / 'etc' / 'python' / 'cert-verification.cfg'), 'rb') as handle:
        assert handle.read().endswith(b'verify=enable\n')
    assert sorted(os.listdir(str(root / 'etc' / 'python'))) == ['cert-verification.cfg']


def test_paths_are_expanded_on_the_target_and_failures_exit_1(tmp_path):
    code, result, written = run_payload(tmp_path, 'cert_verification', dict(CERT, root='$PEP493_RUNNER_TEST/none'),
                                        paths=[['root'], ['path']], env=dict(PEP493_RUNNER_TEST=str(tmp_path)))
    assert (code, written, result['failed']) == (1, [], True)
    assert result['invocation']['module_args']['root'] == os.path.join(str(tmp_path), 'none')
    assert os.path.join(str(tmp_path), 'none') in result['msg']


def test_a_report_module_runs_in_check_mode(tmp_path):
    root = tmp_path / 'root'
    (root / 'etc').mkdir(parents=True)
    params = dict(path='/etc/python/cert-verification.cfg', root=str(root), interpreters=[], services=None, probe=False,
                  planned=None)
    code, result, written = run_payload(tmp_path, 'verification_info', params, check_mode=True)
    assert (code, written, result['changed']) == (0, [], False)
    assert result['config']['exists'] is False and result['probed'] is False
