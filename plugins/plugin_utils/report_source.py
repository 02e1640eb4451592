# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A ``report.json`` to merge (controller only), checked field by field before anything is merged
or written: every field the merge and the report's page read, with its type, the times real and
not later than the merge. A source that is wrong is refused with a SourceError that names it and
the field: ``slice2/report.json: hosts[3] (web-7).reasons is a number, not a list of text``.
What a source holds besides those fields is left out of the merge."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
from collections.abc import Mapping

from ansible_collections.pep493.https.plugins.plugin_utils import compliance as rules
from ansible_collections.pep493.https.plugins.plugin_utils.policy_plan import PolicyError, as_date

# the report versions a merge reads (1 and 2 before the risk ranking: no unverified, no would_break)
SCHEMA_VERSIONS = (1, 2, 3)
TIME_FORMAT = '%Y-%m-%dT%H:%M:%SZ'


class SourceError(ValueError):
    """A source that cannot be merged; the message names the source and the field."""


class _Wrong(Exception):
    """A field that is wrong: ``path`` (from the report's top) and what is wrong with it."""

    def __init__(self, path, problem):
        super(_Wrong, self).__init__(path, problem)
        self.path = path
        self.problem = problem


def _kind(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, (int, float)):
        return 'a number'
    if isinstance(value, str):
        return 'text'
    if isinstance(value, list):
        return 'a list'
    if isinstance(value, Mapping):
        return 'a mapping'
    return 'a %s' % type(value).__name__


def _is(path, value, wanted):
    return _Wrong(path, 'is %s, not %s' % (_kind(value), wanted))


def text(path, value):
    if not isinstance(value, str):
        raise _is(path, value, 'text')
    if not value:
        raise _Wrong(path, 'is empty')


def text_or_null(path, value):
    if value is not None and not isinstance(value, str):
        raise _is(path, value, 'text or null')


def boolean(path, value):
    if not isinstance(value, bool):
        raise _is(path, value, 'true or false')


def boolean_or_null(path, value):
    if value is not None and not isinstance(value, bool):
        raise _is(path, value, 'true, false or null')


def date_or_null(path, value):
    if value is None:
        return
    try:
        if not isinstance(value, str):
            raise PolicyError(value)
        as_date(value)
    except PolicyError:
        raise _Wrong(path, 'is %s, not a date as YYYY-MM-DD' % (repr(value) if isinstance(value, str) else _kind(value)))


def one_of(*choices):
    def check(path, value):
        if value not in choices or isinstance(value, bool):
            shown = ', '.join(str(choice) if choice is not None else 'null' for choice in choices)
            found = repr(value) if isinstance(value, str) else _kind(value)
            raise _Wrong(path, 'is %s, not one of %s' % (found, shown))
    return check


def unit(path, value):
    text(path, value)
    if not value.endswith('.service') or '/' in value or len(value.split()) != 1:
        raise _Wrong(path, 'is %r, not a unit name (NAME.service)' % value)


def list_of(check, wanted='a list of text'):
    def check_list(path, value):
        if not isinstance(value, list):
            raise _is(path, value, wanted)
        for index, item in enumerate(value):
            check('%s[%d]' % (path, index), item)
    return check_list


def mapping(fields, optional=None, what='a mapping'):
    """A mapping with every field of ``fields`` (name -> check) and, when there, of ``optional``."""
    def check_mapping(path, value):
        if not isinstance(value, Mapping):
            raise _is(path, value, what)
        for name, check in fields.items():
            if name not in value:
                raise _Wrong(path, 'has no %s' % name)
            check('%s.%s' % (path, name), value[name])
        for name, check in (optional or {}).items():
            if name in value:
                check('%s.%s' % (path, name), value[name])
    return check_mapping


def _never_deployed(path, value):
    if value is not False:
        raise _Wrong(path, 'is %s, not false (the only value it has)' % _kind(value))


SERVICE = dict(unit=unit, value=text_or_null, source=text_or_null, managed=boolean, reason=text_or_null,
               expires=date_or_null, expired=boolean, effective=boolean_or_null, pending_restart=boolean)
SERVICE_OPTIONAL = dict(foreign=list_of(text), deployed=_never_deployed)
INTERPRETER = dict(path=text, version=text_or_null, verifies_by_default=boolean_or_null, reads_config=text_or_null,
                   honours_env=boolean_or_null)
BREAK = dict(service=text_or_null, endpoint=text, result=one_of('untrusted', 'expired', 'hostname_mismatch'),
             issuer=text_or_null, advice=text, until=date_or_null)
# what a CA of the policy that names the issuer did not fix (reports made before the forecast tried CAs have none)
BREAK_OPTIONAL = dict(unfixed=text_or_null)
FIXED = dict(service=text_or_null, fixed_by=list_of(text), endpoints=list_of(text))
_SERVICES = list_of(mapping(SERVICE, SERVICE_OPTIONAL, 'an exception (a mapping)'), 'a list of exceptions')


