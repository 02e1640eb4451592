#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: verification_forecast
short_description: Forecast which Python 2 services would break once they verify HTTPS certificates, and why (PEP 493)
version_added: 0.1.0
description:
  - Answers, before verification is turned on, which running services will fail, against which endpoint,
    for what reason. It reads and probes; it never changes anything.
  - The services looked at are those of the host model (the same as M(pep493.https.verification_info)) one of
    whose C(ExecStartPre=) or C(ExecStart=) commands runs Python 2 (directly, through C(env) or by its C(#!)
    line), except those O(keep_unverified) names, unless O(all_python2=true).
  - "Endpoints of a service: those declared in O(endpoints), and those observed: the outgoing TCP connections
    of the processes of its cgroup (their socket inodes matched in C(/proc/<pid>/net/tcp) and C(tcp6)),
    looked at once, or over O(observe_seconds). An observed endpoint is an IP address: the name the service asks
    for is not known, so its result is V(name_unknown) even when its chain is trusted - declare it with its
    O(endpoints[].server_name)."
  - "PEP 493's knobs govern one thing: the standard library's default HTTPS context (C(urllib2), C(httplib),
    C(xmlrpclib), C(urllib)). So the code each Python 2 command runs (its script, C(-m) module or C(-c) text) is
    read, with the modules it imports from outside the standard library, found as its interpreter finds them -
    read-only and bounded - to learn which HTTPS stacks it uses (RV(services[].stacks)): requests, urllib3 and
    raw C(ssl) verify or not by their own rules, whatever the knobs say."
  - Each endpoint is probed by TLS handshakes only (no application data) made by the service's own
    interpreter, with the environment systemd gives the service (C(SSL_CERT_FILE), C(SSL_CERT_DIR) and the
    rest) without C(PYTHONHTTPSVERIFY) - so the answer is what the service itself will see. One handshake with
    that interpreter's default verifying context (C(ssl.create_default_context()), what the standard library uses
    once the knobs say verify), and, where requests is installed, one with only the CA bundle requests loads in
    that environment (C(REQUESTS_CA_BUNDLE), C(CURL_CA_BUNDLE), else its C(certs.where()), which distributions
    point at the system bundle). The peer certificate's subject, issuer, names and dates come from an unverified
    handshake made first.
  - Never V(ok) unless proven - a handshake cut off or reset, a timeout, a name not checked, code that could not
    all be read, give V(unknown) with the reason and what to declare.
  - Bounded - one deadline per endpoint (O(timeout)) for its name lookup, its connection and every handshake
    together, never retried; one deadline for the host (O(budget)), whatever the size of the input; at most
    O(max_endpoints) endpoints; finite limits only. Endpoints of one interpreter and environment are probed by
    one process, several at a time; at most 8 processes run at once, each in its own process group, which the
    deadline ends whole.
  - Endpoints declared without O(endpoints[].services) are the host's own (cron jobs, scripts), probed by
    O(interpreter) in a clean environment (C(PATH) and C(LC_ALL=C) only).
  - "Which configured CA fixes what: for an endpoint found V(untrusted) (by the standard library, or by requests with
    its bundle), its certificate is matched to the CAs of O(cas) that apply to it by issuer name and key identifier
    (no signature is checked, so a match is only a candidate), or, when it names none of them and is not self-issued
    (an intermediate CA issued it), every one of them is a candidate for the root of the chain the server sends;
    the endpoint is then probed again by the same
    interpreter, verification on, with a bundle of the system bundle and that CA (as the service's bundle of
    M(pep493.https.service_verification) is made) named by C(SSL_CERT_FILE), and by C(REQUESTS_CA_BUNDLE) for a
    service's own CA, or for a host-wide CA where requests loads the system bundle. Only when that second probe
    passes is the CA the endpoint's fix (RV(services[].endpoints[].fixed_by)) and the verdict V(ok), \"fixed by
    trusting\" it; a CA that names the issuer but does not pass leaves the break, and the reason says so (a CA
    tried only for the chain and not passing is not reported). The
    bundles are written in a private temporary folder, removed afterwards; nothing is installed."
author:
  - pep493.https maintainers (!UNKNOWN)
