"""A standalone Spark cluster on loopback, started from the pyspark installation: one master
and some worker processes, for ``spark-submit`` of the mining job (tests, bench/mine.py).

    with StandaloneCluster(workers=2) as cluster:
        cluster.submit([...job arguments...], env=...)

Every process the cluster starts (master, workers, and the executors the workers start) is in
one process group per daemon, killed when the ``with`` block ends, however it ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any


def spark_home() -> Path:
    """The pyspark installation (its ``bin/`` has ``spark-class`` and ``spark-submit``)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ClusterError(RuntimeError):
    """The cluster did not come up (the message names the log to read)."""


class StandaloneCluster:
    """A master and ``workers`` workers (``cores`` each) on 127.0.0.1."""

    def __init__(self, workers: int = 2, cores: int = 1, memory: str = "768m") -> None:
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.dir = Path(tempfile.mkdtemp(prefix="replcheck-spark-"))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_DAEMON_MEMORY="256m",
            SPARK_LOG_DIR=str(self.dir / "logs"),
            SPARK_WORKER_DIR=str(self.dir / "work"),
        )
        env.pop("PYSPARK_GATEWAY_PORT", None)
        return env

    def _start(self, name: str, cls: str, *args: str) -> None:
        log = open(self.dir / f"{name}.log", "wb")  # noqa: SIM115 (the process holds it)
        self.procs.append(
            subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), cls, *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env(),
                start_new_session=True,
            )
        )
        log.close()

    def __enter__(self) -> StandaloneCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def start(self, timeout: float = 90.0) -> None:
        """Start the master, then the workers; return when every worker has registered."""
        self._start(
            "master",
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--webui-port",
            str(free_port()),
        )
        for n in range(self.workers):
            self._start(
                f"worker{n}",
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                "127.0.0.1",
                "--cores",
                str(self.cores),
                "--memory",
                self.memory,
                "--webui-port",
                str(free_port()),
                "--work-dir",
                str(self.dir / f"work{n}"),
                self.url,
            )
        deadline = time.monotonic() + timeout
        log = self.dir / "master.log"
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace") if log.exists() else ""
            if text.count("Registering worker") >= self.workers:
                return
            for p in self.procs:
                if p.poll() is not None:
                    raise ClusterError(f"a Spark daemon exited with {p.returncode}; see {self.dir}")
            time.sleep(0.5)
        raise ClusterError(f"the workers did not register within {timeout:.0f} s; see {log}")

    def submit(
        self, args: list[str], *, env: dict[str, str] | None = None, timeout: float = 600.0
    ) -> subprocess.CompletedProcess[str]:
        """``spark-submit --master URL ARGS...``, in its own process group (killed on timeout)."""
        cmd = [
            str(spark_home() / "bin" / "spark-submit"),
            "--master",
            self.url,
            "--conf",
            "spark.ui.enabled=false",
            "--executor-memory",
            "512m",
            *args,
        ]
        full = self.env()
        full.update(env or {})
        p = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=full,
            start_new_session=True,
        )
        try:
            out, err = p.communicate(timeout=timeout)
        finally:
            _kill_group(p)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)

    def executor_logs(self) -> list[Path]:
        """The stderr files of the executors the workers started."""
        return sorted(self.dir.glob("work*/app-*/*/stderr"))

    def stop(self) -> None:
        """Kill every daemon's process group (workers' executors with them), and remove the
        cluster's folder (logs, work folders) unless ``REPLCHECK_KEEP_SPARK`` is set."""
        for p in reversed(self.procs):
            _kill_group(p)
        self.procs.clear()
        if not os.environ.get("REPLCHECK_KEEP_SPARK"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _kill_group(p: subprocess.Popen[Any]) -> None:
    """SIGTERM the process's group, then SIGKILL whatever is left of it."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:
            # the group may outlive its leader (a worker's executors)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            return


def isolated_python(folder: Path) -> Path:
    """A Python for executors that sees the project only through what Spark ships: this
    interpreter, with the project's editable install removed from its import machinery (as on a
    fresh machine that has the dependencies but not the project)."""
    folder.mkdir(parents=True, exist_ok=True)
    block = folder / "block"
    block.mkdir(exist_ok=True)
    (block / "sitecustomize.py").write_text(
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in "
        "getattr(f, '__module__', '') and 'editable' not in type(f).__module__]\n"
        "sys.path[:] = [p for p in sys.path if not p.endswith('__editable__')]\n"
        "for m in [m for m in sys.modules if m == 'replcheck' or m.startswith('replcheck.')]:\n"
        "    del sys.modules[m]\n",
        encoding="utf-8",
    )
    script = folder / "python"
    script.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="{block}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script
