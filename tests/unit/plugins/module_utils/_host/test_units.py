# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Service units as systemd finds and loads them: the search path, aliases, masks, templates,
and the drop-ins that apply, in their order."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.pep493.https.plugins.module_utils._host import files as hostfiles
from ansible_collections.pep493.https.plugins.module_utils._host import units
from ansible_collections.pep493.https.tests.unit.tree import write

ETC = '/etc/systemd/system'
LIB = '/usr/lib/systemd/system'
UNIT = b'[Service]\nExecStart=/bin/true\n'


def link(root, path, target):
    full = os.path.join(str(root), path.lstrip('/'))
    if not os.path.isdir(os.path.dirname(full)):
        os.makedirs(os.path.dirname(full))
    os.symlink(target, full)


def tree(root):
    return units.UnitTree(hostfiles.HostFiles(str(root)))


def test_the_search_path_is_systemd_247s():
    assert units.UNIT_SEARCH_PATH[0] == '/etc/systemd/system.control'
    assert units.UNIT_SEARCH_PATH.index('/etc/systemd/system') < units.UNIT_SEARCH_PATH.index('/run/systemd/system')
    assert units.UNIT_SEARCH_PATH.index('/run/systemd/transient') < units.UNIT_SEARCH_PATH.index(ETC)
    assert units.UNIT_SEARCH_PATH[-1] == '/run/systemd/generator.late' and len(units.UNIT_SEARCH_PATH) == 13


def test_the_first_folder_with_a_name_wins(tmp_path):
    write(tmp_path, LIB + '/app.service', b'[Service]\nExecStart=/usr/lib\n')
    write(tmp_path, ETC + '/app.service', b'[Service]\nExecStart=/etc\n')
    write(tmp_path, '/run/systemd/transient/app.service', b'[Service]\nExecStart=/transient\n')
    unit = tree(tmp_path).load('app.service')
    assert unit.fragment == '/run/systemd/transient/app.service' and unit.load_state == units.LOADED


def test_lib_and_usr_lib_are_one_folder_when_linked(tmp_path):
    write(tmp_path, LIB + '/app.service', UNIT)
    write(tmp_path, LIB + '/app.service.d/10-a.conf', b'')
    link(tmp_path, '/lib', 'usr/lib')
    loaded = tree(tmp_path).load('app.service')
    assert loaded.fragment == '/lib/systemd/system/app.service'
    # unit_file_add_dir() keeps a drop-in folder as chase_symlinks() resolves it (systemd 247 shows
    # DropInPaths=/usr/lib/... with FragmentPath=/lib/... on a merged /usr)
    assert loaded.dropins == [LIB + '/app.service.d/10-a.conf']


def test_a_dropin_folder_is_named_by_where_its_links_lead_and_a_dropin_file_by_its_own_path(tmp_path):
    write(tmp_path, LIB + '/app.service', UNIT)
    write(tmp_path, '/opt/conf/app.d/10-a.conf', b'[Service]\nEnvironment=A=1\n')
    link(tmp_path, ETC + '/app.service.d', '/opt/conf/app.d')
    write(tmp_path, LIB + '/app.service.d/20-b.conf', b'[Service]\nEnvironment=B=1\n')
    write(tmp_path, '/opt/sub/30-c.conf', b'[Service]\nEnvironment=C=1\n')
    link(tmp_path, LIB + '/app.service.d/30-c.conf', '/opt/sub/30-c.conf')
    loaded = tree(tmp_path).load('app.service')
    assert loaded.dropins == ['/opt/conf/app.d/10-a.conf', LIB + '/app.service.d/20-b.conf',
                              LIB + '/app.service.d/30-c.conf']
    assert [kind for dummy, kind, dummy in loaded.files] == ['unit', 'dropin', 'dropin', 'dropin']
    assert loaded.files[3][2] == b'[Service]\nEnvironment=C=1\n'


