# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host model: one view of a host that every module shares.

``Host(files, runtime)`` joins the layers: the host's files (hostfiles), its service units
(units), the environment each service's processes get (service_env), what reaches Python 2 in
them (effect), and, when systemd runs, what is running (runtime). ``Host.service(name)`` is a
Service with all of it: its unit and names, its configuration, its environment, the programs
and interpreters it runs, its state and processes. Nothing here writes or runs anything.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._host import code_usage
from ansible_collections.pep493.https.plugins.module_utils._host import effect as effects
from ansible_collections.pep493.https.plugins.module_utils._host import environment as service_env
from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.plugins.module_utils._host import runtime as runtimes
from ansible_collections.pep493.https.plugins.module_utils._host import units
from ansible_collections.pep493.https.plugins.module_utils._syntax import envfile
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

VARIABLE = envfile.VARIABLE
_RELEVANT = (b'Environment', VARIABLE.encode('ascii'))


class Runtime(object):
    """What systemd says is running. ``manager``: a runtime.Manager; ``loaded``: {unit: (load,
    active, sub)} of ``systemctl list-units``; ``processes``: a runtime.ProcessTable;
    ``pid1_env``: PID 1's environment or None; ``main_pids``: {unit: MainPID} systemd was asked
    for (units whose main process the process tree does not tell)."""

    def __init__(self, manager=None, loaded=None, processes=None, pid1_env=None, main_pids=None):
        self.manager = manager
        self.loaded = loaded if loaded is not None else {}
        self.processes = processes
        self.pid1_env = pid1_env
        self.main_pids = main_pids if main_pids is not None else {}


class Service(object):
    """One service unit, modelled: ``unit`` (units.Unit: id, names, files, load state),
    ``config`` (service_env.UnitConfig), ``environment`` (service_env.ServiceEnvironment),
    ``effect`` (effect.Effect: the commands, the interpreters they end in, ``effective``), and
    when systemd runs, ``state`` ((load, active, sub) or None when not loaded), ``processes``
    (PIDs of its cgroup), ``main_pid``."""

    def __init__(self, unit, config, environment, effect):
        self.unit = unit
        self.config = config
        self.environment = environment
        self.effect = effect
        self.state = None
        self.processes = []
        self.main_pid = None
        self._mentions = None

    @property
    def name(self):
        return self.unit.id

    def variable(self):
        """(value, known, Setting): PYTHONHTTPSVERIFY as a process of the service gets it at start
        (None when unset, or when it cannot start or be told; ``known`` says which)."""
        if self.unit.load_state == units.MASKED or not self.environment.starts or self.config.fatal:
            return None, True, None
        value, setting = self.environment.get(VARIABLE)
        if isinstance(value, service_env.Unknown):
            return None, False, setting
        return value, True, setting

    def unknown_why(self):
        value, _setting = self.environment.get(VARIABLE)
        return value.why if isinstance(value, service_env.Unknown) else None

    def mentions(self):
        """Files of the service (unit, drop-ins, environment files) that name the variable."""
        if self._mentions is None:
            self._mentions = sorted(set(self.config.mentioned_in + self.environment.mentioned_in))
        return self._mentions

    def expected_main_value(self):
        """The variable a newly started main process would have (env wrappers applied)."""
        value, known, _setting = self.variable()
        if not known:
            return None
        return effects.main_process_value(self.effect, value)


