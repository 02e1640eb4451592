# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hypothesis profiles of the fuzz tests: PEP493_FUZZ_PROFILE=short (make test) or long (make fuzz)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from hypothesis import HealthCheck, settings

settings.register_profile('pep493-short', max_examples=200, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile('pep493-long', max_examples=5000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
FUZZ = settings.get_profile('pep493-' + os.environ.get('PEP493_FUZZ_PROFILE', 'short'))
