# Test fixture of the host_model scenarios: lays out and starts the units that exercise every
# rule of the host model (run once by prepare.yml, as root, with the container's python3).
# Each unit runs the probe (or a wrapper around it) and records, through a prefix drop-in's
# ExecStopPost=, the PYTHONHTTPSVERIFY value its processes get.
import json
import os
import subprocess

PY2 = "/usr/bin/python2.7"
PY3 = "/usr/bin/python3"
LIB = "/usr/local/libexec/pep493-hm"
PROBE = LIB + "/probe"
ETC = "/etc/systemd/system"
VENDOR = "/usr/lib/systemd/system"
CONF = "/etc/pep493-hm"
MARKER = "# Managed by pep493.https.service_verification; edits here are overwritten.\n"
DAEMON = "ExecStart=%s %s %%n.main daemon\n" % (PY2, PROBE)
RECORDER = ("[Unit]\nWants=pep493-https-server.service\nAfter=pep493-https-server.service\n"
            "[Service]\nExecStopPost=/bin/sh -c 'printf \"%%s\" \"$${PYTHONHTTPSVERIFY-__unset__}\" "
            "> /run/pep493-hm/%n.value'\n")


def ours(value):
    return MARKER + "# reason: fixture\n[Service]\nEnvironment=PYTHONHTTPSVERIFY=%s\n" % value


def service(body, exec_start=DAEMON):
    return "[Service]\n" + body + exec_start


