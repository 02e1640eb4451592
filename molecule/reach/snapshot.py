# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's files on the reach scenario's host, as JSON on stdout (run there by
molecule/reach/passes with the host's only Python, 2.7): for the host and each tree, every file
under etc/python and every drop-in folder's files, with mode and content. Backup names (in the
record of the backups too), the time a history record was made and the UTC time of each backup
in that record are normalised: they differ between any two runs."""

from __future__ import absolute_import, division, print_function

import json
import os
import re
import stat

ROOTS = ['/', '/srv/reach/2', '/srv/reach/3']
BACKUP = re.compile(r'\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d(?=[.~])')
RECORDED = re.compile(r'\(recorded [^)\n]*\)')
# a line of the backups record: the UTC time a backup was made
UTC_TIME = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z', re.M)


def files_of(root):
    found = {}
    python = os.path.join(root, 'etc', 'python')
    units = os.path.join(root, 'etc', 'systemd', 'system')
    paths = [os.path.join(python, name) for name in os.listdir(python)] if os.path.isdir(python) else []
    for name in sorted(os.listdir(units)) if os.path.isdir(units) else []:
        if name.endswith('.d') and os.path.isdir(os.path.join(units, name)):
            paths.extend(os.path.join(units, name, entry) for entry in os.listdir(os.path.join(units, name)))
    for path in sorted(paths):
        info = os.lstat(path)
        with open(path, 'rb') as handle:
            content = handle.read().decode('utf-8', 'replace')
        name = BACKUP.sub('.BACKUP', os.path.relpath(path, root))
        content = UTC_TIME.sub('TIME', BACKUP.sub('.BACKUP', RECORDED.sub('(recorded TIME)', content)))
        found[name] = dict(mode='%o' % stat.S_IMODE(info.st_mode), content=content)
    return found


print(json.dumps(dict((root, files_of(root)) for root in ROOTS), sort_keys=True))
