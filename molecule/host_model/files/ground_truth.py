# Test fixture of the host_model scenarios: what systemd and the services themselves say, for
# every unit of setup_units.py (run by the verifier in the container, with python3).
#
# 1. systemd's view and the environment of every running main process, as they are now;
# 2. every unit that can start is restarted (one systemctl call): its ExecStopPost= records
#    the value a process gets from the current configuration, the probe of each new process
#    records what it got and whether its own HTTPS request to the fixture server succeeded;
# 3. the new main processes' environment.
# Prints one JSON object: {unit: {...}}.
import json
import os
import subprocess
import time

CONF = "/etc/pep493-hm"
RUN = "/run/pep493-hm"
PROPERTIES = "Id,LoadState,ActiveState,MainPID,NeedDaemonReload"


def show(units):
    out = subprocess.check_output(["systemctl", "show", "--property=" + PROPERTIES, "--"] + units,
                                  universal_newlines=True)
    blocks = {}
    for chunk in out.split("\n\n"):
        block = dict(line.split("=", 1) for line in chunk.splitlines() if "=" in line)
        if block.get("Id"):
            blocks[block["Id"]] = block
    return [blocks.get(unit, {}) for unit in units]


def environ_value(pid):
    if not pid or pid == "0":
        return None, False
    try:
        with open("/proc/%s/environ" % pid, "rb") as handle:
            blob = handle.read()
    except (IOError, OSError):
        return None, False
    for entry in blob.split(b"\0"):
        name, _sep, value = entry.partition(b"=")
        if name == b"PYTHONHTTPSVERIFY":
            return value.decode("utf-8", "replace"), True
    return None, True


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def main():
    catalogue = json.loads(read(CONF + "/units.json"))
    units = sorted(catalogue)
    before = show(units)
    running = [environ_value(block.get("MainPID")) for block in before]
    for name in os.listdir(RUN):
        os.unlink(os.path.join(RUN, name))
    startable = [u for u in units if catalogue[u]["start"] in ("daemon", "oneshot", "transient")]
    subprocess.call(["systemctl", "restart"] + startable)
    subprocess.call(["systemctl", "restart"] + [u for u in units if catalogue[u]["start"] == "fails"],
                    stderr=subprocess.DEVNULL)
    for _attempt in range(100):     # until every started unit has recorded what it got
        if all(os.path.exists("%s/%s.value" % (RUN, u)) or not os.path.exists("%s/%s.main.json" % (RUN, u))
               for u in startable) and all(os.path.exists("%s/%s.main.json" % (RUN, u)) for u in startable
                                           if catalogue[u]["start"] != "oneshot"):
            break
        time.sleep(0.1)
    # a oneshot records its value after its last command: wait for those too
    for _attempt in range(100):
        if all(os.path.exists("%s/%s.value" % (RUN, u)) for u in startable if catalogue[u]["start"] == "oneshot"):
            break
        time.sleep(0.1)
    after = show(units)
    result = {}
    for unit, old, new, (value, readable) in zip(units, before, after, running):
        records = {}
        for name in sorted(os.listdir(RUN)):
            if name.startswith(unit + ".") and name.endswith(".json"):
                records[name[len(unit) + 1:-5]] = json.loads(read(os.path.join(RUN, name)))
        recorded = read("%s/%s.value" % (RUN, unit))
        new_value, new_readable = environ_value(new.get("MainPID"))
        result[unit] = {
            "catalogue": catalogue[unit],
            "before": old,
            "running": {"value": value, "readable": readable},
            "value": None if recorded in (None, "__unset__") else recorded,
            "value_recorded": recorded is not None,
            "records": records,
            "after": new,
            "restarted": {"value": new_value, "readable": new_readable},
        }
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
