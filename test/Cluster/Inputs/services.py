#!/usr/bin/env python3
"""Services on loopback for the cluster tests, started and stopped by them.

    services.py start-postgres DIR   a PostgreSQL server (Debian's initdb and
                                     pg_ctl) on 127.0.0.1:<free port>, its
                                     data and socket in a short /tmp
                                     directory (removed by stop), with the
                                     empty databases tuning, race, other
    services.py start-slurm DIR      a one-node Slurm cluster: munged with a
                                     fresh key, slurmctld and slurmd of a
                                     generated slurm.conf (no cgroups)
    services.py run DIR -- CMD...    CMD with @PGURL@ (and @PGURL:NAME@ for
                                     another database) replaced, SLURM_CONF
                                     set; exits with CMD's status
    services.py stop DIR             stops whatever DIR's services are
                                     (nothing to stop is fine)

Everything else lives in DIR (state, logs, configs). A watchdog started with the
first service stops them all after --timeout seconds (default 300) should
the test fail before its `stop` line; `stop` ends the watchdog.
"""
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def pg_bindir():
    """Debian's server binaries (not on PATH), else initdb's on PATH."""
    def version(path):
        v = path.split("/")[4]
        return int(v) if v.isdigit() else 0
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if dirs:
        return os.path.dirname(dirs[-1])
    initdb = shutil.which("initdb")
    if initdb:
        return os.path.dirname(os.path.realpath(initdb))
    sys.exit("services.py: no initdb (install postgresql)")


def as_postgres(cmd):
    """initdb and postgres refuse to run as root: run them as 'postgres'."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


def run_logged(cmd, log, **kw):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw)
    if r.returncode != 0:
        sys.stderr.write(read(log) + "\n")
        sys.exit("services.py: failed (%d): %s" % (r.returncode, " ".join(cmd)))


def start_watchdog(d, timeout):
    if os.path.exists(os.path.join(d, "watchdog.pid")):
        return
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                          "watchdog", d, str(timeout)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    write(os.path.join(d, "watchdog.pid"), str(p.pid))


def start_postgres(d, timeout):
    pg = os.path.join(d, "pg")
    os.makedirs(pg)
    start_watchdog(d, timeout)
    bindir = pg_bindir()
    # The cluster and its socket in a short directory of /tmp, which the
    # postgres user can reach whatever the checkout's permissions (and a
    # unix socket's path has ~100 bytes).
    home = tempfile.mkdtemp(prefix="cuda-opt-pg-", dir="/tmp")
    write(os.path.join(pg, "home"), home)
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(home, pw.pw_uid, pw.pw_gid)
    data = os.path.join(home, "data")
    server_log = os.path.join(home, "server.log")
    log = os.path.join(d, "postgres-setup.log")
    run_logged(as_postgres([os.path.join(bindir, "initdb"), "-D", data, "-A",
                            "trust", "-U", "postgres", "-E", "UTF8",
                            "--no-sync"]), log)
    port = free_port()
    opts = ("-k %s -p %d -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off" % (home, port))
    write(os.path.join(pg, "bindir"), bindir)
    r = subprocess.run(as_postgres([os.path.join(bindir, "pg_ctl"), "-D", data,
                                    "-l", server_log, "-w", "-t", "60", "-o",
                                    opts, "start"]),
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr + read(server_log) + "\n")
        stop(d)
        sys.exit("services.py: pg_ctl start failed")
    write(os.path.join(pg, "port"), str(port))
    for db in ("tuning", "race", "other"):
        run_logged([os.path.join(bindir, "createdb"), "-h", "127.0.0.1", "-p",
                    str(port), "-U", "postgres", db], log)


def stop_postgres(d):
    pg = os.path.join(d, "pg")
    home = read(os.path.join(pg, "home"))
    if not home.startswith("/tmp/cuda-opt-pg-"):
        return
    data = os.path.join(home, "data")
    if os.path.exists(os.path.join(data, "postmaster.pid")):
        subprocess.run(as_postgres([os.path.join(read(os.path.join(pg, "bindir"),
                                                      pg_bindir()), "pg_ctl"),
                                    "-D", data, "-m", "immediate", "-w",
                                    "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The server's log beside the test's files, for a failed test.
    try:
        shutil.copy(os.path.join(home, "server.log"),
                    os.path.join(pg, "server.log"))
    except OSError:
        pass
    shutil.rmtree(home, ignore_errors=True)


SLURM_CONF = """\
# A one-node cluster for the cuda-opt tests (test/Cluster/Inputs/services.py)
ClusterName=cudaopttest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType={auth}
CredType={cred}
{auth_info}
SlurmUser={user}
SlurmdUser={user}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MinJobAge=600
SchedulerParameters=sched_min_interval=100000
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def slurm_env(d):
    env = dict(os.environ)
    conf = os.path.join(d, "slurm", "slurm.conf")
    if os.path.exists(conf):
        env["SLURM_CONF"] = conf
    return env


