# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which HTTPS stacks a service's Python 2 code uses, and so whether PEP 493's knobs reach it.

The code each Python 2 command runs (a script, ``-m`` module or ``-c`` text: effect.CommandEffect
``script``) is walked with stacks.scan_program over the service interpreter's module path - the
one its process reports (package_probe) or, where nothing runs, the usual folders of that
interpreter - read-only and within limits. The answer, ``governed``: True when the code reaches
the standard library's HTTPS (urllib2, httplib, xmlrpclib, urllib), the one thing the knobs
govern; False when the walk saw all of it and it does not (requests, urllib3 or raw ssl only, or
no HTTPS at all); None when that cannot be told, with the reason. The forecast and the audit use
the same answer.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import posixpath
import time

from ansible_collections.pep493.https.plugins.module_utils._syntax import https_stacks as stacks
from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles

# a walk is bounded: files, bytes, depth of imports, and a time of its own within the module's budget
LIMITS = dict(max_files=300, max_bytes=8 * 1024 * 1024, max_depth=8)
WALK_SECONDS = 10.0
# A compiled extension module does not import urllib2: that the walk cannot read it changes nothing.
HARMLESS_PARTS = ('compiled',)
CODE_PATH = '/<python -c>'


def default_search_path(interpreter, files, major_minor='2.7'):
    """The folders a Python 2 finds its modules in when nothing tells otherwise: its library and
    the site folders Debian, RHEL and a source build (``<prefix>/lib``) use, those that exist."""
    prefixes = ['/usr', '/usr/local']
    try:
        real = files.resolve(interpreter).host if interpreter else None
    except hostfiles.HostFileError:
        real = None
    if real and posixpath.basename(posixpath.dirname(real)) == 'bin':
        prefix = posixpath.dirname(posixpath.dirname(real))
        if prefix not in prefixes:
            prefixes.insert(0, prefix)
    found = []
    for prefix in prefixes:
        for lib in ('lib', 'lib64'):
            base = '%s/%s/python%s' % (prefix, lib, major_minor)
            for folder in (base, base + '/lib-dynload', base + '/dist-packages', base + '/site-packages'):
                if folder not in found and files.is_dir(folder):
                    found.append(folder)
    return found


def service_usage(scripts, files, search_path, packages=None, deadline=None, working_directory=None):
    """{governed, why, stacks (per stack: stacks.stack_verdict_inputs), complete, scanned} of the
    code the service's Python 2 commands run (``scripts``, effect.CommandEffect.script each).

    ``packages``: what the interpreter reported (package_probe), whose ``path`` ``search_path``
    then is; without it ``search_path`` is a guess (default_search_path), and a module not found
    on it may be somewhere the guess does not look: the answer is then not complete."""
    deadline = deadline if deadline is not None else time.time() + WALK_SECONDS
    if not scripts:
        return _unknown('no Python 2 command of it is known to run code')
    scans = []
    for script in scripts:
        if script is None:
            return _unknown('a Python 2 command reads its code from its standard input, which cannot be read')
        kind, value = script
        limits = dict(LIMITS, deadline=max(deadline, time.time() + 0.1))
        path = list(search_path)
        if kind == 'module' and working_directory:
            path.insert(0, working_directory)
        if kind == 'code':
            scans.append(stacks.scan_program(CODE_PATH, _code_reader(files, value), path, limits,
                                             list_dir=_lister(files)))
        elif kind == 'module':
            scans.append(stacks.scan_program(value, _reader(files), path, limits, as_module=True,
                                             list_dir=_lister(files)))
        else:
            program = value if value.startswith('/') else posixpath.join(working_directory or '/', value)
            scans.append(stacks.scan_program(program, _reader(files), path, limits, list_dir=_lister(files)))
    merged = _merge(scans, path_known=packages is not None)
    inputs = stacks.stack_verdict_inputs(merged, packages)
    governed = stacks.knobs_reach(inputs)
    if governed is True:
        evidence = inputs[stacks.STDLIB]['evidence'][0]
        why = 'it uses %s (%s line %s)' % (evidence['imported'], evidence['file'], evidence['line'])
    elif governed is False:
        used = [name for name in stacks.STACKS if inputs[name]['used']]
        why = ('it uses %s, which PYTHONHTTPSVERIFY and the cfg file do not govern' % ', '.join(used) if used
               else 'its code uses no HTTPS client')
    else:
        why = _partial_why(merged, inputs)
    return dict(governed=governed, why=why, complete=merged['complete'], scanned=merged['files_read'][:20],
                stacks=dict((name, dict(used=entry['used'], governed=entry['governed_by_knobs'],
                                        verifies_without_knobs=entry['verifies_today_without_knobs'],
                                        trust=entry['trust'], notes=entry['notes'][:3]))
                            for name, entry in inputs.items()))


def _unknown(why):
    return dict(governed=None, why=why, complete=False, scanned=[], stacks={})


def _merge(scans, path_known):
    merged = dict(complete=True, stacks={}, hints=[], partial=[], files_read=[], python_major=2, cut_short=None)
    for scan in scans:
        if not path_known:
            for missing in scan['not_found']:
                merged['partial'].append(dict(missing, reason='not-found', path=None,
                                              detail='not in the folders where its interpreter usually looks'))
        for name, entries in scan['stacks'].items():
            merged['stacks'].setdefault(name, []).extend(entries)
        merged['hints'].extend(scan['hints'])
        parts = [part for part in scan['partial'] if part.get('reason') not in HARMLESS_PARTS]
        merged['partial'].extend(parts)
        merged['files_read'].extend(scan['files_read'])
        if merged['partial']:
            merged['complete'] = False
        merged['cut_short'] = merged['cut_short'] or scan['cut_short']
        # the walk's own "complete" counts compiled modules as gaps: they are not, for this question
        if scan['cut_short'] or parts or scan.get('unread'):
            merged['complete'] = False
    return merged


def _partial_why(merged, inputs):
    if merged['cut_short']:
        return 'the walk of its code stopped at a limit (%s) before it saw all of it' % merged['cut_short']
    for part in merged['partial']:
        where = part.get('module') or part.get('path') or part.get('file')
        return 'its code could not all be read (%s%s)' % (part['reason'], ': %s' % where if where else '')
    notes = inputs[stacks.STDLIB]['notes']
    return notes[0] if notes else 'whether its code uses the standard library HTTPS cannot be told'


def _reader(files):
    """files.read as the walk takes it: a file the host model refuses (a FIFO, too large, a
    link above root) is an unreadable file, not an error of the walk."""
    def read(path):
        try:
            return files.read(path)
        except hostfiles.HostFileError as exc:
            raise IOError(str(exc))
    return read


def _code_reader(files, code):
    reader = _reader(files)

    def read(path):
        if path == CODE_PATH:
            return code.encode('utf-8') if not isinstance(code, bytes) else code
        return reader(path)
    return read


def _lister(files):
    def list_dir(path):
        try:
            return files.listdir(path)
        except hostfiles.HostFileError as exc:
            if exc.reason == 'not-a-folder':
                raise OSError(errno.ENOTDIR, str(exc))
            raise OSError(errno.EACCES, str(exc))
    return list_dir