def test_an_alias_loads_its_target_with_the_dropins_of_both_names(tmp_path):
    write(tmp_path, LIB + '/real.service', UNIT)
    link(tmp_path, ETC + '/nick.service', LIB + '/real.service')
    write(tmp_path, ETC + '/nick.service.d/10-nick.conf', b'[Service]\n')
    write(tmp_path, LIB + '/real.service.d/20-real.conf', b'[Service]\n')
    units_tree = tree(tmp_path)
    by_alias = units_tree.load('nick.service')
    by_name = units_tree.load('real.service')
    assert by_alias.id == by_name.id == 'real.service'
    assert by_alias.names == by_name.names == ['nick.service', 'real.service']
    assert by_alias.fragment == LIB + '/real.service'
    assert by_name.dropins == [ETC + '/nick.service.d/10-nick.conf', LIB + '/real.service.d/20-real.conf']
    assert units_tree.unit_id('nick.service') == 'real.service'


def test_an_alias_of_a_template_names_each_instance(tmp_path):
    write(tmp_path, LIB + '/w@.service', UNIT)
    link(tmp_path, ETC + '/v@.service', 'w@.service')
    write(tmp_path, ETC + '/v@.service.d/x.conf', b'[Service]\n')
    loaded = tree(tmp_path).load('w@3.service')
    assert loaded.id == 'w@3.service' and loaded.names == ['v@3.service', 'w@3.service']
    assert loaded.dropins == [ETC + '/v@.service.d/x.conf']


def test_a_link_out_of_the_search_path_is_a_linked_unit(tmp_path):
    write(tmp_path, '/opt/app/app.service', UNIT)
    link(tmp_path, ETC + '/app.service', '/opt/app/app.service')
    loaded = tree(tmp_path).load('app.service')
    assert loaded.fragment == '/opt/app/app.service' and loaded.id == 'app.service'


def test_self_aliases_and_invalid_aliases_are_ignored(tmp_path):
    write(tmp_path, LIB + '/app.service', UNIT)
    link(tmp_path, ETC + '/app.service', LIB + '/app.service')       # a self-alias: no effect
    write(tmp_path, LIB + '/w@.service', UNIT)
    link(tmp_path, ETC + '/plain.service', LIB + '/w@.service')      # plain name to a template: invalid
    units_tree = tree(tmp_path)
    assert units_tree.load('app.service').fragment == LIB + '/app.service'
    assert units_tree.load('plain.service').load_state == units.NOT_FOUND
    assert any('not a valid alias' in e for e in units_tree.errors)


def test_masked_by_dev_null_or_an_empty_file(tmp_path):
    write(tmp_path, LIB + '/a.service', UNIT)
    link(tmp_path, ETC + '/a.service', '/dev/null')
    write(tmp_path, LIB + '/b.service', b'')
    units_tree = tree(tmp_path)
    assert units_tree.load('a.service').load_state == units.MASKED
    assert units_tree.load('a.service').id == 'a.service'
    assert units_tree.load('b.service').load_state == units.MASKED


def test_instances_use_their_template_and_not_found_units(tmp_path):
    write(tmp_path, LIB + '/w@.service', UNIT)
    write(tmp_path, ETC + '/w@7.service', b'[Service]\nExecStart=/seven\n')
    units_tree = tree(tmp_path)
    assert units_tree.load('w@3.service').fragment == LIB + '/w@.service'
    assert units_tree.load('w@7.service').fragment == ETC + '/w@7.service'
    assert units_tree.load('none.service').load_state == units.NOT_FOUND


