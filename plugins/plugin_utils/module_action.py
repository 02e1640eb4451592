# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action plugin every module of the collection has (and the policy's, for each module it runs):
the module's arguments are checked on the controller, then the module runs through the collection's
runner: one small script carrying only the collection's code (a stand-in for the part of
AnsibleModule the modules use, behaving as ansible-core 2.16's does, and the module_utils the
module needs) and the arguments, on every target Python from 2.7.5 to 3.14 and from every
controller alike. It is also the cheaper way: ansible-core's own payload compiles ``basic.py`` and
its imports on the target at every call (benchmarks/runner_cost.py, benchmarks/fleet_sim.py).

ansible-core's own payload runs an ``async`` task (the runner runs in the foreground only), on a
target whose Python the controller's ansible-core supports: one probe of the interpreter's version
first decides; elsewhere the task fails, saying why. ``PEP493_HTTPS_RUNNER=never`` runs every call
through ansible-core's own payload (the reference of the differential check, tests/runner).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os

from ansible import constants as C
from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.executor import module_common
from ansible.executor.interpreter_discovery import InterpreterDiscoveryRequiredError, discover_interpreter
from ansible.module_utils import basic
from ansible.plugins.action import ActionBase
from ansible.release import __version__
from ansible.utils.display import Display
from ansible.utils.vars import merge_hash

from ansible_collections.pep493.https.plugins.plugin_utils import runner_payload, task_args

display = Display()

# auto (the default): the runner, and for an async task ansible-core's own payload where it runs;
# always: the runner, async refused; never: ansible-core's own payload (tests/runner's reference)
RUNNER_SETTING = 'PEP493_HTTPS_RUNNER'
RUNNER_MODES = ('auto', 'always', 'never')
# Looked for after ansible-core's own list, which from 2.19 on stops at 3.9 (3.8): the Pythons of
# RHEL/CentOS 7 and 8, in the order ansible-core 2.16 looked for them
OLD_PYTHONS = ['python3.8', 'python3.7', 'python3.6', '/usr/bin/python3', '/usr/libexec/platform-python',
               'python2.7', '/usr/bin/python', 'python']
FALLBACK_VAR = 'ansible_interpreter_python_fallback'
RUNNER_FILE = 'pep493_https_%s.py'
COLLECTION = 'pep493.https.'


def module_args_json(args):
    """``args`` as the JSON ansible-core sends a module (vaulted and tagged values made plain)."""
    try:
        from ansible.module_utils.common.json import Direction, get_module_encoder
    except ImportError:  # before 2.19
        from ansible.module_utils.common.json import AnsibleJSONEncoder
        return json.dumps(args, cls=AnsibleJSONEncoder, vault_to_text=True)
    return json.dumps(args, cls=get_module_encoder('legacy', Direction.CONTROLLER_TO_MODULE))


def controller_runs(version):
    """Whether this ansible-core's own payload runs on a target Python ``version`` (a tuple)."""
    minimum = getattr(basic, '_PY_MIN', None)
    if not isinstance(minimum, tuple):  # before 2.19: 2.7 and 3.6+
        return version >= (2, 7)
    return version >= minimum


