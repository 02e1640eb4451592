# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way a module asks systemd: ``systemctl`` (and ``busctl``) run through the module,
always with the same environment (C locale, UTC, no pager, no colours), so that every module
parses the same output.

``Systemctl(module, root)`` is None-safe: without a running systemd (image builds, chroots,
containers without systemd) or under ``root`` it runs nothing and says so (``running``).
Asking what runs costs a constant number of processes whatever the number of units: busctl
for the manager, ``systemctl list-units``, one pass over ``/proc``, and ``systemctl show
MainPID`` only for the services whose process tree does not tell.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import model
from ansible_collections.pep493.https.plugins.module_utils._host import runtime as runtimes
from ansible_collections.pep493.https.plugins.module_utils._syntax import systemd

ENVIRONMENT = dict(LC_ALL='C', TZ='UTC', SYSTEMD_PAGER='', SYSTEMD_COLORS='0')
# busctl prints the manager's properties exactly (systemctl rounds timestamps to seconds)
BUSCTL_MANAGER = ['--json=short', 'get-property', 'org.freedesktop.systemd1', '/org/freedesktop/systemd1',
                  'org.freedesktop.systemd1.Manager'] + list(runtimes.MANAGER_PROPERTIES)
SYSTEMCTL_MANAGER = ['show', '--property=' + ','.join(runtimes.MANAGER_PROPERTIES)]
LIST_UNITS = ['list-units', '--all', '--plain', '--no-legend', '--full', '--type=service']


class Systemctl(object):
    """systemctl of this host for ``module`` (an AnsibleModule: run_command, get_bin_path).

    ``running``: systemd is PID 1 and no ``root`` redirects the files; ``path``: systemctl, or
    None when systemd does not run or systemctl is not in PATH (``missing`` says the latter).
    """

    def __init__(self, module, root=None):
        self.module = module
        self.running = runtimes.systemd_running(root)
        self.path = module.get_bin_path('systemctl') if self.running else None
        self.missing = self.running and self.path is None

    def run(self, args):
        """(rc, stdout, stderr) of ``systemctl ARGS``."""
        return self.run_program([self.path] + list(args))

    def run_program(self, argv):
        return self.module.run_command(argv, environ_update=ENVIRONMENT)

    def loaded_units(self):
        """({unit: (load, active, sub)} of one ``systemctl list-units``, None), or (None, why)."""
        rc, out, err = self.run(LIST_UNITS)
        if rc != 0:
            return None, 'systemctl list-units failed (exit %s): %s' % (rc, (err or out).strip())
        return systemd.parse_list_units(out), None

    def runtime(self, scan_errors, proc=None):
        """A model.Runtime of this host: the manager, the loaded services, the processes; what
        could not be asked is added to ``scan_errors``."""
        manager = None
        busctl = self.module.get_bin_path('busctl')
        if busctl:
            rc, out, _err = self.run_program([busctl] + BUSCTL_MANAGER)
            manager = runtimes.parse_manager_json(out) if rc == 0 else None
        if manager is None:
            rc, out, err = self.run(SYSTEMCTL_MANAGER)
            if rc == 0:
                manager = runtimes.parse_manager(out)
            else:
                scan_errors.append("systemctl show (the manager's environment) failed (exit %s): %s"
                                   % (rc, (err or out).strip()))
        loaded, error = self.loaded_units()
        if error:
            scan_errors.append('%s; services reported from files only' % error)
        if manager is not None:
            manager.loaded_at = runtimes.last_load(hostfiles.HostFiles(), manager.loaded_at)
        return model.Runtime(manager, loaded, runtimes.ProcessTable(proc), runtimes.read_pid1_environment(proc))

    def ask_main_pids(self, host, scan_errors):
        """MainPID from systemd for the running services of ``host`` (a model.Host) whose process
        tree has several roots."""
        asked = host.units_to_ask(sorted(host.runtime.loaded))
        if not asked:
            return
        rc, out, err = self.run(['show', '--property=Id,MainPID', '--'] + asked)
        if rc != 0:
            scan_errors.append('systemctl show MainPID failed (exit %s): %s' % (rc, (err or out).strip()))
            return
        for block in systemd.parse_show(out):
            try:
                pid = int(block.get('MainPID', '0'))
            except ValueError:
                continue
            if block.get('Id'):
                host.runtime.main_pids[block['Id']] = pid if pid > 0 else None
