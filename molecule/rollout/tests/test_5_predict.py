"""rollout: a dry run predicts the real run. A hand-made override.conf with PYTHONHTTPSVERIFY=0 on a
unit the policy does not list: enforce --check --diff says the canary would not comply and names
the unit; the real run fails the canary before its first write and leaves it byte for byte as it was."""

import pytest

import rollout_lib as r

UNIT = "pep493-foreign.service"
OVERRIDE = "/etc/systemd/system/%s.d/override.conf" % UNIT
REASON = "%s has PYTHONHTTPSVERIFY=0 from %s and no exception in the policy" % (UNIT, OVERRIDE)
FAILED = "FAILED - Refuse a policy the host would not comply with: would be non_compliant - " + REASON


def files_the_policy_could_touch():
    """Every file in the cfg folder and in every drop-in folder, with its checksum, mode and mtime."""
    return r.sh(r.CANARY, "find /etc/python /etc/systemd/system -mindepth 1 \\( -path '/etc/python/*' -o "
                          "-path '/etc/systemd/system/*.d' -o -path '/etc/systemd/system/*.d/*' \\) | sort | "
                          "while read -r f; do if [ -f \"$f\" ]; then echo \"$f $(stat -c '%a %Y' \"$f\") "
                          "$(sha256sum < \"$f\" | cut -c1-64)\"; else echo \"$f/\"; fi; done")


@pytest.fixture(scope="module")
def runs():
    r.sh(r.CANARY, "printf '[Service]\\nType=oneshot\\nExecStart=/usr/bin/python2.7 -c pass\\n' "
                   "> /etc/systemd/system/%s && mkdir -p %s.d && printf '[Service]\\nEnvironment=PYTHONHTTPSVERIFY=0\\n' "
                   "> %s && systemctl daemon-reload" % (UNIT, "/etc/systemd/system/" + UNIT, OVERRIDE))
    before = (r.host_state(r.CANARY), files_the_policy_could_touch())
    check = r.playbook("enforce", "--limit", r.CANARY, "--check", "--diff")
    after_check = (r.host_state(r.CANARY), files_the_policy_could_touch())
    real = r.playbook("enforce", "--limit", r.CANARY)
    after_real = (r.host_state(r.CANARY), files_the_policy_could_touch())
    yield dict(before=before, check=check, after_check=after_check, real=real, after_real=after_real)
    r.sh(r.CANARY, "rm -r /etc/systemd/system/%s /etc/systemd/system/%s.d && systemctl daemon-reload" % (UNIT, UNIT))


def test_the_canary_is_one_the_policy_would_change(runs):
    # rolled back to the file it arrived with: a real run that went ahead would change it
    state = runs["before"][0]
    assert state["cfg"] == r.sha256(r.seeded()[r.CANARY]) and state["dropins"] == []


def test_the_dry_run_predicts_the_failure_and_names_the_unit(runs):
    rc, out = runs["check"]
    assert rc != 0, out[-3000:]
    assert r.summary(out)[r.CANARY] == FAILED + ". Nothing was changed."
    assert runs["after_check"] == runs["before"]


def test_the_real_run_fails_the_canary_before_touching_it(runs):
    rc, out = runs["real"]
    assert rc != 0, out[-3000:]
    line = r.summary(out)[r.CANARY]
    assert line == FAILED + ". Nothing was changed.", line
    assert "changed before the failure" not in line
    recap = [x for x in out.split("PLAY RECAP")[1].splitlines() if x.startswith(r.CANARY)]
    assert " changed=0 " in recap[0], recap
    assert runs["after_real"] == runs["before"]
