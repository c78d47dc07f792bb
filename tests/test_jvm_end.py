"""The suite's report of a JVM that died under it (tests/conftest.py), on real processes."""
import subprocess
import sys

from conftest import jvm_end


def _ended(code: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code])
    proc.wait(timeout=30)
    return proc


def test_a_running_process_has_not_ended():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert jvm_end(proc) is None
    finally:
        proc.kill()
        proc.wait()


def test_a_sigkill_is_said_with_the_memory_left():
    proc = _ended("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    said = jvm_end(proc)
    assert said.startswith(f"the suite's JVM (pid {proc.pid}) was killed by SIGKILL")
    assert "out-of-memory killer" in said and "MemAvailable is now" in said


def test_sparks_out_of_memory_exit_is_named():
    assert "java.lang.OutOfMemoryError" in jvm_end(_ended("raise SystemExit(52)"))


def test_sparks_exit_on_an_uncaught_error_is_named():
    assert "uncaught error" in jvm_end(_ended("raise SystemExit(50)"))


def test_another_exit_gives_its_status():
    proc = _ended("raise SystemExit(3)")
    assert jvm_end(proc) == f"the suite's JVM (pid {proc.pid}) exited 3"


def test_no_process_has_not_ended():
    assert jvm_end(None) is None