# name: (start: daemon | oneshot | fails | no, files {path: content}, links {path: target}, cannot_tell)
UNITS = {
    # Environment=
    "hm-env-plain.service": ("daemon", {VENDOR + "/hm-env-plain.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n")}),
    "hm-env-later.service": ("daemon", {VENDOR + "/hm-env-later.service": service(
        "Environment=PYTHONHTTPSVERIFY=1\nEnvironment=PYTHONHTTPSVERIFY=0\n")}),
    "hm-env-reset.service": ("daemon", {VENDOR + "/hm-env-reset.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\nEnvironment=\nEnvironment=OTHER=1\n")}),
    "hm-env-quoted.service": ("daemon", {VENDOR + "/hm-env-quoted.service": service(
        "Environment=\"A=b c\" \"PYTHONHTTPSVERIFY=0\"\n")}),
    "hm-env-escaped-name.service": ("daemon", {VENDOR + "/hm-env-escaped-name.service": service(
        "Environment=PYTHONHTTPS\\x56ERIFY=0\n")}),
    "hm-env-bad-escape.service": ("daemon", {VENDOR + "/hm-env-bad-escape.service": service(
        "Environment=X=\\q PYTHONHTTPSVERIFY=0\n")}),
    "hm-env-continued.service": ("daemon", {VENDOR + "/hm-env-continued.service": service(
        "Environment=A=1 \\\n# a comment inside the continuation\n  PYTHONHTTPSVERIFY=0\n")}),
    "hm-spec@0.service": ("daemon", {VENDOR + "/hm-spec@.service": service(
        "Environment=PYTHONHTTPSVERIFY=%i\n")}),
    # EnvironmentFile=
    "hm-ef-basic.service": ("daemon", {VENDOR + "/hm-ef-basic.service": service(
        "EnvironmentFile=%s/basic.env\n" % CONF)}),
    "hm-ef-over-env.service": ("daemon", {VENDOR + "/hm-ef-over-env.service": service(
        "EnvironmentFile=%s/basic.env\nEnvironment=PYTHONHTTPSVERIFY=1\n" % CONF)}),
    "hm-ef-glob.service": ("daemon", {VENDOR + "/hm-ef-glob.service": service(
        "EnvironmentFile=%s/glob/*.env\n" % CONF)}),
    "hm-ef-optional.service": ("daemon", {VENDOR + "/hm-ef-optional.service": service(
        "EnvironmentFile=-%s/none.env\nEnvironment=PYTHONHTTPSVERIFY=0\n" % CONF)}),
    "hm-ef-required.service": ("fails", {VENDOR + "/hm-ef-required.service": service(
        "EnvironmentFile=%s/none.env\nEnvironment=PYTHONHTTPSVERIFY=0\n" % CONF)}),
    "hm-ef-comment.service": ("daemon", {VENDOR + "/hm-ef-comment.service": service(
        "EnvironmentFile=%s/comment.env\n" % CONF)}),
    "hm-ef-multiline.service": ("daemon", {VENDOR + "/hm-ef-multiline.service": service(
        "EnvironmentFile=%s/multiline.env\n" % CONF)}),
    "hm-ef-backslash-zero.service": ("daemon", {VENDOR + "/hm-ef-backslash-zero.service": service(
        "EnvironmentFile=%s/backslash-zero.env\n" % CONF)}),
    "hm-ef-trailing-quotes.service": ("daemon", {VENDOR + "/hm-ef-trailing-quotes.service": service(
        "EnvironmentFile=%s/trailing-quotes.env\n" % CONF)}),
    "hm-ef-export.service": ("daemon", {VENDOR + "/hm-ef-export.service": service(
        "EnvironmentFile=%s/export.env\n" % CONF)}),
    "hm-ef-single.service": ("daemon", {VENDOR + "/hm-ef-single.service": service(
        "EnvironmentFile=%s/single.env\n" % CONF)}),
    "hm-ef-crlf.service": ("daemon", {VENDOR + "/hm-ef-crlf.service": service(
        "EnvironmentFile=%s/crlf.env\n" % CONF)}),
    "hm-ef-reset.service": ("daemon", {VENDOR + "/hm-ef-reset.service": service(
        "EnvironmentFile=%s/basic.env\nEnvironmentFile=\n" % CONF)}),
    "hm-ef-specifier.service": ("daemon", {VENDOR + "/hm-ef-specifier.service": service(
        "EnvironmentFile=%s/%%N.env\n" % CONF)}),
    # PassEnvironment=, UnsetEnvironment= (the manager's DefaultEnvironment= gives "1" to all)
    "hm-pass.service": ("daemon", {VENDOR + "/hm-pass.service": service("PassEnvironment=PYTHONHTTPSVERIFY\n")}),
    "hm-pass-over.service": ("daemon", {VENDOR + "/hm-pass-over.service": service(
        "PassEnvironment=PYTHONHTTPSVERIFY\nEnvironment=PYTHONHTTPSVERIFY=2\n")}),
    "hm-unset.service": ("daemon", {VENDOR + "/hm-unset.service": service("UnsetEnvironment=PYTHONHTTPSVERIFY\n"),
                                    ETC + "/hm-unset.service.d/50-local.conf":
                                    "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n"}),
    "hm-unset-exact.service": ("daemon", {VENDOR + "/hm-unset-exact.service": service(
        "UnsetEnvironment=PYTHONHTTPSVERIFY=0\nEnvironment=PYTHONHTTPSVERIFY=0\n")}),
    "hm-unset-other.service": ("daemon", {VENDOR + "/hm-unset-other.service": service(
        "UnsetEnvironment=PYTHONHTTPSVERIFY=2\nEnvironment=PYTHONHTTPSVERIFY=0\n")}),
    # drop-ins, templates, aliases, masks, the whole search path
    "hm-di-order.service": ("daemon", {VENDOR + "/hm-di-order.service": service(""),
                                       ETC + "/hm-di-order.service.d/10-a.conf":
                                       "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n",
                                       VENDOR + "/hm-di-order.service.d/20-b.conf":
                                       "[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n"}),
    "hm-di-etc-over-lib.service": ("daemon", {VENDOR + "/hm-di-etc-over-lib.service": service(""),
                                              VENDOR + "/hm-di-etc-over-lib.service.d/50-x.conf":
                                              "[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n",
                                              ETC + "/hm-di-etc-over-lib.service.d/50-x.conf":
                                              "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n"}),
    "hm-di-prefix-web.service": ("daemon", {VENDOR + "/hm-di-prefix-web.service": service(""),
                                            ETC + "/hm-di-prefix-.service.d/10-p.conf":
                                            "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n"}),
    "hm-toplevel.service": ("daemon", {VENDOR + "/hm-toplevel.service": service(""),
                                       CONF + "/toplevel/hm-toplevel.service.env": "PYTHONHTTPSVERIFY=0\n"}),
    "hm-tpl@a.service": ("daemon", {VENDOR + "/hm-tpl@.service": service(""),
                                    ETC + "/hm-tpl@.service.d/50-t.conf":
                                    "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n"}),
    "hm-tpl@b.service": ("daemon", {ETC + "/hm-tpl@b.service.d/50-t.conf":
                                    "[Service]\nEnvironment=PYTHONHTTPSVERIFY=1\n"}),
    "hm-alias-real.service": ("daemon", {VENDOR + "/hm-alias-real.service": service(""),
                                         ETC + "/hm-alias-nick.service.d/10-n.conf":
                                         "[Service]\nEnvironment=PYTHONHTTPSVERIFY=0\n"}),
    "hm-masked.service": ("no", {VENDOR + "/hm-masked.service": service(""),
                                 ETC + "/hm-masked.service.d/zz-pep493-https.conf": ours("0")}),
    "hm-runtime.service": ("daemon", {"/run/systemd/system/hm-runtime.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n")}),
    "hm-usrlocal.service": ("daemon", {"/usr/local/lib/systemd/system/hm-usrlocal.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n")}),
    "hm-linked.service": ("daemon", {"/opt/pep493-hm/hm-linked.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n")}),
    "hm-transient.service": ("transient", {}),
    # what reaches Python 2 (every one gets PYTHONHTTPSVERIFY=0)
    "hm-fx-py3.service": ("daemon", {VENDOR + "/hm-fx-py3.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s %s %%n.main daemon\n" % (PY3, PROBE))}),
    "hm-fx-E.service": ("daemon", {VENDOR + "/hm-fx-E.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s -E %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-Es.service": ("daemon", {VENDOR + "/hm-fx-Es.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s -Es %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-tt-E.service": ("daemon", {VENDOR + "/hm-fx-tt-E.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s -tt -E %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-I.service": ("fails", {VENDOR + "/hm-fx-I.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s -I %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-env-u.service": ("daemon", {VENDOR + "/hm-fx-env-u.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n",
        "ExecStart=/usr/bin/env -u PYTHONHTTPSVERIFY %s %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-env-i.service": ("daemon", {VENDOR + "/hm-fx-env-i.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=/usr/bin/env -i %s %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-env-override.service": ("daemon", {VENDOR + "/hm-fx-env-override.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n",
        "ExecStart=/usr/bin/env PYTHONHTTPSVERIFY=1 %s %s %%n.main daemon\n" % (PY2, PROBE))}),
    "hm-fx-env-keep.service": ("daemon", {VENDOR + "/hm-fx-env-keep.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=/usr/bin/env LANG=C python2.7 %s %%n.main daemon\n" % PROBE)}),
    "hm-fx-shebang-py2.service": ("daemon", {VENDOR + "/hm-fx-shebang-py2.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s/probe-py2 %%n.main daemon\n" % LIB)}),
    "hm-fx-shebang-py3.service": ("daemon", {VENDOR + "/hm-fx-shebang-py3.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s/probe-env-py3 %%n.main daemon\n" % LIB)}),
    "hm-fx-shebang-E.service": ("daemon", {VENDOR + "/hm-fx-shebang-E.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=%s/probe-py2-E %%n.main daemon\n" % LIB)}),
    "hm-fx-relative.service": ("daemon", {VENDOR + "/hm-fx-relative.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n", "ExecStart=python2.7 %s %%n.main daemon\n" % PROBE)}),
    "hm-fx-pre.service": ("daemon", {VENDOR + "/hm-fx-pre.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n",
        "ExecStartPre=%s %s %%n.pre\nExecStart=%s %s %%n.main daemon\n" % (PY2, PROBE, PY3, PROBE))}),
    "hm-fx-oneshot.service": ("oneshot", {VENDOR + "/hm-fx-oneshot.service": service(
        "Type=oneshot\nEnvironment=PYTHONHTTPSVERIFY=0\n",
        "ExecStart=%s %s %%n.main\nExecStart=%s %s %%n.main2\n" % (PY3, PROBE, PY2, PROBE))}),
    "hm-fx-shell.service": ("daemon", {VENDOR + "/hm-fx-shell.service": service(
        "Environment=PYTHONHTTPSVERIFY=0\n",
        "ExecStart=/bin/sh -c 'exec %s %s %%n.main daemon'\n" % (PY2, PROBE))}, {}, True),
    # pending restarts: converge changes these while they run
    "hm-pend-added.service": ("daemon", {VENDOR + "/hm-pend-added.service": service("")}),
    "hm-pend-removed.service": ("daemon", {VENDOR + "/hm-pend-removed.service": service(
        "EnvironmentFile=-%s/none.env\n" % CONF), ETC + "/hm-pend-removed.service.d/zz-pep493-https.conf": ours("0")}),
    "hm-pend-changed.service": ("daemon", {VENDOR + "/hm-pend-changed.service": service(""),
                                           ETC + "/hm-pend-changed.service.d/zz-pep493-https.conf": ours("1")}),
}

FILES = {
    "/etc/systemd/system.conf.d/50-pep493-hm.conf": "[Manager]\nDefaultEnvironment=PYTHONHTTPSVERIFY=1\n",
    ETC + "/hm-.service.d/00-record.conf": RECORDER,
    ETC + "/hm-@.service.d/00-record.conf": RECORDER,
    ETC + "/service.d/90-pep493-hm.conf": "[Service]\nEnvironmentFile=-%s/toplevel/%%n.env\n" % CONF,
    CONF + "/basic.env": "PYTHONHTTPSVERIFY=0\n",
    CONF + "/glob/10-a.env": "PYTHONHTTPSVERIFY=1\n",
    CONF + "/glob/20-b.env": "PYTHONHTTPSVERIFY=0\n",
    CONF + "/glob/.hidden.env": "PYTHONHTTPSVERIFY=1\n",
    CONF + "/comment.env": "# a comment that ends in a backslash \\\nPYTHONHTTPSVERIFY=0\n",
    CONF + "/multiline.env": "PYTHONHTTPSVERIFY=\"0\n\"\n",
    CONF + "/backslash-zero.env": "PYTHONHTTPSVERIFY=\"\\0\"\n",
    CONF + "/trailing-quotes.env": "PYTHONHTTPSVERIFY=0\"\"\n",
    CONF + "/export.env": "export PYTHONHTTPSVERIFY=0\n",
    CONF + "/single.env": "PYTHONHTTPSVERIFY='0'\n",
    CONF + "/crlf.env": "PYTHONHTTPSVERIFY=0\r\nOTHER=1\r\n",
    CONF + "/hm-ef-specifier.env": "PYTHONHTTPSVERIFY=0\n",
    LIB + "/probe-py2": "#!/usr/bin/python2.7\n",
    LIB + "/probe-env-py3": "#!/usr/bin/env python3\n",
    LIB + "/probe-py2-E": "#!/usr/bin/python2.7 -E\n",
}
LINKS = {
    ETC + "/hm-alias-nick.service": VENDOR + "/hm-alias-real.service",
    ETC + "/hm-masked.service": "/dev/null",
    ETC + "/hm-linked.service": "/opt/pep493-hm/hm-linked.service",
}


def write(path, content, mode=0o644):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, "w", newline="") as handle:
        handle.write(content)
    os.chmod(path, mode)


def main():
    probe = open(PROBE).read()
    for path, content in FILES.items():
        if path.startswith(LIB):
            write(path, content + probe, 0o755)
        else:
            write(path, content)
    for spec in UNITS.values():
        for path, content in spec[1].items():
            write(path, content)
    for path, target in LINKS.items():
        if not os.path.lexists(path):
            os.symlink(target, path)
    os.makedirs("/run/pep493-hm", exist_ok=True)
    subprocess.check_call(["systemctl", "daemon-reload"])
    subprocess.check_call(["systemctl", "start", "pep493-https-server.service"])
    subprocess.check_call(["systemd-run", "--unit=hm-transient.service", "--property=Environment=PYTHONHTTPSVERIFY=0",
                           "--property=After=pep493-https-server.service", PY2, PROBE, "hm-transient.service.main",
                           "daemon"], stdout=subprocess.DEVNULL)
    started = [name for name, spec in UNITS.items() if spec[0] in ("daemon", "oneshot")]
    subprocess.check_call(["systemctl", "start"] + sorted(started))
    for name, spec in sorted(UNITS.items()):
        if spec[0] == "fails":
            subprocess.call(["systemctl", "start", name], stderr=subprocess.DEVNULL)
    catalogue = dict((name, {"start": spec[0], "cannot_tell": len(spec) > 3 and spec[3]})
                     for name, spec in UNITS.items())
    write(CONF + "/units.json", json.dumps(catalogue, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