options:
  endpoints:
    description: Endpoints the services, or the host's own scripts, talk to.
    type: list
    elements: dict
    default: []
    suboptions:
      endpoint:
        description:
          - C(host:port), C([IPv6 address]:port), or a host alone (port 443).
        type: str
        required: true
      server_name:
        description:
          - The name the client asks for and checks the certificate against. Defaults to the host when it is a
            name; for an IP address without it, the host name check is reported as not made.
        type: str
      services:
        description: The services that talk to it (C(app) means C(app.service)); empty for the host's own scripts.
        type: list
        elements: str
        default: []
  cas:
    description:
      - CAs the policy will trust, to learn which V(untrusted) endpoint each would fix (never installed by this module).
      - Each must be exactly one CA certificate, valid now, as M(pep493.https.ca_trust) and the exceptions' C(ca) of
        M(pep493.https.service_verification) require; anything else is refused, naming the item.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The name the forecast reports the CA by (RV(services[].endpoints[].fixed_by)).
        type: str
        required: true
      content:
        description: The CA certificate, PEM.
        type: str
        required: true
      services:
        description:
          - The services that trust it (a service's own CA, as an exception's C(ca) gives it); empty for a CA trusted
            host-wide (M(pep493.https.ca_trust)), which applies to every service and to the host's own endpoints.
        type: list
        elements: str
        default: []
  services:
    description: Only forecast these services (by default every Python 2 service).
    type: list
    elements: str
  keep_unverified:
    description:
      - Services the policy keeps unverified (their exception stays). They are left out, unless O(all_python2).
    type: list
    elements: str
    default: []
  all_python2:
    description:
      - Also forecast the services in O(keep_unverified), with RV(services[].policy_verifies) false (to see
        which exceptions could go).
    type: bool
    default: false
  observe_seconds:
    description:
      - How long to watch the services' connections, to catch clients that connect now and then. V(0) looks once.
    type: float
    default: 0
  timeout:
    description: Seconds for each endpoint (connection and both handshakes).
    type: float
    default: 5
  budget:
    description:
      - Seconds for all probes of the host. Endpoints without an answer by then are reported as V(timeout).
    type: float
    default: 60
  max_endpoints:
    description: At most this many endpoints are probed; the rest are reported with a null result and why.
    type: int
    default: 50
  interpreter:
    description:
      - The Python 2 that probes the host's own endpoints (those without O(endpoints[].services)). By default the
        first of C(/usr/bin/python2.7), C(/usr/bin/python2), C(/usr/local/bin/python2.7), C(/usr/bin/python) that is a Python 2.
    type: path
extends_documentation_fragment:
  - pep493.https.root
  - pep493.https.attributes
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.flow
attributes:
  check_mode:
    support: full
    details: The module never changes anything; check mode returns the same forecast.
  diff_mode:
    support: none
    details: Nothing changes, so there is nothing to show as a diff.
