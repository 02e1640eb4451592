# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One full-disk or read-only case on a small tmpfs of our own, inside a private mount
namespace (run through ``unshare -m --propagation private``): nothing of the host is mounted
or remounted, and the mount goes away with the process.

Usage: mountcase.py CASE FOLDER; prints one JSON object with what happened.
"""

import errno
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

SHIPPED = b"# Possible values are:\n# 'enable' ...\n\n[https]\nverify=platform_default\n"
OUR_DROPIN = (b'# Managed by pep493.https.service_verification; edits here are overwritten.\n'
              b'# reason: old\n[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n')


def mount(folder, options):
    subprocess.check_call(['mount', '-t', 'tmpfs', '-o', options, 'pep493-faults', folder])


def remount_ro(folder):
    subprocess.check_call(['mount', '-o', 'remount,ro', folder])


def put(path, data):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'wb') as handle:
        handle.write(data)


def fill_blocks(folder):
    fd = os.open(os.path.join(folder, 'filler'), os.O_WRONLY | os.O_CREAT, 0o600)
    chunk = b'\0' * 4096
    try:
        while True:
            os.write(fd, chunk)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)


def fill_inodes(folder):
    index = 0
    try:
        while True:
            open(os.path.join(folder, 'inode%d' % index), 'wb').close()
            index += 1
    except (IOError, OSError) as exc:
        assert exc.errno == errno.ENOSPC, exc


def snapshot(root):
    seen = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            with open(path, 'rb') if os.path.isfile(path) else open(os.devnull, 'rb') as handle:
                seen[os.path.relpath(path, root)] = handle.read().decode('latin-1')
    return seen


CFG = 'etc/python/cert-verification.cfg'
DROPIN = 'etc/systemd/system/legacy-app.service.d/zz-pep493-https.conf'
CASES = {
    # case: (mount options, file to set up, its content, after mount: fill/remount, module, args, check mode)
    'full-cert': ('size=64k', CFG, SHIPPED, fill_blocks, 'cert_verification', dict(verify='enable'), False),
    'full-cert-backup': ('size=64k', CFG, SHIPPED, fill_blocks, 'cert_verification',
                         dict(verify='enable', backup=True), False),
    'full-cert-new': ('size=64k', None, None, fill_blocks, 'cert_verification', dict(verify='enable'), False),
    'inodes-cert': ('size=1m,nr_inodes=16', CFG, SHIPPED, fill_inodes, 'cert_verification',
                    dict(verify='enable'), False),
    'full-service': ('size=64k', DROPIN, OUR_DROPIN, fill_blocks, 'service_verification',
                     dict(name='legacy-app', verify=False, reason='vendor CA'), False),
    'ro-cert': ('size=1m', CFG, SHIPPED, remount_ro, 'cert_verification', dict(verify='enable'), False),
    'ro-cert-new': ('size=1m', None, None, remount_ro, 'cert_verification', dict(verify='enable'), False),
    'ro-cert-check': ('size=1m', CFG, SHIPPED, remount_ro, 'cert_verification', dict(verify='enable'), True),
    'ro-service': ('size=1m', DROPIN, OUR_DROPIN, remount_ro, 'service_verification',
                   dict(name='legacy-app', verify=False, reason='vendor CA'), False),
    'ro-service-absent': ('size=1m', DROPIN, OUR_DROPIN, remount_ro, 'service_verification',
                          dict(name='legacy-app', state='absent'), False),
}


def main():
    case, folder = sys.argv[1], sys.argv[2]
    options, rel, content, after, module, args, check_mode = CASES[case]
    mount(folder, options)
    root = os.path.join(folder, 'root')
    os.mkdir(root)
    if rel:
        put(os.path.join(root, rel), content)
    after(folder)
    before = snapshot(root)
    run = harness.run(module, dict(args, root=root), check_mode=check_mode)
    leftovers = []
    for dirpath, dirs, files in os.walk(root):
        leftovers.extend(harness.temp_leftovers(dirpath))
    print(json.dumps(dict(returncode=run.returncode, result=run.result, stderr=run.err[-2000:],
                          unchanged=snapshot(root) == before, after=snapshot(root),
                          leftovers=leftovers)))


if __name__ == '__main__':
    main()
