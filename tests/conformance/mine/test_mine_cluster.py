"""The mining job submitted with ``spark-submit`` to a real standalone cluster: a master and two
workers started from the pyspark installation on loopback. The executors' Python has the
project's dependencies but not the project (its editable install is hidden from them), so the
job only works if the project is shipped; its verdicts must agree with validate's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mine_corpus import make_corpus
from replcheck.conformance.mine.cluster import StandaloneCluster, isolated_python
from replcheck.conformance.mine.job import write_package

from replcheck.cli import main

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_spark_submit_to_a_two_worker_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = make_corpus(tmp_path)
    zipped, script = write_package(tmp_path / "package")
    python = isolated_python(tmp_path / "python")
    out = tmp_path / "out"
    cluster = StandaloneCluster(workers=2, cores=1)
    with cluster:
        pids = [p.pid for p in cluster.procs]
        done = cluster.submit(
            [
                "--py-files",
                str(zipped),
                "--total-executor-cores",
                "2",
                str(script),
                str(corpus),
                "--out",
                str(out),
            ],
            env={"PYSPARK_PYTHON": str(python), "PYSPARK_DRIVER_PYTHON": sys.executable},
        )
        executors = cluster.executor_logs()
    assert done.returncode == 2, done.stderr[-3000:]  # the corrupt inputs: bad input
    assert "ModuleNotFoundError" not in done.stderr
    assert len({p.parent.parent.parent.name for p in executors}) == 2  # both workers ran one
    for pid in pids:  # every daemon is gone once the cluster is left
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

    summary = json.loads((out / "summary.json").read_text())
    assert summary["master"] == cluster.url
    assert summary["mined"] == 7
    assert summary["read"] == {"binary files": 7}  # read by Spark, parsed in the executors
    assert not any("internal error" in q["reason"] for q in summary["quarantine"])
    expected = {"accepted": 0, "rejected": 0, "undecided": 0, "bad-input": 0}
    for p in sorted(corpus.iterdir()):
        main(["validate", "--json", str(p)])
        expected[json.loads(capsys.readouterr().out)[0]["status"]] += 1
    assert summary["status"] == expected
