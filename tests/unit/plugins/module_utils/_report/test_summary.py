# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The summary: counts and findings (pure functions over the report's parts)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.pep493.https.plugins.module_utils._host import global_settings as hostwide
from ansible_collections.pep493.https.plugins.module_utils._report import summary as report

PY2 = {'path': '/usr/bin/python2.7', 'version': '2.7.5', 'honours_env': True,
       'reads_config': '/etc/python/cert-verification.cfg', 'verifies_by_default': True, 'error': None}
PY3 = {'path': '/usr/bin/python3', 'version': '3.6.8', 'honours_env': False, 'reads_config': None,
       'verifies_by_default': True, 'error': None}
OPT_OUT = {'source': hostwide.GLOBAL_ETC_ENVIRONMENT, 'path': '/etc/environment', 'line': 3, 'action': 'set',
           'value': '0', 'disables': True}


@pytest.mark.parametrize('interpreters, global_settings, probed, expected', [
    ([PY2, PY3], [], True, True),
    ([PY2, PY3], [OPT_OUT], True, False),
    ([dict(PY2, verifies_by_default=False), PY3], [], True, False),
    ([dict(PY2, verifies_by_default=None, error='no answer within 5.0 seconds')], [], True, None),
    ([PY3], [OPT_OUT], True, None),
    ([], [], False, None),
    ([dict(PY2, honours_env=False, reads_config=None, version='2.7.9')], [OPT_OUT], True, True),
])
def test_host_default(interpreters, global_settings, probed, expected):
    assert report.host_default(interpreters, global_settings, probed) is expected


def record(**overrides):
    base = {'unit': 'legacy.service', 'value': '0', 'value_known': True,
            'source': '/etc/systemd/system/legacy.service.d/zz.conf', 'source_kind': 'dropin', 'managed': True,
            'overridden': False, 'expired': False, 'expires': '2026-12-31',
            'dropin': '/etc/systemd/system/legacy.service.d/zz.conf', 'pending_restart': False,
            'needs_daemon_reload': False, 'effective': True, 'effect': 'python2', 'executable': '/usr/bin/python2.7',
            'main_pid': None, 'running_value': None, 'errors': []}
    base.update(overrides)
    return base


def test_summary_counts_and_findings():
    config = hostwide.config_report('/etc/python/cert-verification.cfg', b'[https]\nverify=disable\n',
                                    readers=['/usr/bin/python2.7'])
    services = [
        record(),
        record(unit='old.service', expired=True, expires='2026-01-31'),
        record(unit='restart.service', pending_restart=True, main_pid=12, running_value=None),
        record(unit='py3.service', effective=False, effect='python3', executable='/usr/bin/python3'),
        record(unit='dashe.service', effective=False, effect='ignore-environment'),
        record(unit='foreign.service', managed=False, dropin=None, source='/etc/default/foreign',
               source_kind='environment_file'),
        record(unit='odd.service', value='false', managed=False, dropin=None),
        record(unit='global.service', source_kind='manager', managed=False, dropin=None, source=None),
        record(unit='unset.service', value=None, source='/u', source_kind='unset_environment', overridden=True),
        record(unit='masked.service', value=None, source=None, source_kind=None, effective=False, effect='masked'),
        record(unit='unknown.service', value=None, value_known=False, source=None, source_kind=None,
               errors=['PYTHONHTTPSVERIFY cannot be told: PID 1']),
    ]
    summary = report.summarize(config, [PY2, PY3], services, [OPT_OUT], True, ['cannot list /etc/profile.d: denied'])
    assert summary['host_default'] is False and summary['python2_interpreters'] == 1
    assert (summary['exceptions'], summary['opt_outs'], summary['managed']) == (7, 6, 8)
    assert (summary['expired'], summary['pending_restart'], summary['ineffective']) == (1, 1, 2)
    assert (summary['unmanaged'], summary['global_opt_outs']) == (2, 1)
    text = '\n'.join(summary['findings'])
    assert 'verify=disable' in text
    assert 'old.service: the exception expired on 2026-01-31' in text
    assert 'restart.service: the running process (PID 12) has PYTHONHTTPSVERIFY=unset' in text
    assert 'py3.service runs Python 3 (/usr/bin/python3)' in text
    assert 'dashe.service: PYTHONHTTPSVERIFY=0 never reaches Python 2 code there (Python runs with -E' in text
    assert 'foreign.service: verification is off (PYTHONHTTPSVERIFY=0 from /etc/default/foreign)' in text
    assert "odd.service: PYTHONHTTPSVERIFY='false' leaves verification on" in text
    assert 'unset.service: UnsetEnvironment= in /u removes PYTHONHTTPSVERIFY' in text
    assert 'masked.service is masked' in text
    assert 'unknown.service: PYTHONHTTPSVERIFY cannot be told: PID 1.' in text
    assert '/etc/environment line 3 sets PYTHONHTTPSVERIFY=0 for every login session' in text
    assert 'Incomplete: cannot list /etc/profile.d: denied.' in text
    units = [finding.split(':')[0].split(' ')[0] for finding in summary['findings']]
    assert 'legacy.service' not in units and 'global.service' not in units


