# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Trust-store support for the ca_trust module: reading CA certificates with the standard library only."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type
