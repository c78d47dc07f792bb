"""A real Spark standalone cluster (1 master + N workers) on 127.0.0.1, for tests.

Started from the pip pyspark distribution's own launcher. The pip wheel ships
``bin/spark-class`` but its ``sbin/`` only has the history-server scripts (no
``start-master.sh`` / ``start-worker.sh``), so the daemons are started directly::

    <pyspark>/bin/spark-class org.apache.spark.deploy.master.Master \
        --host 127.0.0.1 --port P --webui-port U
    <pyspark>/bin/spark-class org.apache.spark.deploy.worker.Worker \
        --host 127.0.0.1 --cores 1 --memory 2g --webui-port W --work-dir D spark://127.0.0.1:P

``spark-class`` ``exec``s the JVM, so each Popen pid is the daemon itself; each is
started in its own session (process group) so that the executors a worker forks
can be killed with it.

Usage::

    with StandaloneCluster() as cluster:
        proc = cluster.submit("job.py", ["arg"], conf={"spark.sql.shuffle.partitions": "4"})
        assert proc.returncode == 0, cluster.describe_failure(proc)

or, in a test module::

    @pytest.fixture(scope="module")
    def cluster(tmp_path_factory):
        yield from standalone_cluster(tmp_path_factory.mktemp("standalone"))

Importing this module does not import pyspark (``tests/core`` stays Spark-free).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Iterator, Sequence

REPO_ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = "127.0.0.1"
# Every JVM the harness starts (master, workers, submitted drivers, executors)
# carries -D<MARKER_PROP>=<marker> on its command line, so `pgrep -f <marker>`
# finds all of them.
MARKER_PROP = "controller_replay.test_cluster"
_QUICK_JVM = "-XX:TieredStopAtLevel=1"


class ClusterError(RuntimeError):
    """The cluster failed to start or stop; the message carries the log tails."""


class SubmitTimeout(subprocess.TimeoutExpired):
    """spark-submit ran past its timeout; its process group was killed."""

    def __init__(self, cmd, timeout, output, stderr, logs: str):
        super().__init__(cmd, timeout, output, stderr)
        self.logs = logs

    def __str__(self) -> str:
        return (
            f"spark-submit timed out after {self.timeout} s (process group killed)\n"
            f"--- stdout (tail) ---\n{_tail_text(self.output or '')}\n"
            f"--- stderr (tail) ---\n{_tail_text(self.stderr or '')}\n"
            f"{self.logs}"
        )


def pyspark_home() -> Path:
    """The installed pyspark package directory, which is also its SPARK_HOME."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise ClusterError("pyspark is not installed in this interpreter")
    return Path(list(spec.submodule_search_locations)[0])