def test_clean_host_has_no_findings():
    config = hostwide.config_report('/etc/python/cert-verification.cfg', b'[https]\nverify=enable\n',
                                    readers=['/usr/bin/python2.7'])
    summary = report.summarize(config, [PY2, PY3], [record()], [], True)
    assert summary['findings'] == [] and summary['host_default'] is True


def test_a_setting_without_a_line_names_only_its_file():
    setting = dict(OPT_OUT, source=hostwide.GLOBAL_SYSTEM_CONF, path='/etc/systemd/system.conf', line=None)
    assert report._global_findings(setting)[0].startswith('/etc/systemd/system.conf sets')


def test_malformed_config_finding_says_when_nobody_here_reads_it():
    data = b'verify=disable\n[https]\n'
    unread = report.summarize(hostwide.config_report('/c.cfg', data, readers=[]), [PY3], [], [], True)['findings']
    read = report.summarize(hostwide.config_report('/c.cfg', data, readers=['/usr/bin/python2.7']), [PY2], [], [],
                            True)['findings']
    assert len(unread) == 1 and 'is malformed (line 1)' in unread[0] and 'no interpreter on this host' in unread[0]
    assert len(read) == 1 and 'no interpreter on this host' not in read[0]


def test_a_config_too_large_to_read_is_not_a_guess():
    config = dict(hostwide.config_report('/c.cfg', None, error='/c.cfg is too large'), exists=True, verify=None)
    findings = report.summarize(config, [], [], [], False)['findings']
    assert findings == ['/c.cfg could not be read in full (/c.cfg is too large); what RHEL 7 python makes of it '
                        'cannot be told.']


def test_a_junk_config_is_reported_in_bounded_size():
    """A cfg of many junk lines: the audit lists the first few offending lines, each cut short,
    and counts the rest; its finding names those lines, not every one."""
    junk = b'[https]\n' + (b'x' * 500 + b'\n') * 5000
    config = hostwide.config_report('/c.cfg', junk, readers=['/usr/bin/python2.7'])
    assert config['errors_total'] == 5000
    assert len(config['errors']) == 20
    assert all(len(error['text']) <= 83 for error in config['errors'])
    assert config['errors'][0] == {'line': 2, 'kind': 'parsing_error', 'text': 'x' * 80 + '...'}
    finding = report.summarize(config, [PY2], [], [], True)['findings'][0]
    assert 'is malformed (lines 2, 3, 4, ' in finding and ', 21 and 4980 more)' in finding and len(finding) < 400


def test_a_config_without_errors_counts_none():
    config = hostwide.config_report('/c.cfg', b'[https]\nverify=enable\n', readers=[])
    assert (config['errors'], config['errors_total']) == ([], 0)
    assert hostwide.config_report('/c.cfg', None, readers=[])['errors_total'] == 0
