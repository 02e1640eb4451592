# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runner's stand-in for AnsibleModule against the real one, on the same inputs.

Where the installed ansible-core is 2.16 (the units run on Python 2.7 and 3.6 with it), every case
runs on both and the outcomes must be equal. With a newer ansible-core (Python 3.12, 3.13), the
cases whose AnsibleModule code is unchanged since 2.16 (symbolic modes, owner, group, mode and
attribute setting, lsattr, paths' facts, get_bin_path, run_command) still run on both; the rest
(atomic_move, the exit and fail JSON) meet the 2.16 outcomes written here, which the 2.16 runs check.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import functools
import json
import os
import stat
import sys

import pytest

from ansible.module_utils import basic
from ansible.module_utils.ansible_release import __version__ as core_version

from ansible_collections.pep493.https.plugins.module_utils._runner import modes
from ansible_collections.pep493.https.plugins.module_utils._runner.module import RunnerModule
from ansible_collections.pep493.https.tests.unit.module_args import patch_module_args
from ansible_collections.pep493.https.tests.unit.plugins.conftest import as_target, clear_warnings
from ansible_collections.pep493.https.tests.unit.tree import write

LEGACY = tuple(int(part) for part in core_version.split('.')[:2]) < (2, 17)
FILE_ARGS = dict(mode=None, owner=None, group=None, seuser=None, serole=None, selevel=None, setype=None,
                 attributes=None, unsafe_writes=False)
NAME = 'pep493.https.test'
SPEC = dict(path=dict(type='path'), secret=dict(no_log=True))


def stand_in(params=None, check_mode=False, diff=False, verbosity=0, no_log_values=(), warnings=()):
    given = dict(FILE_ARGS, path=None, secret=None)
    given.update(params or {})
    request = dict(
        module='test', params=given, paths=[], env_fallbacks=[],
        no_log_values=list(no_log_values), no_log_flags={}, aliases={}, warnings=list(warnings), deprecations=[],
        supports_check_mode=True,
        internal=dict(module_name=NAME, check_mode=check_mode, diff=diff, no_log=True, debug=False, verbosity=verbosity,
                      selinux_special_fs=['nfs'], syslog_facility='LOG_USER', shell_executable='/bin/sh'))
    return RunnerModule(request)


# The contexts the real AnsibleModule needs while a test uses it (2.19+ read their arguments later)
_OPEN = []


@pytest.fixture(autouse=True)
def close_module_contexts():
    yield
    while _OPEN:
        _OPEN.pop().__exit__(None, None, None)


def real(params=None, check_mode=False, diff=False, verbosity=0, spec=None):
    args = dict(params or {})
    args.update(_ansible_check_mode=check_mode, _ansible_diff=diff, _ansible_no_log=True, _ansible_verbosity=verbosity,
                _ansible_module_name=NAME)
    clear_warnings()
    while _OPEN:  # one module's arguments at a time
        _OPEN.pop().__exit__(None, None, None)
    context = patch_module_args(args)
    context.__enter__()
    _OPEN.append(context)
    with as_target():
        return basic.AnsibleModule(argument_spec=dict(spec or SPEC), add_file_common_args=True, supports_check_mode=True)


def outcome(capsys, call):
    """('return', value) or ('exit', code, the JSON printed)."""
    capsys.readouterr()
    try:
        with as_target():
            value = call()
    except SystemExit as exc:
        return ('exit', exc.code, json.loads(capsys.readouterr().out))
    return ('return', value)


def failure(result):
    """The parts of a failure both sides share whatever the ansible-core (no invocation, warnings)."""
    assert result[0] == 'exit', result
    return dict((k, v) for k, v in result[2].items() if k in ('failed', 'msg', 'path', 'details', 'rc', 'cmd'))


# --- symbolic modes -----------------------------------------------------------------------------------

SYMBOLIC = ['u=rw,g=r,o=r', 'a+X', 'u+x,g-w', 'o=', '=r', '+x', 'ug=rwx,o=rx', 'u=g', 'g=u,o=u', 'u+s,g+s,+t',
            'a=rwx,u-x', 'go-rwx', 'u=rwX', 'o+t', 'u=rw,u+x,g=o', 'a', 'u+', '', 'u=rwz', 'x=r', 'u=r,,g=r', 'ua+r']


@pytest.mark.parametrize('symbolic', SYMBOLIC)
@pytest.mark.parametrize('start', [0o644, 0o755, 0o600, 0o4711, 0o000])
@pytest.mark.parametrize('kind', [stat.S_IFREG, stat.S_IFDIR])
@pytest.mark.parametrize('umask', [0o022, 0o077])
def test_symbolic_modes_as_ansible_reads_them(symbolic, start, kind, umask):
    class Stat(object):
        st_mode = kind | start
    saved = os.umask(umask)
    try:
        try:
            expected = ('mode', basic.AnsibleModule._symbolic_mode_to_octal(Stat(), symbolic))
        except Exception as exc:  # 2.16 raises ValueError
            expected = ('error', str(exc))
        try:
            got = ('mode', modes.symbolic_to_octal(Stat(), symbolic))
        except ValueError as exc:
            got = ('error', str(exc))
    finally:
        os.umask(saved)
    assert got == expected


# --- owner, group, mode, attributes -------------------------------------------------------------------

def _file(tmp_path, mode=0o644, name='f'):
    path = write(tmp_path, name, b'x\n')
    os.chmod(path, mode)
    return path


@pytest.mark.parametrize('mode', ['0640', 0o600, '600', 'u=rw,g=r,o=r', 'a+X', '0644', '4755', '07777', 'u=rwz',
                                  '010000', 'g=u'])
@pytest.mark.parametrize('check_mode', [False, True])
def test_mode_as_ansible_sets_it(tmp_path, capsys, mode, check_mode):
    results = []
    for build in (real, stand_in):
        path = _file(tmp_path, name='f-%s' % build.__name__)
        module = build(dict(path=path), check_mode=check_mode) if build is stand_in else build(
            dict(path=path), check_mode=check_mode, spec=dict(path=dict(type='path')))
        diff = {}
        done = outcome(capsys, lambda: module.set_mode_if_different(path, mode, False, diff))
        results.append((done if done[0] == 'return' else failure(done), diff, stat.S_IMODE(os.stat(path).st_mode)))
    for result in results:  # the path differs by name only
        if isinstance(result[0], dict):
            result[0].pop('path', None)
    assert results[0] == results[1]


@pytest.mark.parametrize('owner,group', [('0', None), ('root', '0'), (None, 'root'), (str(os.getuid()), str(os.getgid())),
                                         ('no-such-user-pep493', None), (None, 'no-such-group-pep493')])
@pytest.mark.parametrize('check_mode', [False, True])
def test_owner_and_group_as_ansible_sets_them(tmp_path, capsys, owner, group, check_mode):
    results = []
    for build in (real, stand_in):
        path = _file(tmp_path, name='f-%s' % build.__name__)
        module = build(dict(path=path), check_mode=check_mode)
        diff = {}
        args = dict(path=path, owner=owner, group=group, mode=None, attributes=None, secontext=[None, None, None])
        done = outcome(capsys, lambda: module.set_fs_attributes_if_different(args, False, diff))
        info = os.stat(path)
        if done[0] == 'exit':
            done = failure(done)
            done.pop('path', None)
        results.append((done, diff, info.st_uid, info.st_gid))
    assert results[0] == results[1]


@pytest.mark.parametrize('attributes', ['+d', '-d', '=d', 'd', '+A', 'e'] + ([''] if LEGACY else []))
def test_attributes_as_ansible_sets_them(tmp_path, capsys, attributes):
    results = []
    for build in (real, stand_in):
        path = _file(tmp_path, name='f-%s' % build.__name__)
        module = build(dict(path=path))
        diff = {}
        done = outcome(capsys, lambda: module.set_attributes_if_different(path, attributes, False, diff))
        if done[0] == 'exit':
            done = failure(done)
            done.pop('path', None)
            done.pop('details', None)  # names the file
        results.append((done, diff, module.get_file_attributes(path, include_version=False)))
    assert results[0] == results[1]


def test_file_facts_of_a_result_as_ansible_adds_them(tmp_path):
    paths = [_file(tmp_path, 0o640), str(tmp_path), str(tmp_path / 'missing')]
    link = str(tmp_path / 'link')
    os.symlink(paths[0], link)
    hard = str(tmp_path / 'hard')
    os.link(paths[0], hard)
    for path in paths + [link, hard]:
        for key in ('path', 'dest'):
            assert stand_in().add_path_info({key: path}) == real().add_path_info({key: path})
    assert stand_in().add_path_info({'msg': 'x'}) == {'msg': 'x'}


@pytest.mark.parametrize('follow', [False, True])
def test_file_common_arguments_as_ansible_loads_them(tmp_path, follow):
    target = _file(tmp_path)
    link = str(tmp_path / 'link')
    os.symlink(target, link)
    params = dict(FILE_ARGS, path=link, follow=follow, mode='0600', owner='root', seuser='_default')
    assert stand_in().load_file_common_arguments(params) == real().load_file_common_arguments(params)
    assert stand_in().load_file_common_arguments(params, path=target) == real().load_file_common_arguments(params, path=target)
    assert stand_in().load_file_common_arguments(dict(FILE_ARGS)) == {}


# --- atomic_move ----------------------------------------------------------------------------------------

@pytest.mark.parametrize('umask', [0o022, 0o077, 0o002])
@pytest.mark.parametrize('existing', [None, 0o640, 0o600, 0o755])
def test_atomic_move_keeps_the_old_file_mode_or_gives_the_umask_one(tmp_path, umask, existing):
    """A replaced file keeps its mode and owner; a new one gets 0666 less the umask (2.16's rule,
    which every ansible-core keeps for a new file)."""
    results = []
    for build in ([real] if LEGACY else []) + [stand_in]:
        dest = str(tmp_path / ('dest-%s' % build.__name__))
        if existing is not None:
            _file(tmp_path, existing, name=os.path.basename(dest))
        src = _file(tmp_path, 0o600, name='src-%s' % build.__name__)
        saved = os.umask(umask)
        try:
            build().atomic_move(src, dest)
        finally:
            os.umask(saved)
        with open(dest, 'rb') as handle:
            content = handle.read()
        results.append((stat.S_IMODE(os.stat(dest).st_mode), os.path.exists(src), content))
    expected = (0o666 & ~umask if existing is None else existing, False, b'x\n')
    assert results == [expected] * len(results)


def test_atomic_move_failure_as_2_16_reports_it(tmp_path, capsys):
    src = _file(tmp_path)
    dest = str(tmp_path / 'folder')
    os.mkdir(dest)
    write(tmp_path, 'folder/inside', b'')  # rename() of a file over a folder that is not empty: EISDIR
    results = []
    for build in ([real] if LEGACY else []) + [stand_in]:
        done = outcome(capsys, lambda: build().atomic_move(src, dest))
        results.append(failure(done))
    expected = dict(failed=True, msg='Could not replace file: %s to %s: [Errno %d] %s: %r -> %r'
                    % (src, dest, errno.EISDIR, os.strerror(errno.EISDIR), src.encode('utf-8'), dest.encode('utf-8')))
    if sys.version_info[0] == 2:
        expected['msg'] = 'Could not replace file: %s to %s: [Errno %d] %s' % (src, dest, errno.EISDIR, os.strerror(errno.EISDIR))
    assert results == [expected] * len(results)


# --- programs -------------------------------------------------------------------------------------------

def test_get_bin_path_as_ansible_finds_programs(tmp_path, monkeypatch, capsys):
    tool = write(tmp_path, 'bin/pep493-tool', b'#!/bin/sh\n')
    os.chmod(tool, 0o755)
    write(tmp_path, 'bin/not-executable', b'')
    monkeypatch.setenv('PATH', '%s::/nonexistent' % os.path.dirname(tool))
    for name in ('pep493-tool', 'not-executable', 'sh', 'no-such-program-pep493', 'bin'):
        assert stand_in().get_bin_path(name) == real().get_bin_path(name)
        assert stand_in().get_bin_path(name, opt_dirs=[str(tmp_path)]) == real().get_bin_path(name, opt_dirs=[str(tmp_path)])
    missing = [failure(outcome(capsys, lambda: build().get_bin_path('no-such-program-pep493', required=True)))
               for build in (real, stand_in)]
    assert missing[0] == missing[1]
    assert missing[0]['msg'].startswith('Failed to find required executable "no-such-program-pep493" in paths: ')


@pytest.mark.parametrize('args,kwargs', [
    (['sh', '-c', 'echo out; echo err >&2; exit 3'], {}),
    ('sh -c "printf \'%s\' \\"$PEP493_X\\""', dict(environ_update=dict(PEP493_X='from update'))),
    (['sh', '-c', 'cat'], dict(data='in')),
    (['sh', '-c', 'cat'], dict(data='in', binary_data=True)),
    (['sh', '-c', 'printf "\\377\\n"'], {}),
    (['sh', '-c', 'printf "\\377\\n"'], dict(encoding=None)),
    (['echo', '~/x', '$PEP493_Y'], {}),
    (['echo', '~/x', '$PEP493_Y'], dict(expand_user_and_vars=False)),
    (['sh', '-c', 'pwd'], dict(cwd='/')),
    (['sh', '-c', 'echo "$PATH"'], dict(path_prefix='/pep493/prefix')),
    (['sh', '-c', 'umask'], dict(umask=0o077)),
    (['sh', '-c', 'sleep 5 & echo started'], {}),
])
def test_run_command_as_ansible_runs_it(monkeypatch, args, kwargs):
    monkeypatch.setenv('PEP493_Y', 'why')
    assert stand_in().run_command(args, **kwargs) == real().run_command(args, **kwargs)


def test_run_command_of_a_missing_program_fails_as_2_16_fails(capsys):
    results = [failure(outcome(capsys, lambda: build().run_command(['/nonexistent/pep493-program', 'x'])))
               for build in ([real] if LEGACY else []) + [stand_in]]
    assert results == [results[0]] * len(results)
    assert results[0]['msg'].startswith('[Errno 2] No such file or directory')  # Python's own words, as 2.16 passes them on
    assert dict(results[0], msg=None) == dict(failed=True, rc=errno.ENOENT, msg=None, cmd='/nonexistent/pep493-program x')


# --- the result ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('method,kwargs', [
    ('exit_json', dict(changed=True, msg='done', items=[1, 2], nested=dict(a=None, b=False))),
    ('exit_json', dict(changed=False, warnings=['passed along'], data=b'bytes \xc3\xa9')),
    ('fail_json', dict(msg='broken', rc=2)),
    ('fail_json', dict(msg='with the secret s3cr3t-pep493 inside', secret='s3cr3t-pep493', flag=True)),
])
def test_result_json_as_2_16_prints_it(capsys, tmp_path, method, kwargs):
    params = dict(path=str(tmp_path), secret='s3cr3t-pep493')
    options = dict(params=params)
    module = stand_in(no_log_values=['s3cr3t-pep493'], **options)
    module.warn('a warning')
    got = outcome(capsys, functools.partial(getattr(module, method), **kwargs))
    if LEGACY:
        legacy = real(params=params, spec=dict(path=dict(type='path'), secret=dict(no_log=True)))
        legacy.warn('a warning')
        assert got == outcome(capsys, functools.partial(getattr(legacy, method), **kwargs))
    code, printed = got[1], got[2]
    assert code == (1 if method == 'fail_json' else 0)
    assert printed['invocation']['module_args']['secret'] == 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'
    assert printed['warnings'][0] == 'a warning'
    assert 's3cr3t-pep493' not in json.dumps(printed)
    if method == 'fail_json':
        assert printed['failed'] is True
        assert printed['msg'].startswith(kwargs['msg'].split(' s3cr3t')[0])


