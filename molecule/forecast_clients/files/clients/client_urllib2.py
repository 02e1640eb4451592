# -*- coding: utf-8 -*-
"""Test fixture (molecule/forecast_clients): a Python 2 service on urllib2.urlopen (see pep493_client)."""
# a service on urllib2 is what this fixture is, not collection code
import urllib2  # pylint: disable=ansible-bad-import

import pep493_client as client


def attempt():
    response = urllib2.urlopen(client.URL, timeout=client.TIMEOUT)
    response.read()
    return 'HTTP %d' % response.getcode()


client.run(attempt)