def start_slurm(d, timeout):
    s = os.path.join(d, "slurm")
    for sub in ("", "state", "spool"):
        os.makedirs(os.path.join(s, sub), exist_ok=True)
    start_watchdog(d, timeout)
    log = os.path.join(d, "slurm-setup.log")
    # munge with a key of its own, its socket in DIR; auth/none if there is
    # no munged.
    munged = shutil.which("munged") or "/usr/sbin/munged"
    if os.path.exists(munged):
        key = os.path.join(s, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        os.chmod(s, 0o700)
        run_logged([munged, "--socket=" + os.path.join(s, "munge.socket"),
                    "--key-file=" + key,
                    "--pid-file=" + os.path.join(s, "munged.pid"),
                    "--log-file=" + os.path.join(s, "munged.log"),
                    "--seed-file=" + os.path.join(s, "munged.seed"),
                    "--force"], log)
        auth = ("auth/munge", "cred/munge",
                "AuthInfo=socket=" + os.path.join(s, "munge.socket"))
    else:
        auth = ("auth/none", "cred/none", "")
    host = socket.gethostname().split(".")[0]
    write(os.path.join(s, "slurm.conf"), SLURM_CONF.format(
        host=host, ctld_port=free_port(), slurmd_port=free_port(),
        auth=auth[0], cred=auth[1], auth_info=auth[2],
        user=pwd.getpwuid(os.geteuid()).pw_name, d=s,
        cpus=max(1, os.cpu_count() or 1)))
    env = slurm_env(d)
    sbin = lambda name: shutil.which(name) or os.path.join("/usr/sbin", name)
    run_logged([sbin("slurmctld"), "-c", "-i"], log, env=env)
    run_logged([sbin("slurmd"), "-c"], log, env=env)
    # Ready when the node is idle.
    deadline = time.time() + 60
    while time.time() < deadline:
        r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env,
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == "idle":
            return
        time.sleep(0.5)
    sys.stderr.write(read(os.path.join(s, "slurmctld.log")) + "\n" +
                     read(os.path.join(s, "slurmd.log")) + "\n")
    sys.exit("services.py: the Slurm node did not become idle in 60 s")


def kill_pidfiles(paths, wait=10):
    """SIGTERM to each pid file's process at once, SIGKILL to what is left
    after \p wait seconds."""
    pids = []
    for path in paths:
        pid = read(path)
        if pid.isdigit():
            try:
                os.kill(int(pid), signal.SIGTERM)
                pids.append(int(pid))
            except OSError:
                pass
    deadline = time.time() + wait
    while pids and time.time() < deadline:
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except OSError:
                pass
        pids = alive
        time.sleep(0.1)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def stop_slurm(d):
    s = os.path.join(d, "slurm")
    if not os.path.isdir(s):
        return
    # This cluster's jobs (a test that failed half-way may leave some).
    if os.path.exists(os.path.join(s, "slurmctld.pid")):
        subprocess.run(["scancel", "--full", "--quiet",
                        "--user", pwd.getpwuid(os.geteuid()).pw_name],
                       env=slurm_env(d), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
    kill_pidfiles([os.path.join(s, daemon + ".pid")
                   for daemon in ("slurmd", "slurmctld", "munged")])


def stop(d, from_watchdog=False):
    if not os.path.isdir(d):
        return
    stop_slurm(d)
    if os.path.isdir(os.path.join(d, "pg")):
        stop_postgres(d)
    if not from_watchdog:
        kill_pidfiles([os.path.join(d, "watchdog.pid")], wait=2)
    try:
        os.remove(os.path.join(d, "watchdog.pid"))
    except OSError:
        pass


def watchdog(d, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not os.path.isdir(d):
            return
        time.sleep(1)
    stop(d, from_watchdog=True)


def substitute(d, arg):
    port = read(os.path.join(d, "pg", "port"))
    out = arg.replace("@PGURL@", "postgresql://postgres@127.0.0.1:%s/tuning" % port)
    while "@PGURL:" in out:
        i = out.index("@PGURL:")
        j = out.index("@", i + 1)
        name = out[i + 7:j]
        out = out[:i] + "postgresql://postgres@127.0.0.1:%s/%s" % (port, name) + out[j + 1:]
    return out.replace("@PGSOCKET@", read(os.path.join(d, "pg", "home")))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    action, d = sys.argv[1], os.path.abspath(sys.argv[2])
    timeout = 300
    if "--timeout" in sys.argv:
        timeout = int(sys.argv[sys.argv.index("--timeout") + 1])
    if action == "start-postgres":
        os.makedirs(d, exist_ok=True)
        start_postgres(d, timeout)
    elif action == "start-slurm":
        os.makedirs(d, exist_ok=True)
        start_slurm(d, timeout)
    elif action == "stop":
        stop(d)
    elif action == "watchdog":
        watchdog(d, int(sys.argv[3]))
    elif action == "run":
        cmd = [substitute(d, a) for a in sys.argv[sys.argv.index("--") + 1:]]
        sys.stdout.flush()
        sys.exit(subprocess.run(cmd, env=slurm_env(d)).returncode)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
