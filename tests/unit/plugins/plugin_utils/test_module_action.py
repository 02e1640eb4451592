# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller's side of the runner: which way a call runs (the runner; ansible-core's own payload
for an async task where it runs), the task's arguments checked on the controller (paths and
environment fallbacks left to the target), and the payload (only the collection's code, the
arguments inside it, run from stdin by any target Python found here)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest

from ansible import constants as C
from ansible_collections.pep493.https.plugins.plugin_utils import module_action, runner_payload, task_args


class Routed(module_action.CollectionModules):
    """The action's choice of way alone: each way records itself instead of running."""

    def __init__(self, refuses, interpreter='/usr/bin/python'):  # pylint: disable=super-init-not-called
        self.refuses = refuses
        self.interpreter = interpreter
        self.ways = []

    def run(self, tmp=None, task_vars=None):
        return {}

    def _configured_interpreter(self, task_vars):
        return (self.interpreter, None) if self.interpreter else (None, 'auto')

    def _discover(self, task_vars, discovery_mode):
        self.ways.append('discovery')
        return '/usr/libexec/platform-python'

    def _probe_refuses(self, interpreter):
        self.ways.append('probe')
        return self.refuses

    def _own_payload(self, action_name, args, task_vars, wrap_async):
        self.ways.append('own payload')
        return {}

    def _through_runner(self, call, interpreter, task_vars, wrap_async):
        self.ways.append('runner on %s' % interpreter)
        return {}


@pytest.mark.parametrize('mode,wrap_async,refuses,ways', [
    # every call through the runner, whatever the target; no probe, no round trip more
    ('auto', False, False, ['runner on /usr/bin/python']),
    ('auto', False, True, ['runner on /usr/bin/python']),
    # async: ansible-core's own payload where it runs; elsewhere the runner, which refuses it saying why
    ('auto', True, False, ['probe', 'own payload']),
    ('auto', True, True, ['probe', 'runner on /usr/bin/python']),
    ('always', True, False, ['runner on /usr/bin/python']),
    ('never', False, True, ['own payload']),
    ('never', True, True, ['own payload']),
])
def test_which_way_a_call_runs(monkeypatch, mode, wrap_async, refuses, ways):
    monkeypatch.setenv(module_action.RUNNER_SETTING, mode)
    action = Routed(refuses)
    action._execute('cert_verification', 'pep493.https.cert_verification', None, {}, {}, wrap_async)
    assert action.ways == ways


def test_the_runner_runs_on_the_discovered_interpreter_when_none_is_set(monkeypatch):
    monkeypatch.delenv(module_action.RUNNER_SETTING, raising=False)
    action = Routed(False, interpreter=None)
    action._execute('cert_verification', 'pep493.https.cert_verification', None, {}, {}, False)
    assert action.ways == ['discovery', 'runner on /usr/libexec/platform-python']


def test_an_unknown_setting_is_refused_naming_it(monkeypatch):
    monkeypatch.setenv(module_action.RUNNER_SETTING, 'sometimes')
    with pytest.raises(module_action.AnsibleActionFail, match="PEP493_HTTPS_RUNNER='sometimes': use one of auto, always, never"):
        Routed(False)._execute('cert_verification', 'pep493.https.cert_verification', None, {}, {}, False)


@pytest.mark.parametrize('version,runs', [((2, 7), False), ((3, 6), False), ((3, 8), None), ((3, 9), True), ((3, 13), True)])
def test_which_target_pythons_the_controller_runs_on(version, runs):
    from ansible.module_utils import basic
    minimum = getattr(basic, '_PY_MIN', None)
    if not isinstance(minimum, tuple):
        runs = True
    elif runs is None:
        runs = version >= minimum
    assert module_action.controller_runs(version) is runs


# --- the arguments --------------------------------------------------------------------------------

# every module but verification_policy, whose file only documents the policy's action
MODULE_FILES = sorted(name[:-3] for name in os.listdir(os.path.join(os.path.dirname(task_args.__file__), '..', 'modules'))
                      if name.endswith('.py') and name not in ('__init__.py', 'verification_policy.py'))


def test_the_modules_are_found():
    assert 'ca_trust' in MODULE_FILES and 'cert_verification' in MODULE_FILES


