# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bounded, read-only walk behind ``stacks.scan_program``: a service's program, then the
modules it imports outside the standard library, found on the service interpreter's sys.path as
Python's path finder would find them, breadth first, until done or a limit is hit. Files come
from an injected reader (the collection's, under its ``root``), so nothing here touches a path
itself; what the walk could not see (a compiled module, a zip, a dynamic import, an unreadable
file) is reported as partial instead of guessed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import math
import numbers
import posixpath
import time
from collections import deque

from ansible_collections.pep493.https.plugins.module_utils._forecast import imports as _imports
from ansible_collections.pep493.https.plugins.module_utils._forecast.imports import imports_in_source
from ansible_collections.pep493.https.plugins.module_utils._forecast.stacks import (
    NOT_WALKED, STDLIB, is_stdlib, stack_of)

LIMITS = ('max_files', 'max_bytes', 'max_depth', 'deadline')
_LISTED = 100                # entries kept in each list of a scan's result (evidence: per stack)
_ZIP_SUFFIXES = ('.zip', '.egg', '.whl', '.pyz')


def check_limits(limits):
    """``limits`` ({max_files, max_bytes, max_depth, deadline}) as numbers, or ValueError: each
    one given, finite and not negative; deadline is a time of the walk's clock (time.time)."""
    checked = {}
    for name in LIMITS:
        value = limits.get(name) if isinstance(limits, dict) else None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError('limit %s: a number is needed, not %r' % (name, value))
        if math.isnan(value) or math.isinf(value) or value < 0:
            raise ValueError('limit %s must be finite and not negative, not %r' % (name, value))
        checked[name] = value if name == 'deadline' else int(value)
    return checked


def scan_program(program, read_file, search_path, limits, as_module=False, list_dir=None, python_major=2,
                 clock=time.time):
    """Walk a service's program and the modules it imports outside the standard library,
    breadth first, within ``limits``; say which HTTPS stacks they import, and where.

    program: the script's path (its folder goes first on the path, as Python puts it; give the
      path with links resolved, as Python 3 and 2 do), or with ``as_module`` the name run by
      ``python -m`` (then ``search_path`` must start with the working directory).
    read_file(path): bytes, None for a missing file, or IOError/OSError.
    search_path: the service interpreter's sys.path (absolute folders; '' and relative entries
      are reported, not guessed).
    list_dir(path): names in a folder, None (or ENOENT) when missing, ENOTDIR for a file (a zip).
      Without it modules are found by reading FOLDER/NAME.py and FOLDER/NAME/__init__.py only:
      compiled modules are not seen, so every module not found makes the answer partial.
    python_major: the service's Python (2 or 3): its standard library and import rules.

    Returns {program, complete, cut_short (the first limit hit, or None), limits_hit, stacks:
    {stack: [{module, imported, file, line, governed}]}, hints: [{hint, file, line, ...}],
    partial: [{reason, module, path, file, line, detail}], files_read, bytes_read, not_found:
    [{module, file, line}], not_walked, unread, python_major}. Lists keep 100 entries at most.
    """
    walk = _Walk(read_file, list_dir, python_major, check_limits(limits), clock)
    return walk.run(program, list(search_path), as_module)


class _Walk(object):

    def __init__(self, read_file, list_dir, python_major, limits, clock):
        self.read_file, self.list_dir, self.python_major = read_file, list_dir, python_major
        self.limits, self.clock = limits, clock
        self.cache, self.listings, self.resolved = {}, {}, {}
        self.queue, self.queued, self.path_changes = deque(), set(), []
        self.stopped = False
        self.search_path = []
        self.result = dict(complete=False, cut_short=None, limits_hit=[], stacks={}, hints=[], partial=[],
                           files_read=[], bytes_read=0, not_found=[], not_walked=[], unread=[],
                           python_major=python_major)

    def run(self, program, search_path, as_module):
        result = self.result
        result['program'] = program
        first = [] if as_module else [posixpath.dirname(program)]
        for entry in first + search_path:
            if entry.startswith('/'):
                self.search_path.append(posixpath.normpath(entry))
            else:
                self.note('partial', dict(reason='relative-path-entry', path=entry, detail='not an absolute folder'))
        if as_module:
            answer = self.resolve(program)
            if answer['kind'] == 'package':
                answer = self.resolve(program + '.__main__')
            self.report(program, answer, None, None)
            for path, name, is_package in answer.get('files', ()):
                self.enqueue(path, name, is_package, 0)
        else:
            self.enqueue(program, '__main__', False, 0)
        while self.queue and not self.stopped:
            if self.over_a_limit():
                break
            path, name, is_package, depth = self.queue.popleft()
            data = self.fetch(path, report=True)
            if data is None:
                continue
            if result['bytes_read'] > self.limits['max_bytes']:
                self.cut('max_bytes', name)
                break
            result['files_read'].append(path)
            self.scan(path, name, is_package, depth, data)
        for _path, name, _is_package, _depth in self.queue:
            self.note('unread', name)
        if self.path_changes and result['not_found']:
            file, line = self.path_changes[0]
            self.note('partial', dict(reason='sys-path-changed', file=file, line=line,
                                      detail='the program changes sys.path and %d imports were not found on it'
                                      % len(result['not_found'])))
        result['complete'] = not result['limits_hit'] and not result['partial']
        return result

    def over_a_limit(self):
        if self.clock() > self.limits['deadline']:
            return self.cut('deadline')
        if len(self.result['files_read']) >= self.limits['max_files']:
            return self.cut('max_files')
        if self.result['bytes_read'] >= self.limits['max_bytes']:
            return self.cut('max_bytes')
        return False

    def cut(self, limit, unread=None):
        if limit not in self.result['limits_hit']:
            self.result['limits_hit'].append(limit)
        self.result['cut_short'] = self.result['cut_short'] or limit
        if unread is not None:
            self.note('unread', unread)
        if limit != 'max_depth':
            self.stopped = True
        return True

    def note(self, key, entry):
        entries = self.result[key]
        if len(entries) < _LISTED and entry not in entries:
            entries.append(entry)

    def fetch(self, path, report=False):
        """Bytes of ``path`` (cached, counted), or None; ``report``: an unreadable file makes the
        answer partial (a module probe that finds nothing does not)."""
        if path not in self.cache:
            try:
                data, error = self.read_file(path), None
            except (IOError, OSError) as exc:
                data, error = None, '%s' % (exc.strerror or exc)
            if data is None and error is None:
                error = 'no such file'
            self.cache[path] = (data, error)
            self.result['bytes_read'] += len(data or b'')
        data, error = self.cache[path]
        if data is None and report:
            self.note('partial', dict(reason='unreadable', path=path, detail=error))
        return data

    def enqueue(self, path, name, is_package, depth):
        if path not in self.queued:
            self.queued.add(path)
            self.queue.append((path, name, is_package, depth))

    # --- one file -------------------------------------------------------------------------

    def scan(self, path, name, is_package, depth, data):
        found = imports_in_source(data)
        if not found['clean']:
            self.note('partial', dict(reason='unclean-source', path=path, detail='; '.join(found['problems'][:3])))
        package = name if is_package else name.rpartition('.')[0]
        urllib_http = False
        for hint in found['hints']:
            hint['file'] = path
            self.note('hints', hint)
            if hint['hint'] == _imports.DYNAMIC_IMPORT:
                self.note('partial', dict(reason='dynamic-import', file=path, line=hint['line'],
                                          detail='%s() with a name the scan cannot read' % hint['call']))
            elif hint['hint'] == _imports.SYS_PATH_CHANGE:
                self.path_changes.append((path, hint['line']))
            elif hint['hint'] == _imports.URLLIB_HTTP:
                urllib_http = True
        for record in found['imports']:
            if not self.stopped and self.clock() > self.limits['deadline']:
                self.cut('deadline')
            if not self.stopped:
                self.follow(record, path, package, depth, found['absolute_import'], urllib_http)
            elif record['level'] or not is_stdlib(record['module'], self.python_major):
                self.note('unread', '.' * record['level'] + record['module'])

    def follow(self, record, file, package, depth, absolute_import, urllib_http):
        line = record['line']
        module = record['module']
        if record['level']:
            parts = package.split('.') if package else []
            if record['level'] > len(parts):
                self.note('not_found', dict(module='.' * record['level'] + module, file=file, line=line))
                return
            base = '.'.join(parts[:len(parts) - record['level'] + 1])
            module = base + '.' + module if module else base
        elif self.python_major == 2 and package and not absolute_import:
            # Python 2 looks in the importing package first ("implicit relative import")
            if self.resolve(package + '.' + module.split('.')[0])['kind'] != 'missing':
                module = package + '.' + module
        names = [name for name in record['names'] if name != '*'] if record['kind'] == 'from' else []
        self.evidence(module, record, file, line, urllib_http)
        if not self.walkable(module):
            return
        answer = self.resolve(module)
        new = [entry for entry in answer.get('files', ()) if entry[0] not in self.queued]
        if new and depth + 1 > self.limits['max_depth']:
            self.cut('max_depth', module)
            return
        self.report(module, answer, file, line)
        for path, name, is_package in new:
            self.enqueue(path, name, is_package, depth + 1)
        if answer['kind'] not in ('package', 'namespace'):
            return
        for name in names:        # from package import name: a submodule, or else an attribute
            sub = self.resolve(module + '.' + name)
            if sub['kind'] == 'missing' or not self.walkable(module + '.' + name):
                continue
            new = [entry for entry in sub.get('files', ()) if entry[0] not in self.queued]
            if new and depth + 1 > self.limits['max_depth']:
                self.cut('max_depth', module + '.' + name)
                continue
            self.report(module + '.' + name, sub, file, line)
            for path, sub_name, is_package in new:
                self.enqueue(path, sub_name, is_package, depth + 1)

    def evidence(self, module, record, file, line, urllib_http):
        names = record['names'] if record['kind'] == 'from' else None
        hits = [stack_of(module, names)] + [stack_of(module + '.' + name) for name in names or () if name != '*']
        if module == 'urllib' and record['kind'] == 'import' and not record['alias'] and not urllib_http:
            hits[0] = None      # 'import urllib' for quote() or urlencode(): no urllib.urlopen in this file
        for hit in hits:
            if hit is None:
                continue
            stack, matched, governed = hit
            if stack == STDLIB:
                governed = bool(governed) and self.python_major == 2
            imported = module + ('.' + ','.join(names) if names else '')
            entries = self.result['stacks'].setdefault(stack, [])
            entry = dict(module=matched, imported=imported, file=file, line=line, governed=governed)
            if len(entries) < _LISTED // 4 and entry not in entries:
                entries.append(entry)

    def walkable(self, module):
        top = module.split('.')[0]
        if is_stdlib(top, self.python_major) or stack_of(module) is not None:
            return False
        if top in NOT_WALKED:
            self.note('not_walked', top)
            return False
        return True

    def report(self, module, answer, file, line):
        where = dict(module=module, file=file, line=line)
        for reason, path in answer.get('passed', ()):
            self.note('partial', dict(where, reason=reason, path=path,
                                      detail='the module may be there: the walk cannot look inside'))
        kind = answer['kind']
        if kind == 'missing':
            self.note('not_found', where)
            if self.list_dir is None:
                self.note('partial', dict(where, reason='no-listing', path=None,
                                          detail='without folder listings a compiled module is not seen'))
        elif kind in ('compiled', 'unlistable'):
            self.note('partial', dict(where, reason=kind, path=answer.get('path'), detail=None))

    # --- finding modules ------------------------------------------------------------------

    def resolve(self, module):
        """{kind: package|module|namespace|compiled|unlistable|missing, files: [(path, name,
        is_package)] Python runs to import it (parents first), folders (of a package), passed:
        [(reason, path entry)] the search went by without seeing into}."""
        if module in self.resolved:
            return self.resolved[module]
        parent, _dot, leaf = module.rpartition('.')
        up = self.resolve(parent) if parent else dict(kind='package', files=[], folders=self.search_path, passed=[])
        if up['kind'] not in ('package', 'namespace'):
            # Python runs what it found of the chain before it fails
            answer = dict(kind='missing' if up['kind'] == 'module' else up['kind'], passed=up.get('passed', []),
                          path=up.get('path'), files=list(up.get('files', ())))
        else:
            answer = self.find(leaf, up['folders'])
            answer['passed'] = up['passed'] + answer['passed']
            answer['files'] = list(up['files'])
            if answer['kind'] in ('package', 'module'):
                answer['files'].append((answer['path'], module, answer['kind'] == 'package'))
            if answer['kind'] == 'package' and self.result['bytes_read'] < self.limits['max_bytes']:
                data = self.fetch(answer['path']) or b''
                if b'extend_path' in data or b'declare_namespace' in data:
                    # pkgutil/pkg_resources namespace: the package spans its folders on the path
                    answer['folders'] = [posixpath.join(folder, leaf) for folder in up['folders']
                                         if self.find(leaf, [folder])['kind'] in ('package', 'namespace')]
        self.resolved[module] = answer
        return answer

    def find(self, name, folders):
        portions, passed = [], []
        for folder in folders:
            hit = self.look(folder, name, passed) if self.list_dir is not None else self.probe(folder, name, passed)
            if hit is not None and hit['kind'] == 'namespace':
                portions.append(hit['folders'][0])
            elif hit is not None:
                hit['passed'] = passed
                return hit
        if portions:
            return dict(kind='namespace', folders=portions, files=[], passed=passed)
        return dict(kind='missing', passed=passed)

    def listing(self, folder):
        """(names, 'folder'|'missing'|'file'|'unlistable')."""
        if folder not in self.listings:
            try:
                names = self.list_dir(folder)
                self.listings[folder] = (frozenset(names), 'folder') if names is not None else ((), 'missing')
            except (IOError, OSError) as exc:
                kind = {errno.ENOENT: 'missing', errno.ENOTDIR: 'file'}.get(exc.errno, 'unlistable')
                self.listings[folder] = ((), kind)
        return self.listings[folder]

    def look(self, folder, name, passed):
        names, kind = self.listing(folder)
        if kind in ('file', 'unlistable'):
            passed.append(('zip' if kind == 'file' else 'unlistable', folder))     # a file on the path: zipimport
            return None
        namespace = None
        if name in names:
            inner, inner_kind = self.listing(posixpath.join(folder, name))
            if inner_kind == 'folder':
                if '__init__.py' in inner:
                    return dict(kind='package', path=posixpath.join(folder, name, '__init__.py'),
                                folders=[posixpath.join(folder, name)])
                compiled = sorted(entry for entry in inner if _compiled(entry, '__init__'))
                if compiled:
                    return dict(kind='compiled', path=posixpath.join(folder, name, compiled[0]))
                namespace = dict(kind='namespace', folders=[posixpath.join(folder, name)])
            elif inner_kind == 'unlistable':
                return dict(kind='unlistable', path=posixpath.join(folder, name))
        # Python's order in one folder: extension modules, then source, then bytecode alone
        extensions = sorted(entry for entry in names if _compiled(entry, name) and entry.endswith('.so'))
        if extensions:
            return dict(kind='compiled', path=posixpath.join(folder, extensions[0]))
        if name + '.py' in names:
            return dict(kind='module', path=posixpath.join(folder, name + '.py'))
        bytecode = sorted(entry for entry in names if _compiled(entry, name))
        if bytecode:
            return dict(kind='compiled', path=posixpath.join(folder, bytecode[0]))
        return namespace

    def probe(self, folder, name, passed):
        if folder.endswith(_ZIP_SUFFIXES):
            passed.append(('zip', folder))
            return None
        for path, kind in ((posixpath.join(folder, name, '__init__.py'), 'package'),
                           (posixpath.join(folder, name + '.py'), 'module')):
            if self.fetch(path) is not None:
                return dict(kind=kind, path=path, folders=[posixpath.join(folder, name)])
        return None


def _compiled(entry, name):
    """Whether folder entry ``entry`` is a compiled form of module ``name`` (name.so,
    namemodule.so, name.cpython-36m-x86_64-linux-gnu.so, name.abi3.so, name.pyc, name.pyo)."""
    if entry in (name + '.so', name + 'module.so', name + '.pyc', name + '.pyo'):
        return True
    return entry.startswith(name + '.') and entry.endswith('.so') and entry.count('.') == name.count('.') + 2