def free_port() -> int:
    """A port that was free on 127.0.0.1 a moment ago (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def _tail_text(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def _tail_file(path: Path, lines: int = 40) -> str:
    try:
        return _tail_text(path.read_text(errors="replace"), lines)
    except OSError as e:
        return f"<unreadable: {e}>"


class _Proc:
    def __init__(self, name: str, popen: subprocess.Popen, log: Path):
        self.name, self.popen, self.log = name, popen, log


class StandaloneCluster:
    """Context manager: a Spark standalone master and ``workers`` workers on 127.0.0.1."""

    def __init__(
        self,
        workers: int = 2,
        cores: int = 1,
        memory: str = "2g",
        base_dir: str | os.PathLike | None = None,
        python: str | None = None,
        start_timeout: float = 60.0,
        register_timeout: float = 90.0,
        stop_timeout: float = 10.0,
    ):
        self.n_workers = workers
        self.cores = cores
        self.memory = memory
        self.base_dir = base_dir
        # The interpreter running the tests is the venv's; executors must use
        # the same one (it has pyarrow/pandas and the editable project install).
        self.python = python or sys.executable
        self.start_timeout = start_timeout
        self.register_timeout = register_timeout
        self.stop_timeout = stop_timeout

        self.spark_home = pyspark_home()
        self.marker = f"crspark-{uuid.uuid4().hex[:12]}"
        self.dir: Path | None = None
        self.master_port: int | None = None
        self.webui_port: int | None = None
        self._procs: list[_Proc] = []
        self._submits: list[subprocess.Popen] = []
        self._started = False
        self.timings: dict[str, float] = {}

    # ------------------------------------------------------------------ paths
    @property
    def master_url(self) -> str:
        return f"spark://{LOOPBACK}:{self.master_port}"

    @property
    def webui_url(self) -> str:
        return f"http://{LOOPBACK}:{self.webui_port}"

    @property
    def work_dir(self) -> Path:
        """Parent of every worker's --work-dir (executors run in <worker>/<app>/<exec>)."""
        assert self.dir is not None
        return self.dir / "work"

    @property
    def log_dir(self) -> Path:
        assert self.dir is not None
        return self.dir / "logs"

    # -------------------------------------------------------------- lifecycle
    def __enter__(self) -> "StandaloneCluster":
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.stop()

    def start(self) -> None:
        if self._started:
            raise ClusterError("cluster already started")
        self._started = True
        parent = Path(self.base_dir) if self.base_dir else None
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.marker}-", dir=parent))
        for sub in ("logs", "work", "conf", "local", "submit"):
            (self.dir / sub).mkdir()
        atexit.register(self.stop)
        t0 = time.monotonic()
        try:
            self.master_port, self.webui_port = free_port(), free_port()
            self._spawn(
                "master",
                "org.apache.spark.deploy.master.Master",
                ["--host", LOOPBACK, "--port", str(self.master_port),
                 "--webui-port", str(self.webui_port)],
            )
            self._wait_for_master_port()
            self.timings["master_up_s"] = round(time.monotonic() - t0, 2)
            for i in range(1, self.n_workers + 1):
                wdir = self.work_dir / f"worker-{i}"
                wdir.mkdir()
                self._spawn(
                    f"worker-{i}",
                    "org.apache.spark.deploy.worker.Worker",
                    ["--host", LOOPBACK, "--cores", str(self.cores), "--memory", self.memory,
                     "--webui-port", str(free_port()), "--work-dir", str(wdir), self.master_url],
                )
            self._wait_for_workers()
            self.timings["workers_registered_s"] = round(time.monotonic() - t0, 2)
        except BaseException:
            self.stop()
            raise

    def _base_env(self) -> dict[str, str]:
        env = dict(os.environ)
        # A SparkSession in the calling process (e.g. the `spark` fixture) may
        # leave gateway variables behind; child Spark processes must not see them.
        for k in ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "SPARK_CONF_DIR",
                  "PYSPARK_SUBMIT_ARGS", "SPARK_MASTER_PORT", "SPARK_MASTER_WEBUI_PORT"):
            env.pop(k, None)
        assert self.dir is not None
        env.update(
            SPARK_HOME=str(self.spark_home),
            # Empty conf dir: no stray spark-defaults.conf / spark-env.sh / log4j2 file.
            SPARK_CONF_DIR=str(self.dir / "conf"),
            SPARK_LOCAL_IP=LOOPBACK,
            SPARK_MASTER_HOST=LOOPBACK,
            SPARK_PUBLIC_DNS=LOOPBACK,
            SPARK_LOCAL_DIRS=str(self.dir / "local"),
            SPARK_LOG_DIR=str(self.log_dir),
            PYSPARK_PYTHON=self.python,
            PYSPARK_DRIVER_PYTHON=self.python,
            # spark-class first runs a small launcher JVM to build the command.
            SPARK_LAUNCHER_OPTS=_QUICK_JVM,
        )
        return env

    def _spawn(self, name: str, main_class: str, args: Sequence[str]) -> None:
        env = self._base_env()
        # C1-only JIT: the daemons do little work, and on a 2-core box the C2
        # compiler threads make their start-up noticeably slower.
        env["SPARK_DAEMON_JAVA_OPTS"] = f"-D{MARKER_PROP}={self.marker} {_QUICK_JVM}"
        env["SPARK_DAEMON_MEMORY"] = "512m"
        # No REST submission server on 6066 (fixed port, not needed).
        env["SPARK_MASTER_OPTS"] = "-Dspark.master.rest.enabled=false"
        log = self.log_dir / f"{name}.log"
        with open(log, "wb") as fh:
            popen = subprocess.Popen(
                [str(self.spark_home / "bin" / "spark-class"), main_class, *args],
                stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT,
                env=env, cwd=str(self.dir), start_new_session=True,
            )
        self._procs.append(_Proc(name, popen, log))

    def _check_alive(self, what: str) -> None:
        for p in self._procs:
            rc = p.popen.poll()
            if rc is not None:
                raise ClusterError(f"{p.name} exited with {rc} while {what}\n{self.logs_tail()}")

    def _wait_for_master_port(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while True:
            self._check_alive("waiting for the master port")
            try:
                with socket.create_connection((LOOPBACK, self.master_port), timeout=1):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"master did not accept connections on {self.master_url} within "
                    f"{self.start_timeout} s\n{self.logs_tail()}"
                )
            time.sleep(0.25)

    def master_state(self) -> dict:
        """The master UI's JSON (`/json/`): status, workers, aliveworkers, activeapps..."""
        with urllib.request.urlopen(f"{self.webui_url}/json/", timeout=2) as r:
            return json.load(r)

    def _wait_for_workers(self) -> None:
        deadline = time.monotonic() + self.register_timeout
        last: object = None
        while True:
            self._check_alive("waiting for workers to register")
            try:
                state = self.master_state()
                alive = [w for w in state.get("workers", []) if w.get("state") == "ALIVE"]
                n = max(int(state.get("aliveworkers", 0) or 0), len(alive))
                last = {"status": state.get("status"), "aliveworkers": n}
                if n >= self.n_workers:
                    return
            except (OSError, ValueError) as e:
                last = repr(e)
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"{self.n_workers} workers not registered with {self.master_url} within "
                    f"{self.register_timeout} s (last: {last})\n{self.logs_tail()}"
                )
            time.sleep(0.5)

    def stop(self) -> None:
        """Stop everything; safe to call twice, never raises for already-dead processes."""
        atexit.unregister(self.stop)
        groups = [p.popen for p in self._procs] + list(self._submits)
        master = self._procs[0].popen if self._procs else None
        # Workers first, master last, all with one shared deadline.
        for popen in sorted(groups, key=lambda p: p is master):
            _signal_group(popen, signal.SIGTERM)
        deadline = time.monotonic() + self.stop_timeout
        for popen in groups:
            try:
                popen.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        # SIGKILL what is left; executors orphaned by a worker that already
        # exited are caught by the sweep below (their cwd is under our dir).
        for popen in groups:
            _signal_group(popen, signal.SIGKILL)
            try:
                popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        # PySpark's python daemon moves itself to its own process group; it
        # exits when its executor dies, but sweep for anything of ours anyway.
        sweep_deadline = time.monotonic() + 5
        while self.dir is not None and time.monotonic() < sweep_deadline:
            left = self.stray_processes()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.2)
        if self.dir is not None and self.base_dir is None:
            # Own temp dir: remove it. Under a pytest tmp dir, keep it (logs).
            shutil.rmtree(self.dir, ignore_errors=True)

    def stray_processes(self) -> dict[int, str]:
        """pid -> command line of live processes that belong to this cluster.

        Matches ``-D<MARKER_PROP>=<marker>`` on the command line (every JVM we
        start) or a working directory under this cluster's dir (the drivers' and
        executors' Python processes). stop() SIGKILLs whatever this returns, so
        it deliberately does not match e.g. a ``tail -f`` of one of our log files.
        """
        found: dict[int, str] = {}
        try:
            out = subprocess.run(["pgrep", "-af", f"{MARKER_PROP}={self.marker}"], capture_output=True,
                                 text=True, timeout=10).stdout
            for line in out.splitlines():
                pid, _, cmd = line.partition(" ")
                if pid.isdigit() and int(pid) != os.getpid():
                    found[int(pid)] = cmd
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.dir is not None:
            root = str(self.dir)
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit() or int(entry.name) == os.getpid():
                    continue
                try:
                    cwd = os.readlink(entry / "cwd")
                except OSError:
                    continue
                if cwd == root or cwd.startswith(root + os.sep):
                    try:
                        cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    except OSError:
                        cmd = "?"
                    found.setdefault(int(entry.name), cmd)
        return found

    # ------------------------------------------------------------------- logs
    def logs_tail(self, lines: int = 40) -> str:
        if self.dir is None:
            return "(cluster never started)"
        parts = [f"=== cluster dir: {self.dir}"]
        for p in self._procs:
            parts.append(f"=== {p.name} ({p.log}), tail:\n{_tail_file(p.log, lines)}")
        # Executors: <worker work dir>/<app-id>/<executor-id>/{stdout,stderr}
        for f in sorted(self.work_dir.glob("worker-*/*/*/stderr")):
            parts.append(f"=== executor {f.relative_to(self.work_dir)}, tail:\n{_tail_file(f, lines)}")
        return "\n".join(parts)

    def executor_dirs(self) -> list[Path]:
        """<worker>/<app-id>/<executor-id> directories: one per executor ever launched."""
        return sorted(p for p in self.work_dir.glob("worker-*/app-*/*") if p.is_dir())

    def describe_failure(self, proc: subprocess.CompletedProcess) -> str:
        return (
            f"spark-submit exited {proc.returncode}\n"
            f"--- stdout (tail) ---\n{_tail_text(proc.stdout or '')}\n"
            f"--- stderr (tail) ---\n{_tail_text(proc.stderr or '', 80)}\n"
            f"{self.logs_tail()}"
        )

    # ----------------------------------------------------------------- submit
    def submit(
        self,
        script: str | os.PathLike,
        args: Sequence[str] = (),
        conf: dict | None = None,
        timeout: float = 600,
        py_files: Sequence[str | os.PathLike] = (),
        jars: Sequence[str] | None = None,
        cwd: str | os.PathLike | None = None,
        env: dict | None = None,
    ) -> subprocess.CompletedProcess:
        """spark-submit ``script args`` in client mode to this cluster; output captured.

        ``jars`` defaults to the cached Delta jars (``jobs.session.jar_paths()``).
        Runs in the cluster's ``submit/`` dir unless ``cwd`` is given (relative
        paths, spark-warehouse and derby.log land there, not in the repo).
        Raises SubmitTimeout (after killing the driver's process group) on timeout.
        """
        if not self._procs:
            raise ClusterError("cluster not started")
        if jars is None:
            from jobs.session import jar_paths  # lazy: imports pyspark

            jars = jar_paths()
        marker_opt = f"-D{MARKER_PROP}={self.marker}"
        merged = {
            "spark.executorEnv.PYSPARK_PYTHON": self.python,
            "spark.driver.host": LOOPBACK,
            "spark.driver.bindAddress": LOOPBACK,
            "spark.driver.extraJavaOptions": marker_opt,
            "spark.executor.extraJavaOptions": marker_opt,
        }
        for k, v in (conf or {}).items():
            if k in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
                merged[k] = f"{v} {marker_opt}"
            else:
                merged[k] = str(v)
        cmd = [str(self.spark_home / "bin" / "spark-submit"), "--master", self.master_url]
        if jars:
            cmd += ["--jars", ",".join(str(j) for j in jars)]
        if py_files:
            cmd += ["--py-files", ",".join(str(Path(p).resolve()) for p in py_files)]
        for k, v in merged.items():
            cmd += ["--conf", f"{k}={v}"]
        cmd += [str(Path(script).resolve()), *[str(a) for a in args]]

        run_env = self._base_env()
        run_env.update(env or {})
        popen = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=run_env, cwd=str(cwd or self.dir / "submit"),
            start_new_session=True,
        )
        self._submits.append(popen)
        try:
            out, err = popen.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _signal_group(popen, signal.SIGTERM)
            try:
                out, err = popen.communicate(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                _signal_group(popen, signal.SIGKILL)
                out, err = popen.communicate()
            self._save_submit_output(out, err)
            raise SubmitTimeout(cmd, timeout, out, err, self.logs_tail()) from None
        self._save_submit_output(out, err)
        return subprocess.CompletedProcess(cmd, popen.returncode, out, err)

    def _save_submit_output(self, out: str | None, err: str | None) -> None:
        n = len(self._submits)
        (self.log_dir / f"submit-{n}.stdout").write_text(out or "")
        (self.log_dir / f"submit-{n}.stderr").write_text(err or "")


def _signal_group(popen: subprocess.Popen, sig: int) -> None:
    # start_new_session=True made the child a group leader: pgid == pid. Only
    # signal while the leader is unreaped (alive or zombie), so its pid, and
    # with it the group id, cannot have been reused by an unrelated process.
    if popen.poll() is not None:
        return
    try:
        os.killpg(popen.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def standalone_cluster(base_dir: str | os.PathLike | None = None, **kwargs) -> Iterator[StandaloneCluster]:
    """Generator for a pytest fixture::

        @pytest.fixture(scope="module")
        def cluster(tmp_path_factory):
            yield from standalone_cluster(tmp_path_factory.mktemp("standalone"))

    Stops the cluster on teardown and fails if any of its processes survived.
    """
    cluster = StandaloneCluster(base_dir=base_dir, **kwargs)
    with cluster:
        yield cluster
    left = cluster.stray_processes()
    if left:
        raise ClusterError(f"processes of {cluster.marker} survived stop(): {left}")