def test_dropin_folders_in_systemds_order(tmp_path):
    for folder in ('a-b-c@x.service.d', 'a-b-c@.service.d', 'a-b-@x.service.d', 'a-b-@.service.d', 'a-@x.service.d',
                   'a-@.service.d', 'service.d', 'a-b-c.service.d'):
        write(tmp_path, ETC + '/' + folder + '/x.conf', b'')
    dirs = tree(tmp_path).dropin_dirs(['a-b-c@x.service'])
    assert [d.rsplit('/', 1)[1] for d in dirs] == [
        'a-b-c@x.service.d', 'a-b-c@.service.d', 'a-b-@x.service.d', 'a-b-@.service.d', 'a-@x.service.d',
        'a-@.service.d', 'service.d']
    assert [d.rsplit('/', 1)[1] for d in tree(tmp_path).dropin_dirs(['a-b-c.service'])] == [
        'a-b-c.service.d', 'service.d']


def test_one_dropin_per_file_name_first_folder_then_most_specific_wins(tmp_path):
    write(tmp_path, LIB + '/app-web.service', UNIT)
    write(tmp_path, LIB + '/app-web.service.d/10-x.conf', b'lib specific')
    write(tmp_path, ETC + '/app-.service.d/10-x.conf', b'etc prefix')           # first folder wins
    write(tmp_path, ETC + '/service.d/20-y.conf', b'etc top level')
    write(tmp_path, LIB + '/app-web.service.d/20-y.conf', b'lib specific')      # top-level dirs come last
    write(tmp_path, ETC + '/app-web.service.d/30-z.conf', b'etc specific')
    write(tmp_path, ETC + '/app-.service.d/30-z.conf', b'etc prefix')
    write(tmp_path, ETC + '/app-web.service.d/.hidden.conf', b'')
    write(tmp_path, ETC + '/app-web.service.d/40-backup.conf~', b'')
    write(tmp_path, ETC + '/app-web.service.d/50-not-conf.txt', b'')
    loaded = tree(tmp_path).load('app-web.service')
    assert loaded.dropins == [ETC + '/app-.service.d/10-x.conf', LIB + '/app-web.service.d/20-y.conf',
                              ETC + '/app-web.service.d/30-z.conf']
    assert [data for _path, kind, data in loaded.files] == [UNIT, b'etc prefix', b'lib specific', b'etc specific']


def test_a_masked_dropin_still_hides_lower_ones(tmp_path):
    write(tmp_path, LIB + '/app.service', UNIT)
    write(tmp_path, LIB + '/app.service.d/50-vendor.conf', b'[Service]\nEnvironment=A=1\n')
    link(tmp_path, ETC + '/app.service.d/50-vendor.conf', '/dev/null')
    loaded = tree(tmp_path).load('app.service')
    assert loaded.dropins == [ETC + '/app.service.d/50-vendor.conf'] and loaded.files[1][2] == b''


def test_unreadable_files_and_folders_are_errors_not_exceptions(tmp_path):
    write(tmp_path, LIB + '/app.service', UNIT)
    link(tmp_path, ETC + '/app.service.d', '/nowhere')
    os.mkfifo(os.path.join(str(tmp_path), ETC.lstrip('/'), 'pipe.service'))
    units_tree = tree(tmp_path)
    pipe = units_tree.load('pipe.service')
    assert pipe.load_state == units.ERROR and 'a FIFO' in pipe.errors[0]
    app = units_tree.load('app.service')
    assert app.load_state == units.LOADED and app.dropins == []


def test_service_names(tmp_path):
    write(tmp_path, LIB + '/a.service', UNIT)
    write(tmp_path, ETC + '/b.service.d/x.conf', b'')
    write(tmp_path, ETC + '/service.d/x.conf', b'')
    write(tmp_path, ETC + '/c.socket', b'')
    write(tmp_path, ETC + '/.hidden.service', b'')
    assert tree(tmp_path).service_names() == ['a.service', 'b.service']


def test_prefix_dropin_folders_are_no_units(tmp_path):
    write(tmp_path, ETC + '/app-.service.d/x.conf', b'')
    write(tmp_path, ETC + '/app-@.service.d/x.conf', b'')
    write(tmp_path, ETC + '/app@.service.d/x.conf', b'')
    assert tree(tmp_path).service_names() == ['app@.service']
