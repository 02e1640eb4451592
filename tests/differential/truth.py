# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run inside the container (python3): ``truth.py running UNIT...`` prints, for each unit, what
systemd and the kernel say while it runs (MainPID, states, the unit file and drop-ins systemd
loaded, PYTHONHTTPSVERIFY in /proc/MainPID/environ); ``truth.py recorded`` prints the values the units' ExecStopPost= recorded."""

import json
import os
import subprocess
import sys


def running(units):
    out = {}
    for unit in units:
        shown = subprocess.run(['systemctl', 'show', '-p', 'MainPID,ActiveState,LoadState,FragmentPath,DropInPaths', unit],
                               stdout=subprocess.PIPE, universal_newlines=True, check=False).stdout
        props = dict(line.split('=', 1) for line in shown.splitlines() if '=' in line)
        pid = int(props.get('MainPID') or 0)
        environ = None
        if pid:
            with open('/proc/%d/environ' % pid, 'rb') as handle:
                found = [item.split(b'=', 1)[1] for item in handle.read().split(b'\0')
                         if item.startswith(b'PYTHONHTTPSVERIFY=')]
            environ = found[-1].decode('utf-8', 'replace') if found else '__unset__'
        out[unit] = dict(pid=pid, active=props.get('ActiveState'), load=props.get('LoadState'), environ=environ,
                         fragment=props.get('FragmentPath') or None, dropins=(props.get('DropInPaths') or '').split())
    return out


def recorded():
    out = {}
    for name in os.listdir('/run/pep493-differential'):
        if name.endswith('.value'):
            with open(os.path.join('/run/pep493-differential', name), 'rb') as handle:
                out[name[:-len('.value')]] = handle.read().decode('utf-8', 'replace')
    return out


if __name__ == '__main__':
    print(json.dumps(running(sys.argv[2:]) if sys.argv[1] == 'running' else recorded()))
