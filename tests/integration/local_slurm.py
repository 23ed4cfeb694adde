"""A one-node Slurm on localhost for the tests, from Debian's packages:
munged, slurmctld and slurmd started as root from a temporary directory
(key, slurm.conf, state, spool, logs, sockets; free ports), nothing in /etc
touched, everything stopped and removed afterwards.

    with LocalSlurm(tmpdir, cpus=4) as cluster:      # raises Unavailable with one reason
        env = cluster.env                            # SLURM_CONF for sbatch/squeue/srun
"""
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


class Unavailable(Exception):
    """Slurm cannot be started here (the reason is the message)."""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalSlurm:
    def __init__(self, directory, cpus=4, node="iok-node"):
        self.dir = Path(directory)
        self.cpus = cpus
        self.node = node
        self.procs = []
        self.env = None

    # ------------------------------------------------------------ start
    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def _need(self, *programs):
        missing = [p for p in programs if not shutil.which(p)]
        if missing:
            raise Unavailable(f"{', '.join(missing)} not installed (scripts/setup.sh installs munge, slurmctld, "
                              "slurmd, slurm-client)")

    def start(self):
        self._need("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")
        if os.geteuid() != 0:
            raise Unavailable("starting slurmctld/slurmd needs root")
        d = self.dir
        for sub in ("munge", "state", "spool", "log"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(d / "munge", 0o700)
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = d / "munge" / "munge.socket"
        self._spawn(["munged", "-F", "-f", f"--key-file={key}", f"--socket={self.munge_socket}",
                     f"--pid-file={d / 'munge' / 'munged.pid'}", f"--log-file={d / 'log' / 'munged.log'}",
                     f"--seed-file={d / 'munge' / 'munged.seed'}"], "munged")
        self._wait(lambda: self.munge_socket.exists(), 10, "munged did not create its socket", "munged.log")
        host = socket.gethostname().split(".")[0]
        conf = d / "slurm.conf"
        conf.write_text("\n".join([
            "ClusterName=iokernels-test",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={self.munge_socket}",
            "SlurmUser=root", "SlurmdUser=root",
            f"StateSaveLocation={d / 'state'}", f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}", f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'log' / 'slurmctld.log'}", f"SlurmdLogFile={d / 'log' / 'slurmd.log'}",
            "ProctrackType=proctrack/pgid", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/builtin", "ReturnToService=2", "MpiDefault=none",
            "SlurmdParameters=config_overrides",       # more CPUs than cores: the tests oversubscribe
            "SlurmctldTimeout=30", "SlurmdTimeout=30", "InactiveLimit=0", "KillWait=5",
            f"NodeName={self.node} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=60 State=UP",
            ""]))
        self.env = {**os.environ, "SLURM_CONF": str(conf)}
        self._spawn(["slurmctld", "-D", "-i", "-f", str(conf)], "slurmctld")
        self._spawn(["slurmd", "-D", "-N", self.node, "-f", str(conf)], "slurmd")

        def idle():
            p = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True, env=self.env)
            return p.returncode == 0 and p.stdout.strip() in ("idle", "mixed")
        self._wait(idle, 60, "the node did not become idle", "slurmd.log")

    def _spawn(self, argv, name):
        log = open(self.dir / "log" / f"{name}.out", "w")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env or os.environ,
                             start_new_session=True)
        self.procs.append((name, p))

    def _wait(self, ok, seconds, what, log):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if ok():
                return
            dead = [(n, p.returncode) for n, p in self.procs if p.poll() is not None]
            if dead:
                break
            time.sleep(0.5)
        raise Unavailable(f"{what}: {self.tail(log)}")

    def tail(self, name, n=3):
        for f in (self.dir / "log" / name, self.dir / "log" / name.replace(".log", ".out")):
            try:
                lines = [x for x in f.read_text(errors="replace").splitlines() if x.strip()]
                if lines:
                    return " | ".join(lines[-n:])
            except OSError:
                pass
        return "(no log)"

    # ------------------------------------------------------------ use
    def run(self, *argv, **kw):
        return subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=self.env, **kw)

    def wait_job(self, job_id, timeout):
        """Waits until the job left the queue; returns its final state (scontrol)."""
        end = time.monotonic() + timeout
        state = "?"
        while time.monotonic() < end:
            p = self.run("scontrol", "show", "job", job_id, "-o")
            for word in p.stdout.split():
                if word.startswith("JobState="):
                    state = word.split("=", 1)[1]
            if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"):
                return state
            time.sleep(1)
        self.run("scancel", job_id)
        return f"still {state} after {timeout} s"

    # ------------------------------------------------------------ stop
    def stop(self):
        """Stops the daemons this object started (their own sessions), newest first."""
        for _name, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, 15)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, 9)
                    p.wait()
        self.procs = []