@pytest.mark.parametrize('module', MODULE_FILES)
def test_every_module_has_its_action_and_its_arguments_are_checked_on_the_controller(module):
    import importlib
    plugin = importlib.import_module('ansible_collections.pep493.https.plugins.action.' + module)
    assert issubclass(plugin.ActionModule, module_action.ModuleAction) and plugin.ActionModule.MODULE == module
    # refused on the controller, before anything is sent (the first problem of the task is the message)
    checked = task_args.check(module, 'pep493.https.' + module, dict(colour='blue'))
    assert checked.refusal is not None and checked.refusal['failed'] is True


def test_paths_are_checked_as_text_and_left_for_the_target(monkeypatch):
    monkeypatch.setenv('ANSIBLE_UNSAFE_WRITES', '1')  # the controller's own environment must not count
    checked = task_args.check('cert_verification', 'pep493.https.cert_verification', dict(verify='enable', root='~/img/$TREE'))
    assert checked.refusal is None
    assert checked.params['root'] == '~/img/$TREE' and checked.params['unsafe_writes'] is False
    assert sorted(checked.paths) == [['path'], ['root']]
    assert checked.env_fallbacks == [['unsafe_writes', ['ANSIBLE_UNSAFE_WRITES'], 'bool', False]]
    given = task_args.check('cert_verification', 'x', dict(verify='enable', unsafe_writes=True))
    assert given.env_fallbacks == [] and given.params['unsafe_writes'] is True


def test_nested_and_list_paths_are_found():
    checked = task_args.check('verification_info', 'pep493.https.verification_info',
                              dict(interpreters=['~/py'], planned=dict(unit_dir='~/units')))
    assert checked.refusal is None
    assert sorted(checked.paths) == [['interpreters', '*'], ['path'], ['planned', 'unit_dir'], ['root']]
    assert checked.params['interpreters'] == ['~/py'] and checked.params['planned']['unit_dir'] == '~/units'


@pytest.mark.parametrize('args,message', [
    (dict(state='bogus'), 'value of state must be one of: present, absent, restored, got: bogus'),
    (dict(verify='enable', colour='blue'), 'Unsupported parameters for (pep493.https.cert_verification) module: colour. '
                                           'Supported parameters include: allow_disable, attributes, backup, create, '
                                           'follow, group, mode, owner, path, repair, root, selevel, serole, setype, '
                                           'seuser, state, unsafe_writes, verify (attr).'),
    (dict(), 'state is present but all of the following are missing: verify'),
])
def test_a_refused_task_gets_the_modules_own_message(args, message):
    checked = task_args.check('cert_verification', 'pep493.https.cert_verification', args)
    assert checked.refusal['failed'] is True and checked.refusal['msg'] == message
    assert checked.refusal['invocation']['module_args']['create'] is True


def test_an_option_and_its_alias_both_warn_as_ansible_does():
    checked = task_args.check('cert_verification', 'x', dict(verify='enable', attributes='-d', attr='-d'))
    assert checked.warnings == ['Both option attributes and its alias attr are set.']
    assert checked.aliases == {'attr': 'attributes'}


def test_no_log_values_are_masked_in_a_refusal(monkeypatch):
    spec = dict(argument_spec=dict(token=dict(no_log=True), count=dict(type='int')), supports_check_mode=True)
    monkeypatch.setattr(task_args, 'module_kwargs', lambda module: spec)
    checked = task_args.check('fake', 'pep493.https.fake', dict(token='s3cr3t-pep493', count='many'))
    assert checked.no_log_values == ['s3cr3t-pep493'] and checked.no_log_flags['token'] is True
    assert 's3cr3t-pep493' not in json.dumps(checked.refusal)
    assert checked.refusal['invocation']['module_args']['token'] == 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'


# --- the payload -------------------------------------------------------------------------------------

@pytest.mark.parametrize('module', ['cert_verification', 'service_verification', 'verification_info', 'verification_forecast',
                                    'ca_trust'])
def test_a_payload_carries_the_runner_the_backend_and_what_they_import(module):
    sources = runner_payload.collect_sources(module)
    names = set(sources['modules'])
    assert runner_payload.ENTRY in names and runner_payload.BACKENDS + module in names
    assert all(name.startswith(runner_payload.PACKAGE + '.') for name in names | set(sources['packages']))
    assert not any(name.endswith('.policy') or name.endswith('.forecast_plan') for name in names)  # controller's