def test_a_result_about_a_path_gets_its_facts(capsys, tmp_path):
    path = _file(tmp_path, 0o640)
    got = outcome(capsys, lambda: stand_in().exit_json(path=path, changed=False))
    assert got[0] == 'exit' and got[1] == 0
    assert dict((k, got[2][k]) for k in ('mode', 'state', 'size', 'uid')) == dict(mode='0640', state='file', size=2, uid=os.getuid())
    if LEGACY:
        assert got == outcome(capsys, lambda: real().exit_json(path=path, changed=False))


def test_a_failure_in_an_exception_carries_its_traceback_from_verbosity_3(capsys):
    def fail(build, verbosity):
        module = build(verbosity=verbosity)
        try:
            raise ValueError('inner')
        except ValueError:
            module.fail_json(msg='outer')
    for verbosity in (0, 3):
        got = outcome(capsys, lambda: fail(stand_in, verbosity))
        assert ('exception' in got[2]) == (verbosity == 3)
        if verbosity:
            assert "raise ValueError('inner')" in got[2]['exception']
        if LEGACY:
            assert got == outcome(capsys, lambda: fail(real, verbosity))


def test_cleanup_files_are_removed_when_the_module_ends(capsys, tmp_path):
    for build in ([real] if LEGACY else []) + [stand_in]:
        module = build()
        left = _file(tmp_path, name='tmp-%s' % build.__name__)
        module.add_cleanup_file(left)
        module.add_cleanup_file(left)
        module.add_cleanup_file(str(tmp_path / 'never-made'))
        assert outcome(capsys, lambda: module.exit_json(changed=False))[1] == 0
        assert not os.path.exists(left)


def test_checks_warnings_come_first_and_check_mode_is_kept(capsys):
    module = stand_in(check_mode=True, warnings=['Both option attributes and its alias attr are set.'])
    assert module.check_mode is True
    module.warn('later')
    printed = outcome(capsys, lambda: module.exit_json(changed=False))[2]
    assert printed['warnings'] == ['Both option attributes and its alias attr are set.', 'later']