class Host(object):
    """The model of one host (``files``: hostfiles.HostFiles, possibly with planned files in
    its overlay), with what is running when ``runtime`` is given."""

    def __init__(self, files, runtime=None):
        self.files = files
        self.runtime = runtime
        self._errors = []
        manager = runtime.manager if runtime is not None else None
        search_path = manager.unit_path if manager is not None and manager.unit_path else units.UNIT_SEARCH_PATH
        self.tree = units.UnitTree(files, search_path)
        if manager is not None and manager.environment is not None:
            self.manager_env = manager.environment
        else:
            self.manager_env = hostwide.default_environment(files, self._errors)
        self.pid1_env = runtime.pid1_env if runtime is not None else None
        self.pam_sets_variable = hostwide.pam_sets_variable(files)
        self._services = {}
        self._effects = {}
        self._usages = {}

    @property
    def errors(self):
        """Folders, links and files that could not be read (the model is complete otherwise)."""
        return self._errors + self.tree.errors

    def service(self, name):
        """The Service systemd loads for ``name`` (an alias and its unit are one Service)."""
        unit_id = self.tree.unit_id(name)
        if unit_id not in self._services:
            self._services[unit_id] = self._build(self.tree.load(name))
        return self._services[unit_id]

    def reach(self, service):
        """(effective, kind) of the variable in ``service``: the effect of its commands (effect.py),
        and False with NOT_GOVERNED when they run Python 2 code whose HTTPS the variable does not
        govern (its code walked: code_usage). The one rule every module applies."""
        effect = service.effect
        if effect.effective is not True:
            return effect.effective, effect.kind
        if self.usage(service)['governed'] is False:
            return False, effects.NOT_GOVERNED
        return True, effect.kind

    def usage(self, service):
        """code_usage.service_usage of the service's Python 2 code, over its interpreter's usual
        module folders (nothing is run), once per service."""
        if service.unit.id not in self._usages:
            commands = [c for c in service.effect.commands if c.python == 2]
            interpreter = commands[0].program if commands else None
            search_path = code_usage.default_search_path(interpreter, self.files) if interpreter else []
            self._usages[service.unit.id] = code_usage.service_usage([c.script for c in commands], self.files,
                                                                     search_path)
        return self._usages[service.unit.id]

    def may_matter(self, name):
        """Cheap test before service(): whether ``name``'s files could set or name the variable
        (they mention it, or set some environment)."""
        unit = self.tree.load(name)
        return any(any(word in data for word in _RELEVANT) for _path, _kind, data in unit.files)

    def _build(self, unit):
        if unit.load_state == units.LOADED:
            config = service_env.unit_config(unit)
        else:
            config = service_env.UnitConfig()
            for path, _kind, data in unit.files:
                if envfile.mentions(data):
                    config.mentioned_in.append(path)
        environment = service_env.service_environment(config, self.files, self.manager_env, self.pid1_env,
                                                      pam_sets_variable=self.pam_sets_variable)
        if unit.load_state == units.MASKED:
            effect = effects.Effect(False, effects.MASKED)
        elif unit.load_state != units.LOADED:
            effect = effects.Effect(None, effects.NOT_LOADED)
        elif config.fatal or not environment.starts:
            effect = effects.Effect(False, effects.CANNOT_START)
        else:
            commands = config.exec_start_pre + config.exec_start
            values = {}
            if any('$' in arg for command in commands for arg in command.argv):
                values = dict((name, value) for name, (value, _setting) in environment.variables.items())
            effect = effects.service_effect(commands, self.files, values, config.root_directory, self._effects)
        service = Service(unit, config, environment, effect)
        self._attach_runtime(service)
        return service

    def _attach_runtime(self, service):
        if self.runtime is None:
            return
        service.state = self.runtime.loaded.get(service.unit.id)
        table = self.runtime.processes
        if table is not None:
            service.processes = sorted(p.pid for p in table.by_unit.get(service.unit.id, ()))
        if service.unit.id in self.runtime.main_pids:
            service.main_pid = self.runtime.main_pids[service.unit.id]
        elif table is not None and service.state and service.state[1] in runtimes.RUNNING_STATES:
            service.main_pid = table.main_pid(service.unit.id)[0]

    def units_to_ask(self, names):
        """Running services among ``names`` whose main process the process tree does not tell."""
        table = self.runtime.processes if self.runtime is not None else None
        if table is None:
            return []
        asked = []
        for name in names:
            state = self.runtime.loaded.get(name)
            if state and state[1] in runtimes.RUNNING_STATES and table.main_pid(name)[1]:
                asked.append(name)
        return asked

    def needs_daemon_reload(self, service):
        """Whether the service's files changed since systemd loaded them (None without systemd)."""
        if self.runtime is None or self.runtime.manager is None or service.state is None:
            return None
        if service.unit.load_state == units.MASKED:
            # systemd 247 compares the drop-ins it loaded with none at all for a masked unit
            return bool(service.unit.dropins)
        paths = ([service.unit.fragment] if service.unit.fragment else []) + service.unit.dropins
        return runtimes.changed_since(self.files, paths + service.unit.dropin_dirs, self.runtime.manager.loaded_at)

    def candidates(self):
        """Names of every service this host has files for, and of every loaded one."""
        names = set(self.tree.service_names())
        names.update(self.runtime.loaded if self.runtime is not None else ())
        return sorted(n for n in names if unit_names.unit_name_parts(n) is not None)
