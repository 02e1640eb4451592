# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""20 simultaneous runs of a writing module on the same file: a valid file in one of the
requested states, every run succeeded, no temp file left."""

import os
import random

import pytest

import harness
from ansible_collections.pep493.https.plugins.module_utils._syntax import cfg
from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin

RUNS = 20
CFG = '/etc/python/cert-verification.cfg'
SHIPPED = (b"# Possible values are:\n# 'enable' ...\n\n[https]\nverify=platform_default\n"
           b"[other]\nkeep=me\n")


def _cfg_path(root):
    return os.path.join(root, 'etc', 'python', 'cert-verification.cfg')


def _race(requests, gate_folder):
    return harness.simultaneous(requests, gate_folder)


def _states(rng):
    return [rng.choice(cfg.VALUES + (None,)) for dummy in range(RUNS)]


def _args(root, verify, **extra):
    if verify is None:
        return dict(root=root, state='absent', **extra)
    return dict(root=root, verify=verify, **extra)


def _check_cfg(root, requested, runs, existing):
    path = _cfg_path(root)
    failed = [r for r in runs if not r.ok]
    assert not failed, failed[:3]
    with open(path, 'rb') as handle:
        data = handle.read()
    parsed = cfg.parse_cfg(data)
    assert parsed.valid, data
    present = [v for v in requested if v is not None]
    assert parsed.verify_keys <= 1
    assert parsed.value in requested, (parsed.value, requested)
    if existing:
        assert b'[other]\nkeep=me\n' in data
    if None not in requested:
        assert parsed.value in present
    assert harness.temp_leftovers(os.path.dirname(path)) == []
    assert oct(os.stat(path).st_mode & 0o7777) == oct(0o644)


@pytest.mark.parametrize('round_', range(3))
def test_cert_verification_on_a_missing_file_and_folder(root, round_):
    rng = random.Random(round_)
    requested = [rng.choice(cfg.VALUES) for dummy in range(RUNS)]
    runs = _race([('cert_verification', _args(root, v)) for v in requested], os.path.dirname(root))
    _check_cfg(root, requested, runs, existing=False)
    assert sum(1 for r in runs if r.result['created']) >= 1


def test_cert_verification_on_an_existing_file_with_backups(root):
    rng = random.Random(2)
    os.makedirs(os.path.dirname(_cfg_path(root)))
    with open(_cfg_path(root), 'wb') as handle:
        handle.write(SHIPPED)
    requested = _states(rng)
    runs = _race([('cert_verification', _args(root, v, backup=True)) for v in requested], os.path.dirname(root))
    _check_cfg(root, requested, runs, existing=True)
    for r in runs:
        if r.result.get('backup_file'):
            with open(r.result['backup_file'], 'rb') as handle:
                assert cfg.parse_cfg(handle.read()).valid


UNIT = 'legacy-app'


def _dropin(root):
    return os.path.join(root, 'etc', 'systemd', 'system', 'legacy-app.service.d', 'zz-pep493-https.conf')


def _service_args(root, rng, absent_share):
    if rng.random() < absent_share:
        return dict(root=root, name=UNIT, state='absent')
    return dict(root=root, name=UNIT, verify=rng.random() < 0.5, reason='ticket %d' % rng.randint(1, 99),
                expires='2030-01-%02d' % rng.randint(1, 28))


def _check_dropin(root, requests, runs):
    failed = [r for r in runs if not r.ok]
    assert not failed, failed[:3]
    path = _dropin(root)
    present = [(a['verify'], a['reason'], a['expires']) for a in requests if a.get('state') != 'absent']
    if os.path.exists(path):
        with open(path, 'rb') as handle:
            parsed = dropin.parse_dropin(handle.read())
        assert parsed is not None
        assert (parsed['verify'], parsed['reason'], parsed['expires'].isoformat()) in present
        assert oct(os.stat(path).st_mode & 0o7777) == oct(0o644)
        assert harness.temp_leftovers(os.path.dirname(path)) == []
    else:
        assert len(present) < len(requests), 'no run asked for absent, yet the drop-in is gone'


@pytest.mark.parametrize('absent_share', [0.0, 0.3])
def test_service_verification_on_one_unit(root, absent_share):
    rng = random.Random(int(absent_share * 10))
    requests = [_service_args(root, rng, absent_share) for dummy in range(RUNS)]
    runs = _race([('service_verification', args) for args in requests], os.path.dirname(root))
    _check_dropin(root, requests, runs)
