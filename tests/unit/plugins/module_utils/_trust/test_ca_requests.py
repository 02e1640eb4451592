# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a valid ``cas`` item is (_trust.ca_requests): names, content by state, every problem at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

import pytest

from ansible_collections.pep493.https.plugins.module_utils._trust import ca_requests
from ansible_collections.pep493.https.tests.unit import ca_pki


@pytest.mark.parametrize('name', ['acme', 'Acme-Root_2026.v2', '0', 'x' * ca_requests.NAME_MAX])
def test_good_names(name):
    assert ca_requests.name_error(name) is None


@pytest.mark.parametrize('name, words', [
    ('', 'is empty'), ('a/b', 'not a plain file-name stem'), ('../x', 'not a plain'), ('.hidden', 'not a plain'),
    ('-x', 'not a plain'), ('a b', 'not a plain'), (u'caf\xe9', 'not a plain'), ('x' * 65, 'not a plain'),
    ('a\nb', 'not a plain'), ('acme.crt', 'ends with .crt'), ('acme.PEM', 'ends with .pem'), ('a.der', '.der'),
])
def test_bad_names(name, words):
    assert words in ca_requests.name_error(name)


def test_every_problem_of_every_item_at_once():
    now = ca_pki.now_after_making()
    requests, errors = ca_requests.validate([
        dict(name='acme', content=ca_pki.text('acme'), state='present'),
        dict(name='acme', content=ca_pki.text('acme'), state='absent'),
        dict(name='bad/', content='garbage', state='present'),
        dict(name='none', content=None, state='present'),
        dict(name='gone', content=None, state='absent'),
    ], now)
    assert [r.label for r in requests] == ['cas[0]', 'cas[1]', 'cas[2]', 'cas[3]', 'cas[4]']
    assert errors == [
        "cas[1].name: 'acme' is given twice (cas[0] too); give each CA once",
        "cas[1].content: 'O = Acme, CN = Acme Internal Root' is the same CA as cas[0].content; give each CA once",
        "cas[2].name: 'bad/' is not a plain file-name stem: use 1 to 64 letters, digits, \".\", \"_\" or \"-\", "
        "starting with a letter or digit",
        'cas[2].content: holds no certificate (no -----BEGIN CERTIFICATE----- block, and not DER)',
        'cas[3].content: required with state=present: give the PEM text of the CA certificate',
    ]
    assert requests[4].certificate is None


def test_a_ca_to_remove_is_judged_without_its_dates():
    now = ca_pki.now_after_making()
    expired = ca_requests.content_certificate(ca_pki.text('expired'), 'absent', now, 'cas[0].content')
    assert expired.not_after == datetime.datetime(2021, 1, 1)
    future = ca_requests.content_certificate(ca_pki.text('future'), 'absent', now, 'cas[0].content')
    assert future.not_before == datetime.datetime(2099, 1, 1)
    for name in ('leaf', 'plain'):
        with pytest.raises(ca_requests.x509.CertificateError) as caught:
            ca_requests.content_certificate(ca_pki.text(name), 'absent', now, 'cas[0].content')
        assert 'is not a CA certificate' in str(caught.value)
    with pytest.raises(ca_requests.x509.CertificateError) as caught:
        ca_requests.content_certificate(ca_pki.text('acme') + ca_pki.text('acme.key'), 'absent', now, 'cas[0].content')
    assert 'private key' in str(caught.value)


def test_a_trusted_certificate_is_refused_only_to_trust():
    now = ca_pki.now_after_making()
    with pytest.raises(ca_requests.x509.CertificateError) as caught:
        ca_requests.content_certificate(ca_pki.text('trusted'), 'present', now, 'cas[0].content')
    assert 'TRUSTED CERTIFICATE' in str(caught.value)
    assert ca_requests.content_certificate(ca_pki.text('trusted'), 'absent', now, 'x').subject == ca_pki.SUBJECTS['acme']
