# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one clock of the collection and the dates it reads.

``today()`` is the date that decides whether an exception has expired: the UTC date. The
modules, the policy role and the fleet report all call it, so they agree on which exceptions
are expired on a given day, whatever a host's local time zone says. An exception is valid
through its ``expires`` day and expired from the day after (``is_expired``). ``utc_now()`` is the
same clock to the second, for certificates (their dates are UTC times).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import re
import time

from ansible_collections.pep493.https.plugins.module_utils._syntax import quoting

_DATE = re.compile(r'([0-9]{4})-([0-9]{2})-([0-9]{2})\Z')  # ASCII digits only, whatever re's Unicode rules


class DateError(ValueError):
    """Text that is not a real ``YYYY-MM-DD`` date."""


def today(now=None):
    """The UTC date of ``now`` (seconds since the epoch; default: the current time)."""
    if now is None:
        now = time.time()
    return datetime.date(*time.gmtime(now)[:3])


def utc_now(now=None):
    """The naive UTC datetime of ``now`` (seconds since the epoch; default: the current time),
    to the second, as certificate dates are read (``x509.Certificate.not_after``)."""
    if now is None:
        now = time.time()
    return datetime.datetime(*time.gmtime(now)[:6])


def validate_expires(text):
    """A ``datetime.date`` from ``YYYY-MM-DD`` (or a date given as such); None when not given."""
    if text is None or text == '':
        return None
    if isinstance(text, datetime.datetime):
        return text.date()
    if isinstance(text, datetime.date):
        return text
    if not isinstance(text, quoting.TEXT_TYPES):
        raise DateError('expires %s is not a date; use YYYY-MM-DD' % quoting.show(text))
    match = _DATE.match(quoting.text(text).strip())
    if not match:
        raise DateError('expires %s is not a date of the form YYYY-MM-DD' % quoting.show(text))
    try:
        return datetime.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError as exc:
        raise DateError('expires %s is not a real date: %s' % (quoting.show(text), exc))


def is_expired(expires, day):
    """Whether an exception that ``expires`` (a date or ``YYYY-MM-DD``) has expired on ``day``: it
    is valid through its expiry day. A date that is not real never expires (the audit reports it)."""
    if expires is None:
        return False
    if not isinstance(expires, datetime.date):
        try:
            expires = validate_expires(expires)
        except DateError:
            return False
    if isinstance(expires, datetime.datetime):
        expires = expires.date()
    if isinstance(day, datetime.datetime):
        day = day.date()
    return day > expires