def _would_break(path, value):
    if value is not None:
        list_of(mapping(BREAK, BREAK_OPTIONAL, 'a predicted break (a mapping)'),
                'a list of predicted breaks or null')(path, value)


def _fixed_by_ca(path, value):
    if value is not None:
        list_of(mapping(FIXED, what='what a CA fixes (a mapping)'), 'a list of what CAs fix or null')(path, value)


# Every field of a host entry the merge and the page read, and its check; since schema 3 also these.
HOST = dict(
    state=one_of(*rules.STATES), compliant=boolean, reasons=list_of(text), warnings=list_of(text),
    verify=one_of('enable', 'disable', 'platform_default', 'missing', None),
    expected_verify=one_of('enable', 'disable', 'platform_default', None), host_default=boolean_or_null,
    interpreters=list_of(mapping(INTERPRETER, what='an interpreter (a mapping)'), 'a list of interpreters'),
    exceptions=_SERVICES, expired=_SERVICES, ineffective=_SERVICES, pending_restart=list_of(unit, 'a list of units'),
    findings=list_of(text))
HOST_SINCE_3 = dict(unverified=list_of(text), would_break=_would_break)
# checked and kept where a report has them (those made before the forecast tried the policy's CAs have not)
HOST_OPTIONAL = dict(fixed_by_ca=_fixed_by_ca)


def utc_time(value, what='generated'):
    """A ``datetime`` from UTC text as YYYY-MM-DDTHH:MM:SSZ; SourceError naming ``what``."""
    try:
        return datetime.datetime.strptime(value, TIME_FORMAT)
    except (TypeError, ValueError):
        raise SourceError('%s: %r is not a time as YYYY-MM-DDTHH:MM:SSZ (UTC)' % (what, value))


def checked(report, source, merged_at):
    """(when the report was made, its host entries with only the fields the merge keeps) of one
    source (``report``: JSON text or data), whose name is ``source``; the merge is made at
    ``merged_at`` (a datetime). SourceError for the first field that is wrong."""
    if isinstance(report, (bytes, str)):
        try:
            report = json.loads(report)
        except ValueError as exc:
            raise SourceError('%s: not JSON: %s' % (source, exc))
    try:
        return _checked(report, merged_at)
    except _Wrong as exc:
        raise SourceError('%s: %s %s' % (source, exc.path, exc.problem) if exc.path else '%s %s' % (source, exc.problem))


def _checked(report, merged_at):
    if not isinstance(report, Mapping):
        raise _Wrong('', 'is %s, not a fleet report (a JSON object with hosts)' % _kind(report))
    version = report.get('schema_version')
    if version not in SCHEMA_VERSIONS or isinstance(version, bool):
        raise _Wrong('schema_version', 'is %r; this collection reads %s' % (version, ', '.join(map(str, SCHEMA_VERSIONS))))
    generated = report.get('generated')
    text('generated', generated)
    try:
        made = datetime.datetime.strptime(generated, TIME_FORMAT)
    except ValueError:
        raise _Wrong('generated', 'is %r, not a time as YYYY-MM-DDTHH:MM:SSZ (UTC)' % generated)
    if made > merged_at:
        raise _Wrong('generated', 'is %s, later than this merge (%s): a report from the future cannot be the newest'
                     % (generated, merged_at.strftime(TIME_FORMAT)))
    hosts = report.get('hosts')
    if not isinstance(hosts, list):
        raise _is('hosts', hosts, 'a list of host entries')
    fields = dict(HOST, **HOST_SINCE_3) if version >= 3 else HOST
    optional = dict(HOST_OPTIONAL) if version >= 3 else dict(HOST_SINCE_3, **HOST_OPTIONAL)
    entries, seen = [], {}
    for index, entry in enumerate(hosts):
        path = 'hosts[%d]' % index
        if not isinstance(entry, Mapping):
            raise _is(path, entry, 'a host entry (a mapping)')
        if 'host' not in entry:
            raise _Wrong(path, 'has no host')
        text(path + '.host', entry['host'])
        path = '%s (%s)' % (path, entry['host'])
        if entry['host'] in seen:
            raise _Wrong(path, 'is listed twice (also hosts[%d])' % seen[entry['host']])
        seen[entry['host']] = index
        mapping(fields, optional)(path, entry)
        entries.append(_kept(entry))
    return generated, entries


def _kept(entry):
    """The entry with the fields the merge keeps, each exception with those of an exception."""
    kept = dict((name, entry[name]) for name in ['host'] + list(HOST) + list(HOST_SINCE_3) + list(HOST_OPTIONAL)
                if name in entry)
    for name in ('exceptions', 'expired', 'ineffective'):
        kept[name] = [dict((key, row[key]) for key in list(SERVICE) + list(SERVICE_OPTIONAL) if key in row)
                      for row in entry[name]]
    return kept
