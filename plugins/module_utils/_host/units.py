# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Service units as systemd finds and loads them, from the files under ``root``.

The rules follow systemd.unit(5) and, where the manual is silent, systemd 247's source
(unit_file_build_name_map() and unit_file_find_fragment() in src/shared/unit-file.c,
unit_file_find_dropin_paths() in src/shared/dropin.c, conf_files_list_strv()):

- the system unit search path, highest priority first; the first folder that has a name wins;
- a symbolic link to a unit in the search path under another name is an alias: the unit is
  loaded once, under the name of the file the links lead to, with the drop-ins of every name;
- a link to ``/dev/null`` or an empty file masks the unit (it is never started);
- ``a@i.service`` without a file of its own uses the template ``a@.service`` (``%i`` is ``i``);
- drop-ins: ``<name>.d/*.conf`` for every name of the unit, its template, its dash prefixes
  (``a-b-c.service`` also reads ``a-b-.service.d`` and ``a-.service.d``), then the top-level
  ``service.d``, in every folder of the search path; one file per file name (the first folder,
  then the most specific name, wins), applied in file-name order.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._syntax import unit_names

# The system manager's unit search path as systemd 247 builds it (systemctl show -p UnitPath on
# Debian bullseye); /lib/systemd/system is also read where /lib is not a link to /usr/lib.
UNIT_SEARCH_PATH = (
    '/etc/systemd/system.control',
    '/run/systemd/system.control',
    '/run/systemd/transient',
    '/run/systemd/generator.early',
    '/etc/systemd/system',
    '/etc/systemd/system.attached',
    '/run/systemd/system',
    '/run/systemd/system.attached',
    '/run/systemd/generator',
    '/usr/local/lib/systemd/system',
    '/lib/systemd/system',
    '/usr/lib/systemd/system',
    '/run/systemd/generator.late',
)
_FOLLOW_MAX = 64
# hidden_or_backup_file(): names systemd skips in every folder it lists
_BACKUP_SUFFIXES = ('rpmnew', 'rpmsave', 'rpmorig', 'dpkg-old', 'dpkg-new', 'dpkg-tmp', 'dpkg-dist', 'dpkg-bak',
                    'dpkg-backup', 'dpkg-remove', 'ucf-new', 'ucf-old', 'ucf-dist', 'swp', 'bak', 'old', 'new')

LOADED = 'loaded'
MASKED = 'masked'
NOT_FOUND = 'not-found'
ERROR = 'error'


def hidden_or_backup(name):
    if name.startswith('.') or name in ('lost+found', 'aquota.user', 'aquota.group') or name.endswith('~'):
        return True
    return '.' in name and name.rsplit('.', 1)[1] in _BACKUP_SUFFIXES


class Unit(object):
    """One loaded service unit: its id, every name, where its files are and what they hold.

    ``files`` is [(host path, 'unit' or 'dropin', bytes)] in the order systemd applies them;
    ``errors`` what stopped a file being read (a fragment that cannot be read makes the unit
    ``error``: systemd would not load it).
    """

    __slots__ = ('id', 'names', 'fragment', 'load_state', 'dropins', 'files', 'errors', 'dropin_dirs',
                 'own_dropins')

    def __init__(self, unit_id, names, fragment, load_state):
        self.id = unit_id
        self.names = names
        self.fragment = fragment
        self.load_state = load_state
        self.dropins = []
        self.files = []
        self.errors = []
        self.dropin_dirs = []
        self.own_dropins = []   # those of the folders named after the unit itself (``<id>.d``)

    @property
    def instance(self):
        parts = unit_names.unit_name_parts(self.id)
        return parts[1] if parts else None


class UnitTree(object):
    """The service units of a host (``files``: a hostfiles.HostFiles), read once.

    ``search_path`` is the manager's own (``systemctl show -p UnitPath``) when systemd runs,
    else systemd 247's. ``errors`` lists folders and links that could not be read.
    """

    def __init__(self, files, search_path=UNIT_SEARCH_PATH):
        self.files = files
        self.search_path = []
        self._configured = list(search_path)
        self._reals = {}
        self._loaded = {}
        self._listings = {}     # drop-in folder -> its names, or None
        self._toplevel = None   # the service.d folders, the same for every unit
        self.errors = []
        self.ids = {}           # name -> alias target name, or absolute fragment path
        self.entries = {}       # search folder -> sorted entry names (hidden and backup files left out)
        self._present = {}      # search folder -> the same names, as a set
        self._dirs = {}         # real folder -> resolved host folder (for duplicate folders)
        self._content = {}
        self._scan(search_path)
        self._aliases = self._alias_map()

    # --- the name map -----------------------------------------------------------------------

    def _scan(self, search_path):
        for folder in search_path:
            try:
                resolved = self.files.resolve(folder, file_path=False)
                names = self.files.listdir(folder)
            except hostfiles.HostFileError as exc:
                self.errors.append(str(exc))
                continue
            if names is None:
                continue
            self.search_path.append(folder)
            if resolved.host in self._dirs:
                self.entries[folder] = []       # /lib/systemd/system when /lib is /usr/lib
                self._present[folder] = set()
                continue
            self._dirs[resolved.host] = folder
            kept = [name for name in names if not hidden_or_backup(name)]
            self.entries[folder] = kept
            self._present[folder] = set(kept)
            for name in kept:
                if unit_names.unit_name_parts(name) is None or name in self.ids:
                    continue
                target = self._entry_target(folder, name)
                if target is not None:
                    self.ids[name] = target

    def _entry_target(self, folder, name):
        try:
            kind, link = self.files.entry(folder, name)
        except hostfiles.HostFileError as exc:
            self.errors.append(str(exc))
            return None
        if kind != 'link':
            return folder + '/' + name
        target = link if link.startswith('/') else posixpath.join(folder, link)
        simplified = self._simplify(target)
        tail = self._search_tail(simplified)
        if tail is None:
            return simplified                   # a linked unit file, or /dev/null (masked)
        if tail == name:
            return None                         # a self-alias has no effect
        if not _valid_alias(name, tail):
            self.errors.append('%s/%s is a symbolic link to %s: not a valid alias, systemd ignores it'
                               % (folder, name, link))
            return None
        return tail

    def _simplify(self, target):
        """The target with the links of its folder resolved, as chase_symlinks(CHASE_NOFOLLOW)."""
        folder, name = posixpath.split(target.rstrip('/'))
        try:
            return posixpath.join(self.files.resolve(folder or '/', file_path=False).host, name)
        except hostfiles.HostFileError:
            return posixpath.normpath(target)

    def _search_tail(self, path):
        """path_startswith_strv(): the part of ``path`` after the search folder it is in, or None."""
        for folder in self._configured:
            for prefix in set([folder, self._real_folder(folder)]):
                if path.startswith(prefix.rstrip('/') + '/'):
                    return posixpath.basename(path[len(prefix.rstrip('/')) + 1:])
        return None

    def _real_folder(self, folder):
        if folder not in self._reals:
            try:
                self._reals[folder] = self.files.resolve(folder, file_path=False).host
            except hostfiles.HostFileError:
                self._reals[folder] = folder
        return self._reals[folder]

    def _fragment_of(self, name):
        """unit_ids_map_get(): the fragment path ``name`` leads to, or None."""
        current = name
        for _hop in range(_FOLLOW_MAX):
            target = self.ids.get(current)
            if target is None:
                template = unit_names.template_of(current)
                target = self.ids.get(template) if template else None
                if target is None:
                    return None
            if target.startswith('/'):
                return target
            current = target
        return None

    def _alias_map(self):
        """{fragment file name: [names that lead to it]} (the names map of systemd)."""
        names = {}
        for src in sorted(self.ids):
            dst = self._fragment_of(src)
            if dst is None or dst == hostfiles.DEV_NULL:
                continue        # (an empty, masking file is only ever loaded as masked: _names() stops there)
            if unit_names.is_template(posixpath.basename(dst)) and unit_names.is_instance(src):
                continue
            names.setdefault(posixpath.basename(dst), []).append(src)
        return names

    # --- what there is ----------------------------------------------------------------------

    def service_names(self):
        """Names of every service that has a file, and of every one with a drop-in folder of its
        own (``a.service.d``): the units this host could load, by their own names."""
        found = set(name for name in self.ids if name.endswith(unit_names.SUFFIX))
        for folder in self.search_path:
            for entry in self.entries.get(folder, ()):
                if entry.endswith(unit_names.SUFFIX + '.d'):
                    name = entry[:-2]
                    parts = unit_names.unit_name_parts(name)
                    # "a-.service.d" and "a-@.service.d" hold drop-ins for every "a-..." unit
                    if parts is not None and not parts[0].endswith('-'):
                        found.add(name)
        return sorted(found)

    def unit_id(self, name):
        """The name systemd gives the unit ``name`` loads (an alias's target; itself if unknown)."""
        fragment = self._fragment_of(name)
        if fragment is None or fragment == hostfiles.DEV_NULL:
            return name
        base = posixpath.basename(fragment)
        parts = unit_names.unit_name_parts(name)
        if unit_names.is_template(base) and parts and parts[1]:
            base_parts = unit_names.unit_name_parts(base)
            return '%s@%s.%s' % (base_parts[0], parts[1], base_parts[2])
        return base if unit_names.unit_name_parts(base) else name

    def load(self, name):
        """The Unit systemd loads for ``name`` (an alias gives the same unit as its target)."""
        if name not in self._loaded:
            self._loaded[name] = self._load(name)
        return self._loaded[name]

    def _load(self, name):
        fragment = self._fragment_of(name)
        unit_id = self.unit_id(name)
        unit = Unit(unit_id, [], fragment, NOT_FOUND if fragment is None else LOADED)
        if fragment is not None:
            data = self._read(fragment, unit)
            if data is None:
                unit.load_state = ERROR
            elif data == b'':
                unit.load_state = MASKED    # null_or_empty(): /dev/null or an empty file
            else:
                unit.files.append((fragment, 'unit', data))
        unit.names = self._names(name, unit_id, fragment if unit.load_state != MASKED else None)
        unit.dropin_dirs = self.dropin_dirs([unit_id] + [n for n in unit.names if n != unit_id])
        unit.dropins = self.dropin_paths(unit.dropin_dirs)
        own = []
        for folder in self.search_path:
            self._add_dir(folder, unit_id + '.d', own)
        unit.own_dropins = [path for path in unit.dropins if posixpath.dirname(path) in own]
        for path in unit.dropins:
            data = self._read(path, unit)
            if data is not None:
                unit.files.append((path, 'dropin', data))
        return unit

    def _names(self, name, unit_id, fragment):
        """The unit's names: its own, and every alias of its fragment (None when masked)."""
        names = set([unit_id])
        if not unit_names.is_template(name):
            names.add(name)
        if fragment is None:
            return sorted(names)
        instance = (unit_names.unit_name_parts(name) or (None, None, None))[1]
        for alias in self._aliases.get(posixpath.basename(fragment), ()):
            if instance and unit_names.is_template(alias):
                parts = unit_names.unit_name_parts(alias)
                alias = '%s@%s.%s' % (parts[0], instance, parts[2])
                if self._fragment_of(alias) not in (None, fragment):
                    continue
            names.add(alias)
        return sorted(n for n in names if not unit_names.is_template(n) or unit_names.is_template(name))

    def _read(self, path, unit):
        if path not in self._content:
            try:
                self._content[path] = self.files.read(path)
            except hostfiles.HostFileError as exc:
                self._content[path] = exc
        data = self._content[path]
        if isinstance(data, hostfiles.HostFileError):
            unit.errors.append(str(data))
            return None
        return data

    # --- drop-ins ---------------------------------------------------------------------------

    def dropin_dirs(self, names):
        """The drop-in folders of a unit with these names, in systemd's order (existing only)."""
        dirs = []
        for name in names:
            wanted = self._dir_names(name)
            for folder in self.search_path:
                present = self._present.get(folder)
                if present and not present.isdisjoint(wanted):
                    for entry in wanted:
                        if entry in present:
                            self._add_dir(folder, entry, dirs)
        if names:
            if self._toplevel is None:
                self._toplevel = []
                for folder in self.search_path:
                    self._add_dir(folder, 'service.d', self._toplevel)
            dirs.extend(self._toplevel)
        return dirs

    def _dir_names(self, name, found=None):
        """unit_file_find_dirs(): the folder names to look for, in order - the name, its
        template, its dash prefixes (each with its own template, recursively)."""
        found = [] if found is None else found
        found.append(name + '.d')
        parts = unit_names.unit_name_parts(name)
        if parts is None:
            return found
        prefix, instance, unit_type = parts
        if instance:
            self._dir_names('%s@.%s' % (prefix, unit_type), found)
        chopped = False
        while True:
            dash = prefix.rfind('-')
            if dash <= 0:
                return found
            if dash + 1 < len(prefix) or chopped:
                prefix = prefix[:dash + 1]
                break
            prefix = prefix[:dash]          # a trailing dash: chop it off once
            chopped = True
        built = '%s@%s.%s' % (prefix, instance, unit_type) if instance else '%s.%s' % (prefix, unit_type)
        return self._dir_names(built, found)

    def _add_dir(self, folder, name, dirs):
        """unit_file_add_dir(): the folder when it exists. systemd skips a dangling link or a file
        silently; they are kept in ``errors`` for the operator."""
        if name not in self._present.get(folder, ()):
            return
        path = folder + '/' + name
        if self._listing(path) is not None:
            dirs.append(self._chased(path))

    def _chased(self, path):
        """The folder as chase_symlinks() resolves it: systemd names a drop-in by the folder its
        links lead to (/usr/lib/... for /lib/... on a merged /usr), the file itself unresolved."""
        try:
            return self.files.resolve(path, file_path=False).host
        except hostfiles.HostFileError:
            return path

    def _listing(self, path):
        if path not in self._listings:
            try:
                self._listings[path] = self.files.listdir(path)
            except hostfiles.HostFileError as exc:
                self._listings[path] = None
                if str(exc) not in self.errors:
                    self.errors.append(str(exc))
        return self._listings[path]

    def dropin_paths(self, dirs):
        """conf_files_list_strv(): ``*.conf`` of ``dirs``, one per file name (the first folder
        with that name wins, folders counted once), sorted by file name."""
        chosen = {}
        seen = set()
        for folder in dirs:
            try:
                real = self.files.resolve(folder, file_path=False).host
            except hostfiles.HostFileError as exc:
                self.errors.append(str(exc))
                continue
            if real in seen:
                continue
            seen.add(real)
            for name in self._listing(folder) or ():
                if name.endswith('.conf') and not hidden_or_backup(name) and name not in chosen:
                    chosen[name] = folder + '/' + name
        return [chosen[name] for name in sorted(chosen)]


def _valid_alias(src, dst):
    """unit_validate_alias_symlink_and_warn(): same type; a template only to a template, an
    instance to an instance or its template's alias, a plain name to a plain name."""
    src_parts = unit_names.unit_name_parts(src)
    dst_parts = unit_names.unit_name_parts(dst)
    if not src_parts or not dst_parts or src_parts[2] != dst_parts[2]:
        return False
    src_kind = 'plain' if src_parts[1] is None else ('template' if src_parts[1] == '' else 'instance')
    dst_kind = 'plain' if dst_parts[1] is None else ('template' if dst_parts[1] == '' else 'instance')
    if src_kind == 'plain':
        return dst_kind == 'plain'
    if src_kind == 'template':
        return dst_kind == 'template'
    return dst_kind in ('instance', 'template') and (dst_kind == 'template' or src_parts[1] == dst_parts[1])