@pytest.mark.parametrize('source', ['from ansible.module_utils.basic import AnsibleModule\n', 'import ansible\n',
                                    'from . import sibling\n'])
def test_code_the_runner_cannot_carry_is_refused(source):
    with pytest.raises(runner_payload.PayloadError):
        runner_payload._imports('x', source)


def _interpreters():
    """This Python, and RHEL 7's and 8's Pythons where PATH has working ones (tools/units puts them there)."""
    found = [sys.executable]
    for version in ('2.7', '3.6'):
        for folder in os.environ.get('PATH', '').split(os.pathsep):
            path = os.path.join(folder, 'python' + version)
            if folder and os.path.exists(path) and subprocess.call([path, '-c', 'pass'], stderr=subprocess.DEVNULL) == 0:
                found.append(path)
                break
    return found


@pytest.mark.parametrize('python', _interpreters())
def test_the_payload_runs_from_stdin_with_the_arguments_inside(tmp_path, monkeypatch, python):
    monkeypatch.setattr(C, 'DEFAULT_LOCAL_TMP', str(tmp_path / 'local'))
    root = tmp_path / 'root'
    (root / 'etc').mkdir(parents=True)
    checked = task_args.check('cert_verification', 'pep493.https.cert_verification', dict(verify='enable', root=str(root)))
    request = dict(module='cert_verification', params=checked.params, paths=checked.paths, env_fallbacks=checked.env_fallbacks,
                   no_log_values=[], no_log_flags=checked.no_log_flags, aliases={}, warnings=[], deprecations=[],
                   supports_check_mode=True,
                   internal=dict(module_name='pep493.https.cert_verification', check_mode=False, diff=False, no_log=True,
                                 debug=False, verbosity=0, selinux_special_fs=[], syslog_facility='LOG_USER',
                                 shell_executable='/bin/sh'))
    payload = runner_payload.script('cert_verification', request)
    assert str(root).encode('ascii') not in payload  # inside, packed: not even readable in the script
    child = subprocess.Popen([python], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path))
    out, err = child.communicate(payload)
    assert (child.returncode, err) == (0, b'')
    result = json.loads(out.decode('utf-8'))
    assert result['changed'] is True and result['verify'] == 'enable'
    assert os.listdir(str(tmp_path / 'local' / runner_payload.CACHE_FOLDER)) == ['cert_verification.sources']


@pytest.mark.parametrize('python', _interpreters())
def test_ca_trust_runs_through_the_runner_as_through_its_own_payload(tmp_path, monkeypatch, python):
    """The policy's first module on RHEL 7 from 2.19+: the runner's stand-in must carry ca_trust's backend
    (the certificate reader without cryptography) and run it on the target's Python."""
    from ansible_collections.pep493.https.tests.unit import ca_pki
    monkeypatch.setattr(C, 'DEFAULT_LOCAL_TMP', str(tmp_path / 'local'))
    root = str(tmp_path / 'root')
    ca_pki.lay_out(root, 'rhel')
    checked = task_args.check('ca_trust', 'pep493.https.ca_trust', dict(root=root, cas=[dict(name='acme', content=ca_pki.text('acme'))]))
    assert checked.refusal is None
    request = dict(module='ca_trust', params=checked.params, paths=checked.paths, env_fallbacks=checked.env_fallbacks,
                   no_log_values=[], no_log_flags=checked.no_log_flags, aliases={}, warnings=[], deprecations=[],
                   supports_check_mode=True,
                   internal=dict(module_name='pep493.https.ca_trust', check_mode=False, diff=False, no_log=True,
                                 debug=False, verbosity=0, selinux_special_fs=[], syslog_facility='LOG_USER',
                                 shell_executable='/bin/sh'))
    child = subprocess.Popen([python], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path))
    out, err = child.communicate(runner_payload.script('ca_trust', request))
    assert (child.returncode, err) == (0, b'')
    result = json.loads(out.decode('utf-8'))
    assert (result['changed'], result['family'], result['update_status']) == (True, 'rhel', 'pending')
    assert [(ca['name'], ca['action']) for ca in result['cas']] == [('acme', 'created')]
    assert os.path.exists(os.path.join(root, ca_pki.RHEL_ANCHORS, 'acme.pem'))