class CollectionModules(ActionBase):
    """An action that runs the collection's modules on the host, each the way the host needs
    (``run_collection_module``): the modules' own actions, and the policy's, which runs several."""

    def run_collection_module(self, module, args, task_vars, wrap_async=False, action_name=None):
        """The result of the collection's module ``module`` (its short name) run with ``args``;
        ``action_name`` is the name the task gave it (the module's full name by default)."""
        action_name = str(action_name or COLLECTION + module)
        try:
            checked = task_args.check(module, action_name, json.loads(module_args_json(args)))
        except ValueError as exc:
            raise AnsibleError('%s: %s (a defect of the collection)' % (action_name, exc))
        if checked.refusal is not None:
            return self._module_result(dict(rc=1, stdout=json.dumps(checked.refusal), stderr=''))
        return self._execute(module, action_name, checked, args, task_vars, wrap_async)

    # --- which way -------------------------------------------------------------------------------
    def _execute(self, module, action_name, checked, args, task_vars, wrap_async):
        mode = os.environ.get(RUNNER_SETTING, 'auto')
        if mode not in RUNNER_MODES:
            raise AnsibleActionFail('%s=%r: use one of %s' % (RUNNER_SETTING, mode, ', '.join(RUNNER_MODES)))
        if mode == 'never':
            return self._own_payload(action_name, args, task_vars, wrap_async)
        interpreter, discovery = self._configured_interpreter(task_vars)
        interpreter = interpreter or self._discover(task_vars, discovery)
        if wrap_async and mode == 'auto' and not self._probe_refuses(interpreter):
            return self._own_payload(action_name, args, task_vars, wrap_async)
        return self._through_runner((module, action_name, checked), interpreter, task_vars, wrap_async)

    def _own_payload(self, action_name, args, task_vars, wrap_async):
        with self._old_pythons_too(task_vars):
            return self._execute_module(module_name=action_name, module_args=dict(args), task_vars=task_vars,
                                        wrap_async=wrap_async)

    def _use_vars(self, task_vars):
        if self._task.delegate_to:
            return task_vars['ansible_delegated_vars'][self._task.delegate_to]
        return task_vars

    def _configured_interpreter(self, task_vars):
        """(the configured or already discovered interpreter, None) or (None, the discovery mode)."""
        try:
            return module_common._get_shebang('/usr/bin/python', self._use_vars(task_vars), self._templar,
                                              remote_is_local=bool(getattr(self._connection, '_remote_is_local', False)))[1], None
        except InterpreterDiscoveryRequiredError as exc:
            return None, exc.discovery_mode

    @contextlib.contextmanager
    def _old_pythons_too(self, task_vars):
        """Interpreter discovery also finds RHEL 7's and 8's Pythons when the controller's own list finds
        none (only where the list is ansible-core's default: a list set for a host is left as it is)."""
        use_vars = self._use_vars(task_vars)
        configured = list(C.config.get_config_value('INTERPRETER_PYTHON_FALLBACK', variables=use_vars) or [])
        extended = configured + [name for name in OLD_PYTHONS if name not in configured]
        if FALLBACK_VAR in use_vars or extended == configured:
            yield
            return
        use_vars[FALLBACK_VAR] = extended
        try:
            yield
        finally:
            del use_vars[FALLBACK_VAR]

    def _discover(self, task_vars, discovery_mode):
        """Interpreter discovery, as ansible-core runs it before building its own payload."""
        key = 'discovered_interpreter_python'
        use_vars = self._use_vars(task_vars)
        with self._old_pythons_too(task_vars):
            found = discover_interpreter(action=self, interpreter_name='python', discovery_mode=discovery_mode,
                                         task_vars=use_vars)
        use_vars.setdefault('ansible_facts', {})[key] = found
        if not self._task.delegate_to or self._task.delegate_facts:
            task_vars.setdefault('ansible_facts', {})[key] = found
            self._discovered_interpreter_key = key
        self._discovered_interpreter = found
        return found

    def _probe_refuses(self, interpreter):
        """Whether the controller's own payload cannot run on ``interpreter`` (asked for an async task)."""
        command = self._connection._shell.build_module_command(
            '', '#!' + interpreter, '') + " -c 'import sys; print(\"%d %d\" % sys.version_info[:2])'"
        found = self._low_level_execute_command(command, sudoable=False)
        try:
            version = tuple(int(part) for part in found['stdout'].split()[-2:])
        except (ValueError, IndexError):
            return False  # no answer: ansible-core's own payload gives its own error
        return len(version) == 2 and not controller_runs(version)

    # --- the runner ------------------------------------------------------------------------------
    def _request(self, module, action_name, checked, task_vars):
        no_target_syslog = C.config.get_config_value('DEFAULT_NO_TARGET_SYSLOG', variables=task_vars)
        return dict(
            module=module, params=checked.params, paths=checked.paths, env_fallbacks=checked.env_fallbacks,
            no_log_values=checked.no_log_values, no_log_flags=checked.no_log_flags, aliases=checked.aliases,
            warnings=checked.warnings, deprecations=checked.deprecations, supports_check_mode=checked.supports_check_mode,
            internal=dict(
                module_name=action_name, check_mode=bool(self._task.check_mode), diff=bool(self._task.diff),
                no_log=bool(self._task.no_log or no_target_syslog), debug=bool(C.DEFAULT_DEBUG),
                verbosity=display.verbosity, selinux_special_fs=list(C.DEFAULT_SELINUX_SPECIAL_FS),
                syslog_facility=str(task_vars.get('ansible_syslog_facility', C.DEFAULT_SYSLOG_FACILITY)),
                shell_executable=str(self._play_context.executable)))

    def _through_runner(self, call, interpreter, task_vars, wrap_async):
        module, action_name, checked = call
        if wrap_async:
            raise AnsibleActionFail(
                '%s cannot run asynchronously (async: %s) with %s on this host: ansible-core %s cannot run its own '
                'module payload on that Python, and the collection runner that runs the module there runs in the '
                'foreground only. Remove async (and poll) from the task, or point ansible_python_interpreter at a '
                'Python this ansible-core supports.' % (action_name, self._task.async_val, interpreter, __version__))
        try:
            payload = runner_payload.script(module, self._request(module, action_name, checked, task_vars))
        except runner_payload.PayloadError as exc:
            raise AnsibleError('%s: %s (a defect of the collection)' % (action_name, exc))
        self._used_interpreter = '#!' + interpreter
        environment = self._compute_environment_string()
        shell = self._connection._shell
        if self._is_pipelining_enabled('new'):
            display.vvv('%s: the collection runner, pipelined' % action_name)
            command = shell.build_module_command(environment, self._used_interpreter, '')
            res = self._low_level_execute_command(command, sudoable=True, in_data=payload)
        else:
            tmpdir = shell.tmpdir or self._make_tmp_path()
            remote = shell.join_path(tmpdir, RUNNER_FILE % module)
            self._transfer_data(remote, payload)
            if self._is_become_unprivileged():
                self._fixup_perms2([tmpdir, remote], self._get_remote_user(), execute=False)
            else:
                done = self._remote_chmod([tmpdir, remote], 'u=rwx,go=')
                if done['rc'] != 0:
                    raise AnsibleError('Failed to set permissions on remote files (rc: %s, err: %s)' % (done['rc'], done['stderr']))
            command = shell.build_module_command(environment, self._used_interpreter, remote)
            res = self._low_level_execute_command(command, sudoable=True)
        return self._module_result(res)

    def _module_result(self, res):
        """The runner's output read as this ansible-core reads a module's output."""
        if len(inspect.signature(self._parse_returned_data).parameters) == 1:  # before 2.19
            from ansible.utils.unsafe_proxy import wrap_var
            from ansible.vars.clean import remove_internal_keys
            data = self._parse_returned_data(res)
            if data.pop('_ansible_suppress_tmpdir_delete', False):
                self._cleanup_remote_tmp = False
            remove_internal_keys(data)
            self._add_discovery(data)
            for key, found in (('warnings', '_discovery_warnings'), ('deprecations', '_discovery_deprecation_warnings')):
                if getattr(self, found, None):
                    data[key] = (data.get(key) or []) + list(getattr(self, found))
            return wrap_var(data)
        parsed = self._parse_returned_data(res, 'legacy')
        if isinstance(parsed, dict):  # 2.19, 2.20
            from ansible.vars.clean import remove_internal_keys
            if parsed.pop('_ansible_suppress_tmpdir_delete', False):
                self._cleanup_remote_tmp = False
            remove_internal_keys(parsed)
            self._add_discovery(parsed)
            return parsed
        if parsed.suppress_tmpdir_delete:  # 2.21+: a unified task result
            self._cleanup_remote_tmp = False
        parsed.remove_internal_keys()
        if self._discovered_interpreter_key:
            parsed.set_fact(self._discovered_interpreter_key, self._discovered_interpreter)
        return parsed.as_result_dict(for_round_trip=True)

    def _add_discovery(self, data):
        if self._discovered_interpreter_key:
            if data.get('ansible_facts') is None:
                data['ansible_facts'] = {}
            data['ansible_facts'][self._discovered_interpreter_key] = self._discovered_interpreter


class ModuleAction(CollectionModules):
    """The action of one module; subclasses name it: ``MODULE = 'cert_verification'``."""

    MODULE = None
    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars if task_vars is not None else {}
        result = super().run(tmp, task_vars)
        del tmp
        wrap_async = bool(self._task.async_val) and not getattr(self._connection, 'has_native_async', False)
        try:
            return merge_hash(result, self.run_collection_module(self.MODULE, dict(self._task.args), task_vars, wrap_async,
                                                                 action_name=self._task.action))
        finally:
            if not wrap_async:
                self._remove_tmp_path(self._connection._shell.tmpdir)
