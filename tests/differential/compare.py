# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``compare.py WORK``: the audit (WORK/audit.json) against systemd (WORK/units.json, running.json,
restarted.json, recorded.json). Prints each disagreement and a count; exits 1 when there is any.

For every unit: its load state, MainPID, unit file and drop-ins (in systemd's order) as systemd
shows them; for a unit that ran, PYTHONHTTPSVERIFY as its ExecStopPost= recorded it and as
/proc/MainPID/environ has it; whether a restart gives its process another value
(``pending_restart``, against a real restart, after a third of the units changed while running);
whether the variable reaches Python 2 code (never for a masked unit); and that an alias is no
record of its own. A masked unit may go unreported (systemd reads no
unit file for it), but never a unit systemd shows as loaded."""

import json
import os
import sys


def load(work, name):
    with open(os.path.join(work, name)) as handle:
        return json.load(handle)


def disagreements(units, audit, running, restarted, recorded):
    found = []
    for unit in sorted(units):
        record, truth = audit.get(unit), running[unit]
        if record is None:
            # a masked unit's file is not loaded: reported only by a drop-in that mentions the variable
            if not (units[unit]['masked'] and truth['load'] == 'masked'):
                found.append('%s: not reported' % unit)
            continue
        checks = [('load_state', record['load_state'], truth['load']),
                  ('main_pid', record['main_pid'], truth['pid'] or None),
                  ('value_known', record['value_known'], True),
                  ('effective', record['effective'], units[unit]['effective'])]
        if units[unit]['masked']:
            pass                                # never started: nothing was recorded, no file was loaded
        elif unit in recorded:                  # systemd ran its ExecStopPost= with the unit's environment
            checks.append(('value', record['value'], None if recorded[unit] == '__unset__' else recorded[unit]))
            checks.append(('fragment_path', record['fragment_path'], truth['fragment']))
            checks.append(('dropin_paths', record['dropin_paths'], truth['dropins']))
        else:
            found.append('%s: recorded no value (systemd did not run it)' % unit)
        if truth['pid']:
            checks.append(('running_value', record['running_value'],
                           None if truth['environ'] == '__unset__' else truth['environ']))
            after = restarted[unit]
            if after['pid'] and after['pid'] != truth['pid']:   # restarted: did its process get another value?
                checks.append(('pending_restart', record['pending_restart'], after['environ'] != truth['environ']))
            else:
                found.append('%s: the restart gave no new process (MainPID %s)' % (unit, after['pid']))
        if units[unit]['alias'] in audit:
            found.append('%s: its alias %s is reported as a unit of its own' % (unit, units[unit]['alias']))
        command = units[unit]['exec_start']
        found.extend('%s: %s is %r, the host says %r (ExecStart=%s)' % (unit, name, got, want, command)
                     for name, got, want in checks if got != want)
    return found


def main(work):
    units = load(work, 'units.json')
    audit = dict((s['unit'], s) for s in load(work, 'audit.json')['services'])
    found = disagreements(units, audit, load(work, 'running.json'), load(work, 'restarted.json'),
                          load(work, 'recorded.json'))
    pending = sum(1 for unit in units if audit.get(unit, {}).get('pending_restart'))
    print('differential: %d changed while running, %d pending a restart by the audit'
          % (sum(1 for unit in units.values() if unit.get('changed')), pending))
    for line in found:
        print(line)
    print('differential: %d units, %d disagreements' % (len(units), len(found)))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
