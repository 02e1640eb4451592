# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which CA the policy configures would fix an ``untrusted`` endpoint, proven by a second probe.

The CAs (verification_forecast's ``cas``: each {name, content, services}) are those the policy
will trust: host-wide (no ``services``: ca_trust puts it into the system store) or for some
services only (an exception's ``ca``: service_verification gives each a bundle of the system's CAs
and that CA). For each endpoint the probe found ``untrusted`` (the standard library, or requests
with its bundle), its certificate is matched to the CAs that apply to its target by issuer name
and key identifier (``x509.issued_by``, which checks no signature: a match is only a candidate);
a certificate that names none of them as its issuer (an intermediate CA issued it) and is not
self-issued has every one of them as a candidate, for the root of the chain the server sends. The
endpoint is then probed again by the same interpreter, verification on, with the CA as that
target would get it: a bundle of the system bundle and the CA (``service_bundle.render_bundle``,
the very bytes of a service's bundle) named by ``SSL_CERT_FILE``, and by ``REQUESTS_CA_BUNDLE``
where requests would read it - always for a service's own CA, for a host-wide CA only where
requests loads the system bundle. A host-wide CA does not reach a service whose ``SSL_CERT_FILE``
names another file: that is said, not probed. Only the second probe makes a CA an endpoint's fix
(``fixed_by``); a candidate it does not confirm is reported with what it said (``trust``). The
bundles are written in a private temporary folder, removed afterwards.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import tempfile

from ansible_collections.pep493.https.plugins.module_utils._forecast import tlsprobe
from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting
from ansible_collections.pep493.https.plugins.module_utils._trust import service_bundle
from ansible_collections.pep493.https.plugins.module_utils._trust import x509

HOST = 'host'
SERVICE = 'service'
NAME_MAX = 200
# how a CA came to be tried for an endpoint (the second probe's ``matched_by``)
BY_NAME_AND_KEY = 'issuer name and key identifier'
BY_NAME = 'issuer name only'
BY_CHAIN = 'as the root of the chain the server sent'


class ConfiguredCa(object):
    """One CA of the policy: ``name`` (as the forecast reports it), ``certificate`` (an
    x509.Certificate) and ``services`` (the units it is trusted for; empty: host-wide)."""

    __slots__ = ('name', 'certificate', 'services')

    def __init__(self, name, certificate, services):
        self.name = name
        self.certificate = certificate
        self.services = services

    @property
    def scope(self):
        return SERVICE if self.services else HOST


def validate_cas(items, now, unit_of=lambda name: name):
    """[ConfiguredCa] of the module's ``cas`` at ``now`` (a naive UTC datetime); ``unit_of`` gives
    the unit a (canonical) service name loads. Raises ValueError naming the item: a name that is
    empty, too long or holds a control character, content that is not exactly one CA certificate
    valid now (x509.validate_ca's rule, as ca_trust and service_verification apply it)."""
    found = []
    for index, item in enumerate(items or []):
        where = 'cas[%d]' % index
        # Python 2's AnsibleModule gives text options as UTF-8 bytes
        name = quoting.text(item['name']) if item.get('name') is not None else None
        if not name or len(name) > NAME_MAX or quoting.escaped(name) != name:
            raise ValueError('%s.name %s: give the name the forecast reports the CA by, 1 to %d printable characters'
                             % (where, quoting.show(name), NAME_MAX))
        certificate = x509.validate_ca(item.get('content') or '', now, '%s.content' % where)
        found.append(ConfiguredCa(name, certificate, set(unit_of(service) for service in item.get('services') or [])))
    return found


def applies(ca, target):
    """Whether ``ca`` is trusted by ``target`` once the policy is in place."""
    return not ca.services or (target.name is not None and target.name in ca.services)


def untrusted(endpoint):
    """Whether the standard library or requests found the endpoint's chain untrusted."""
    return (endpoint.get('result') == tlsprobe.UNTRUSTED
            or (endpoint.get('requests') or {}).get('result') == tlsprobe.UNTRUSTED)


def peer_certificate(endpoint):
    """The endpoint's certificate (an x509.Certificate) from the probe, or None."""
    text = endpoint.get('certificate')
    if not text:
        return None
    try:
        found = x509.load_certificates(text)
    except x509.CertificateError:
        return None
    return found[0] if len(found) == 1 else None


def candidates(target, cas):
    """[(endpoint, [(ca, matched_by)])] of ``target``'s untrusted endpoints and the CAs of ``cas``
    that apply to it and may fix each: those its certificate names as its issuer (``matched_by``:
    BY_NAME_AND_KEY when a key identifier confirms the name, BY_NAME when the name alone matches);
    where it names none of them and is not self-issued, every one, as a possible root of the chain
    the server sends (BY_CHAIN: an intermediate CA issued the certificate)."""
    found = []
    for endpoint in target.endpoints:
        if not untrusted(endpoint):
            continue
        peer = peer_certificate(endpoint)
        if peer is None:
            continue
        applying = [ca for ca in cas if applies(ca, target)]
        matched = [(ca, x509.issued_by(peer, ca.certificate)) for ca in applying]
        named = [(ca, BY_NAME_AND_KEY if confirmed else BY_NAME) for ca, confirmed in matched if confirmed is not False]
        if named:
            found.append((endpoint, named))
        elif applying and not peer.self_issued:
            found.append((endpoint, [(ca, BY_CHAIN) for ca in applying]))
    return found


def _same_file(one, other):
    return bool(one) and bool(other) and os.path.realpath(one) == os.path.realpath(other)


def probe_environment(target, ca, bundle, system_path):
    """(environment, None) in which ``target``'s interpreter trusts ``ca`` as the policy will make it
    trust it, or (None, why) when a host-wide CA does not reach it."""
    environment = dict(target.environment)
    if ca.scope == SERVICE:
        environment.update(SSL_CERT_FILE=bundle, REQUESTS_CA_BUNDLE=bundle)
        return environment, None
    own = environment.get('SSL_CERT_FILE')
    if own and not _same_file(own, system_path):
        return None, ('its SSL_CERT_FILE names %s, not the system bundle %s that a host-wide CA joins'
                      % (quoting.show(own), system_path))
    environment['SSL_CERT_FILE'] = bundle
    if _same_file((target.answer or {}).get('requests_bundle'), system_path):
        environment['REQUESTS_CA_BUNDLE'] = bundle
    return environment, None


def _record(ca, matched_by, found=None, why=None):
    found = found or dict(result=None, error=why, requests=None)
    return dict(ca=ca.name, subject=quoting.escaped(ca.certificate.subject), scope=ca.scope, matched_by=matched_by,
                result=found.get('result'), error=found.get('error'), requests=found.get('requests'))


def fixes(endpoint, record):
    """Whether the second probe ``record`` turns what was untrusted into ok: the standard library's
    result when it was untrusted, else requests'."""
    if endpoint.get('result') == tlsprobe.UNTRUSTED:
        return record['result'] == tlsprobe.OK
    return (record.get('requests') or {}).get('result') == tlsprobe.OK


def try_cas(targets, cas, files, timeout, budget, run=tlsprobe.run_groups):
    """Probe again every untrusted endpoint of ``targets`` with each configured CA of ``cas`` that
    may fix it (``candidates``), within ``budget`` seconds; sets on each such endpoint ``trust``
    (the second probe of the CA that fixes it, else of the first CA that names its issuer) and
    ``fixed_by`` (that CA's name, or None). An endpoint whose CAs were tried only as a root of its
    chain, none fixing it, is left as it was: no CA names its issuer, none is claimed. Returns how
    many second probes were made."""
    work = []
    for target in targets:
        if target.interpreter is not None and target.answer is not None:
            work.extend((target, endpoint, matched) for endpoint, matched in candidates(target, cas))
    if not work:
        return 0
    try:
        system_path, system_data = service_bundle.system_bundle(files)
    except service_bundle.BundleError as exc:
        for _target, endpoint, matched in work:
            if matched[0][1] != BY_CHAIN:
                endpoint.update(fixed_by=None, trust=_record(matched[0][0], matched[0][1],
                                                             why='not probed again: %s' % exc))
        return 0
    folder = tempfile.mkdtemp(prefix='pep493-forecast-')
    try:
        return _probe_again(work, system_path, system_data, folder, timeout, budget, run)
    finally:
        shutil.rmtree(folder, True)


def _probe_again(work, system_path, system_data, folder, timeout, budget, run):
    bundles = {}
    groups = {}
    tried = []
    for target, endpoint, matched in work:
        records = []
        for ca, matched_by in matched:
            if id(ca) not in bundles:
                bundles[id(ca)] = path = os.path.join(folder, 'ca-%d.pem' % len(bundles))
                with open(path, 'wb') as handle:
                    handle.write(service_bundle.render_bundle(system_path, system_data, ca.certificate))
            environment, why = probe_environment(target, ca, bundles[id(ca)], system_path)
            if environment is None:
                records.append((ca, matched_by, None, 'not probed again: %s' % why))
                continue
            key = (target.interpreter, tuple(sorted(environment.items())))
            group = groups.setdefault(key, tlsprobe.Group(target.interpreter, environment, []))
            records.append((ca, matched_by, (group, len(group.endpoints)), None))
            group.endpoints.append(dict(host=endpoint['host'], port=endpoint['port'],
                                        server_name=endpoint['server_name'],
                                        check_address=endpoint.get('check_address', False)))
        tried.append((endpoint, records))
    ordered = [groups[key] for key in sorted(groups)]
    if ordered:
        run(ordered, timeout, budget)
    for endpoint, records in tried:
        made = []
        for ca, matched_by, place, why in records:
            found = place[0].answer['results'][place[1]] if place is not None else None
            made.append(_record(ca, matched_by, found, why))
        fixing = [record for record in made if fixes(endpoint, record)]
        if not fixing and all(record['matched_by'] == BY_CHAIN for record in made):
            continue
        endpoint['trust'] = (fixing or made)[0]
        endpoint['fixed_by'] = fixing[0]['ca'] if fixing else None
    return sum(len(group.endpoints) for group in ordered)
