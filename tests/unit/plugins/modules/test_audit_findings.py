# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the audit says of a managed drop-in with a bad date or a control character, and of a
cfg file that non-root Python 2 programs cannot read (issue 11)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.pep493.https.plugins.module_utils._syntax import dropin
from ansible_collections.pep493.https.plugins.modules import cert_verification, verification_info
from ansible_collections.pep493.https.tests.unit.tree import write

CFG = '/etc/python/cert-verification.cfg'
UNITS = '/etc/systemd/system'


def agent(root, header):
    write(root, '/usr/bin/legacy-agent', b'#!/usr/bin/python2.7\n', 0o755)
    write(root, '/usr/lib/systemd/system/agent.service', b'[Service]\nExecStart=/usr/bin/legacy-agent\n')
    write(root, UNITS + '/agent.service.d/zz-pep493-https.conf',
          dropin.MARKER.encode('ascii') + b'\n' + header + b'[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n')


def test_an_expiry_that_is_not_a_date_is_a_finding(run_module, tmp_path):
    agent(tmp_path, b'# reason: vendor CA\n# expires: 2020-13-45\n')
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    service = result['services'][0]
    assert service['expires'] == '2020-13-45' and service['expired'] is False
    assert ("agent.service: the expiry date '2020-13-45' of its exception (%s/agent.service.d/zz-pep493-https.conf) "
            "is not a real YYYY-MM-DD date, so it never expires; set a real date with "
            "pep493.https.service_verification." % UNITS) in result['summary']['findings']


def test_control_characters_of_a_reason_are_escaped(run_module, tmp_path):
    agent(tmp_path, b'# reason: vendor\x1b[31m CA\x07\n# expires: 2999-01-01\n')
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert result['services'][0]['reason'] == 'vendor\\x1b[31m CA\\x07'


def test_a_cfg_only_root_can_read_is_reported(run_module, tmp_path):
    path = write(tmp_path, CFG, b'[https]\nverify=enable\n', 0o600)
    audit = run_module.ok(verification_info, dict(root=str(tmp_path)))
    assert audit['config']['mode'] == '0600'
    assert ('%s has mode 0600: non-root Python 2 programs cannot read it and use platform_default instead of '
            'verify=enable; make it readable by all (mode 0644).' % CFG) in audit['summary']['findings']
    kept = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable'))
    assert not kept['changed']
    assert kept['readable_by_all'] is False
    assert ('%s has mode 0600: non-root Python 2 programs cannot read it and use platform_default instead of '
            "verify=enable; set mode: '0644'." % path) in kept['warnings']
    fixed = run_module.ok(cert_verification, dict(root=str(tmp_path), verify='enable', mode='0644'))
    assert fixed['readable_by_all'] is True and fixed['warnings'] == []


def test_an_exception_for_a_service_on_requests_is_found_to_do_nothing(run_module, tmp_path):
    """The audit says what the forecast says: requests ignores PYTHONHTTPSVERIFY."""
    write(tmp_path, '/usr/bin/legacy-agent', b'#!/usr/bin/python2.7\nimport requests\n', 0o755)
    write(tmp_path, '/usr/lib/python2.7/dist-packages/requests/__init__.py', b'import urllib3\n')
    write(tmp_path, '/usr/lib/systemd/system/agent.service', b'[Service]\nExecStart=/usr/bin/legacy-agent\n')
    write(tmp_path, UNITS + '/agent.service.d/zz-pep493-https.conf',
          dropin.render_dropin(False, 'vendor CA', None))
    result = run_module.ok(verification_info, dict(root=str(tmp_path)))
    [service] = result['services']
    assert service['effective'] is False and service['effect'] == 'not-governed'
    assert result['summary']['ineffective'] == 1
    assert ('agent.service: it uses requests, which PYTHONHTTPSVERIFY and the cfg file do not govern: '
            'PYTHONHTTPSVERIFY=0 does nothing there; remove the setting (trust the CA it needs instead).'
            in result['summary']['findings'])
