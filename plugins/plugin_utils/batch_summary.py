# -*- coding: utf-8 -*-
# Copyright: (c) pep493.https contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One line per host of an enforce or rollback batch (controller only), from the facts the role
and the playbook set: what changed, the host's state, or why the policy failed there."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping


def _names(items):
    return ', '.join(item['name'] for item in items)


def _cfg_part(cfg, check, entry_point):
    """What happened to the cfg file, or None when its task did not run."""
    if not isinstance(cfg, Mapping) or not cfg or cfg.get('skipped') or 'verify' not in cfg:
        return None
    if entry_point == 'rollback' and 'restored_from' in cfg:
        if not cfg['restored_from']:
            return 'cfg %s left as it is: no backup and no record of it' % cfg.get('verify')
        if not cfg.get('changed'):
            text = 'cfg already as in %s' % cfg['restored_from']
        elif cfg.get('verify') == 'missing':
            text = 'cfg %s: there was no file before its first change (%s)' % (
                'would be removed' if check else 'removed', cfg['restored_from'])
        else:
            text = 'cfg %srestored from %s (%s -> %s)' % (
                'would be ' if check else '', cfg['restored_from'], cfg.get('previous'), cfg.get('verify'))
        skipped = [entry['path'] for entry in cfg.get('skipped_backups') or []]
        if skipped:
            text += '; malformed backups skipped: %s' % ', '.join(skipped)
        return text
    if not cfg.get('changed'):
        return 'cfg %s (unchanged)' % cfg.get('verify')
    text = 'cfg %s%s -> %s' % ('would change ' if check else '', cfg.get('previous'), cfg.get('verify'))
    if cfg.get('probed') and not cfg.get('consumers'):
        text += ' (no Python on this host reads the file)'
    return text


def _services_parts(services, expired, expired_policy, restart, check, root=None):
    """Added, updated and removed drop-ins, separately; restarts; expired exceptions."""
    if not isinstance(services, Mapping) or not services or services.get('skipped') or 'services' not in services:
        return []
    dates = dict((item['name'], item.get('expires')) for item in expired or [])
    every = (services.get('services') or []) + (services.get('removed') or [])
    parts = []
    for action, label in (('created', 'added'), ('updated', 'updated'), ('removed', 'removed')):
        units = ['%s (expired %s)' % (item['name'], dates[item['name']]) if action == 'removed' and item['name'] in dates
                 else item['name'] for item in every if item.get('action') == action]
        if units:
            parts.append('drop-ins %s%s: %s' % ('that would be ' if check else '', label, ', '.join(units)))
    if not parts:
        parts.append('drop-ins unchanged')
    elif root:
        parts.append('under root %s: no reload or restart' % root)
    elif not services.get('systemd_running'):
        parts.append('systemd is not running here: no reload or restart')
    if services.get('restarted'):
        parts.append('%s%s: %s' % ('would ' if check else '', restart or 'restart', ', '.join(services['restarted'])))
    if services.get('pending_restart'):
        parts.append('pending a restart: %s' % ', '.join(services['pending_restart']))
    removed = set(item['name'] for item in every if item.get('action') == 'removed')
    left_out = [item for item in expired or [] if item['name'] not in removed]
    if left_out and expired_policy == 'keep':
        parts.append('expired but kept (pep493_https_expired: keep): %s' % _names(left_out))
    elif left_out:
        parts.append('expired in the inventory, not applied: %s' % ', '.join(
            '%s (%s)' % (item['name'], item.get('expires')) for item in left_out))
    return parts


def _state_part(status, check):
    verdict = (status or {}).get('compliance') or {}
    state = verdict.get('state')
    if not state:
        return 'not audited'
    text = state
    if verdict.get('predicted'):
        # the audit of the planned state: what check mode says, and all a run without the audit has
        text = 'would be %s' % state if check else '%s (predicted; not audited after the change)' % state
    reasons = verdict.get('reasons') or []
    if reasons and state != 'compliant':
        text += ' - %s%s' % (reasons[0], ' (+%d more)' % (len(reasons) - 1) if len(reasons) > 1 else '')
    return text


def host_summary(host, hv):
    """One line for one host of an enforce or rollback batch, from the facts the role and the
    playbook set: ``pep493_https_applied`` (the module results), ``pep493_https_status`` (the
    audit) and ``pep493_https_failure`` (why the role failed on the host)."""
    applied = hv.get('pep493_https_applied') or {}
    check = bool(applied.get('check_mode'))
    entry_point = applied.get('entry_point', 'main')
    parts = []
    cfg = _cfg_part(applied.get('cfg'), check, entry_point)
    if cfg:
        parts.append(cfg)
    parts.extend(_services_parts(applied.get('services'), applied.get('expired'), applied.get('expired_policy'),
                                 applied.get('restart'), check, applied.get('root')))
    failure = hv.get('pep493_https_failure')
    if failure:
        changed = [part for part in parts if not part.endswith('(unchanged)') and part != 'drop-ins unchanged']
        return '%s: FAILED - %s%s' % (host, failure, '; changed before the failure: %s' % '; '.join(changed)
                                      if changed else '')
    if entry_point == 'main':
        parts.insert(0, _state_part(hv.get('pep493_https_status'), check))
    return '%s: %s' % (host, '; '.join(parts) or 'nothing to do')


def batch_summary(batch, hostvars):
    """The summary of an enforce or rollback batch: a header line, then one line per host."""
    lines = ['batch of %d host%s: %s' % (len(batch), '' if len(batch) == 1 else 's', ', '.join(batch))]
    for host in batch:
        try:
            hv = hostvars[host]
        except (KeyError, TypeError):
            hv = {}
        lines.append(host_summary(host, hv))
    return lines