notes:
  - Under O(root) the services that would be forecast are listed, their endpoints are not probed (a null result
    and why) and every verdict is V(unknown).
  - The probe runs as the user running the module (root as a rule), not as the service's C(User=).
  - A service is found through systemd (its processes, its main process's C(PYTHONHTTPSVERIFY)); without systemd
    only declared endpoints are probed, and today's verification comes from the unit files.
  - Python 2 older than 2.7.9 has no C(ssl.create_default_context); its endpoints get a null result and the reason.
seealso:
  - name: PEP 493
    description: HTTPS verification migration tools for Python 2.7.
    link: https://peps.python.org/pep-0493/
  - module: pep493.https.verification_info
  - module: pep493.https.service_verification
'''

EXAMPLES = r'''
- name: Which services would break once verification is on
  pep493.https.verification_forecast:
    endpoints:
      - endpoint: ambari.example.com:8440
        services: [ambari-agent]
      - endpoint: 10.0.4.7:636
        server_name: ldap.example.com
        services: [legacy-app]
      - endpoint: repo.example.com  # a cron job of the host's own, port 443
    observe_seconds: 5
  register: forecast

- name: Stop before enforcing when one would
  ansible.builtin.assert:
    that: forecast.summary.would_break == 0
    fail_msg: "{{ forecast.summary.findings | join(' ') }}"

- name: Which exceptions could go (the services they cover already pass verification)
  pep493.https.verification_forecast:
    keep_unverified: [ambari-agent]
    all_python2: true
    timeout: 3
    budget: 30
'''

RETURN = r'''
services:
  description: One entry per Python 2 service forecast, sorted by unit name.
  returned: always
  type: list
  elements: dict
  contains:
    service:
      description: The unit.
      type: str
      sample: legacy-app.service
    interpreter:
      description: The Python 2 its commands run, which made the probes; null when none could be found (RV(services[].why)).
      type: str
      sample: /usr/bin/python2.7
    python_version:
      description: That interpreter's version, null when it did not answer.
      type: str
      sample: 2.7.18
    verifies_today:
      description:
        - Whether its Python 2 verifies certificates today - from C(PYTHONHTTPSVERIFY) of its running main process
          (of its unit files when it is not running), else the interpreter's default with the host's cfg file.
        - Null when it cannot be told.
      type: bool
    policy_verifies:
      description: False for a service in O(keep_unverified).
      type: bool
    exception:
      description:
        - The exception of M(pep493.https.service_verification) that applies to it (its drop-in), with its C(reason)
          and C(expires) date; null when it has none.
      type: dict
      sample: {"reason": "forecast: would break on ambari.example.com:8440 (untrusted)", "expires": "2030-01-31"}
    verdict:
      description:
        - V(would_break) - its code uses the standard library's HTTPS, it runs unverified today, and an endpoint
          fails verification.
        - V(already_failing) - a stack that verifies today fails on an endpoint (the standard library when it
          verifies already, requests with its bundle, urllib3 1.25 and later), or a declared endpoint cannot be
          reached over TLS at all (it fails there today and after).
        - V(unaffected) - its code uses no HTTPS the knobs govern (requests, urllib3 or raw C(ssl) only, or none);
          enforcing changes nothing for it, and an exception for it does nothing.
        - V(ok) - every endpoint was checked, its name included, and each passes verification. An observed
          connection that does not speak TLS (plain HTTP or another protocol) is left out; a service with only
          such connections is V(unknown).
        - V(unknown) - no endpoint was seen or declared, an endpoint could not be proven, whether its code uses the
          standard library's HTTPS cannot be told where that matters, or whether it verifies today cannot be told;
          for a service on a stack the knobs do not govern, whether it works today cannot be told (an observed
          connection cut off, or a stack that checks names on a connection seen by its address only).
          Never reported as V(ok).
      type: str
      sample: would_break
    why:
      description:
        - The reason for the verdict, one sentence, with what to declare when it is V(unknown); when a CA of O(cas)
          fixes it (RV(services[].fixed)) it starts with C(fixed by trusting) and names it, and for a break that a CA
          naming the issuer does not fix it says what its second probe saw.
      type: str
    fixed_by:
      description: The names of the CAs of O(cas) proven (by a second probe) to fix one of its endpoints.
      type: list
      elements: str
      sample: ["acme-root-2026"]
    fixed:
      description:
        - Whether a CA of O(cas) fixes it - its verdict is V(ok), or V(unaffected) (a service on requests whose bundle
          gets the CA), and without the CAs it would break or fails already. A CA that fixes only what the service
          does not use (the standard library's handshake of a service on requests that passes anyway) does not.
      type: bool
    governed:
      description:
        - Whether its Python 2 code uses the standard library's HTTPS, which the knobs govern; null when that cannot
          be told (code that could not all be read, a limit of the walk).
      type: bool
    stacks:
      description:
        - Per HTTPS stack (C(stdlib), C(requests), C(urllib3), C(raw_ssl), C(pycurl), C(httplib2), C(other)) - whether
          its code uses it (C(used), null when that cannot be told), whether the knobs govern it (C(governed)),
          whether it verifies without the knobs (C(verifies_without_knobs)), whose trust it uses (C(trust)) and notes.
      type: dict
    processes:
      description: The PIDs of its cgroup, whose connections were observed.
      type: list
      elements: int
    endpoints:
      description: Its endpoints, declared first.
      type: list
      elements: dict
      contains:
        endpoint:
          description: C(host:port).
          type: str
          sample: ambari.example.com:8440
        host:
          description: The host name or IP address connected to.
          type: str
        port:
          description: The port.
          type: int
        server_name:
          description: The name sent and checked, null for an IP address without one.
          type: str
        source:
          description: V(declared) or V(observed).
          type: str
        hostname_checked:
          description:
            - Whether a name is checked - its O(endpoints[].server_name), or the address itself for an endpoint
              declared by its address alone (what a client asking for that address checks); false for an observed one.
          type: bool
        result:
          description:
            - What the standard library sees once it verifies - V(ok), V(untrusted) (unknown CA, self-signed),
              V(expired) (also not yet valid), V(hostname_mismatch), V(name_unknown) (the chain is trusted but the
              name asked for is not known), V(not_tls) (it answered, not in TLS), V(handshake_failed) (cut off or
              reset before the certificates were checked), V(unreachable) or V(timeout).
            - Null when not probed (RV(services[].endpoints[].error) says why).
          type: str
          sample: untrusted
        requests:
          description:
            - What requests sees with its own bundle - C(result) and C(error), as above; null where requests is not
              installed for its interpreter.
          type: dict
        error:
          description: What the handshake said, or why it was not made; null when V(ok).
          type: str
        fixed_by:
          description:
            - The name of the CA of O(cas) whose second probe passed where RV(services[].endpoints[].result) (or
              requests' result) is V(untrusted); null when none did. RV(services[].endpoints[].result) stays what the
              host gives today.
          type: str
          sample: acme-root-2026
        trust:
          description:
            - The second probe with a CA of O(cas) that may fix the endpoint (the one that fixes it, else the first
              that names its issuer); null when none names its issuer and none tried as the root of its chain fixes it.
          type: dict
          contains:
            ca:
              description: The CA's name.
              type: str
            subject:
              description: The CA's subject.
              type: str
              sample: O = Acme, CN = Acme Internal Root
            scope:
              description: V(host) (a host-wide CA) or V(service) (a service's own).
              type: str
            matched_by:
              description: V(issuer name and key identifier), V(issuer name only) where no key identifier is there to compare, or
                V(as the root of the chain the server sent) where the certificate names another issuer (an intermediate).
              type: str
            result:
              description: The standard library's result with the CA, as RV(services[].endpoints[].result); null when not probed again.
              type: str
            error:
              description: What that handshake said, or why the endpoint was not probed again.
              type: str
            requests:
              description: What requests sees with the CA, as RV(services[].endpoints[].requests).
              type: dict
        peer:
          description: The peer certificate (from the unverified handshake), null when there was none.
          type: dict
          contains:
            subject:
              description: Its subject, C(name=value) pairs.
              type: str
              sample: commonName=ambari.example.com
            issuer:
              description: Its issuer - the CA to trust when the result is V(untrusted).
              type: str
              sample: commonName=Example Private CA
            sans:
              description: Its subject alternative names.
              type: list
              elements: str
              sample: ["DNS:ambari.example.com"]
            not_before:
              description: Start of validity, as OpenSSL prints it.
              type: str
            not_after:
              description: End of validity, as OpenSSL prints it.
              type: str
              sample: Dec 31 23:59:59 2030 GMT
    notes:
      description: Environment variables left out of the probe, and other limits of the forecast.
      type: list
      elements: str
host_wide:
  description:
    - The host's own endpoints (declared without services), as one entry with the fields of RV(services);
      null when none was declared.
  returned: always
  type: dict
summary:
  description: Counts of verdicts (of services the policy makes verify, and the host's own scripts).
  returned: always
  type: dict
  contains:
    would_break:
      description: How many would break.
      type: int
    ok:
      description: How many are fine.
      type: int
    already_failing:
      description: How many fail already.
      type: int
    unaffected:
      description: How many use no HTTPS the knobs govern.
      type: int
    unknown:
      description: How many cannot be told.
      type: int
    fixed:
      description: How many a CA of O(cas) fixes (RV(services[].fixed)).
      type: int
    probed_endpoints:
      description: How many endpoints were probed.
      type: int
    findings:
      description:
        - One sentence per endpoint that breaks a service, then one per service that cannot be forecast, then one per
          service a CA of O(cas) fixes.
      type: list
      elements: str
      sample: ["legacy-app.service: would break on 10.0.4.7:636 (untrusted); issuer commonName=Example Private CA"]
systemd_running:
  description: Whether systemd was asked (the services' processes observed).
  returned: always
  type: bool
scan_errors:
  description: Parts of the host that could not be read or asked.
  returned: always
  type: list
  elements: str
'''

from ansible.module_utils.basic import AnsibleModule


def argument_spec():
    endpoint = dict(endpoint=dict(type='str', required=True), server_name=dict(type='str'),
                    services=dict(type='list', elements='str', default=[]))
    return dict(
        endpoints=dict(type='list', elements='dict', options=endpoint, default=[]),
        cas=dict(type='list', elements='dict', default=[], options=dict(
            name=dict(type='str', required=True), content=dict(type='str', required=True),
            services=dict(type='list', elements='str', default=[]))),
        services=dict(type='list', elements='str'),
        keep_unverified=dict(type='list', elements='str', default=[]),
        all_python2=dict(type='bool', default=False),
        observe_seconds=dict(type='float', default=0.0),
        timeout=dict(type='float', default=5.0),
        budget=dict(type='float', default=60.0),
        max_endpoints=dict(type='int', default=50),
        interpreter=dict(type='path'),
        root=dict(type='path'),
    )


def module_kwargs():
    """The AnsibleModule arguments: main() and the action plugin (which checks a task on the controller) use them."""
    return dict(argument_spec=argument_spec(), supports_check_mode=True)


def main():
    # imported here, not above: the action plugin imports this file on the controller for module_kwargs() alone
    from ansible_collections.pep493.https.plugins.module_utils._backends import verification_forecast as backend
    backend.run(AnsibleModule(**module_kwargs()))


if __name__ == '__main__':
    main()
