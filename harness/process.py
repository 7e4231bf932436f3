"""A child process the harness owns: start it, wait until it is ready, stop
it politely or SIGKILL it with everything it forked.

The service is not one process: gunicorn is a master with workers, and the
coming `flask --app app dispatch` command is another long-running process
that the faults must be able to crash the same way. Process holds what they
share; a subclass only says how to build its command line and how to tell
that it is ready (gunicorn: /health answers; default: a line in its log).

Every child runs in a new session, i.e. its own process group, so `kill()`
takes down the master and its workers in one signal, as a power cut or the
OOM killer would, and a test that fails half-way leaves no stray workers.
"""

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from harness.paths import ROOT


class ProcessExited(RuntimeError):
    """The process ended while it was expected to come up (or stay up)."""


class Exit:
    """How a process that was expected to refuse to start ended."""

    __slots__ = ("code", "stdout", "stderr", "seconds")

    def __init__(self, code, stdout, stderr, seconds):
        self.code, self.stdout, self.stderr, self.seconds = code, stdout, stderr, seconds

    def error_lines(self):
        """The `error: ...` lines on stderr (the service's one-line refusals)."""
        return [line for line in self.stderr.splitlines() if line.startswith("error:")]


class Process:
    """One long-running command in its own process group.

    `env` is added to this process's environment (`inherit_env=False`: it is
    the whole environment). `log`: file that receives stdout and stderr
    (appended), or None to drop them. `ready_text`: the process counts as ready once this text is in its
    log; subclasses may override ready() instead.
    """

    def __init__(
        self, argv, *, cwd=ROOT, env=None, inherit_env=True, log=None, ready_text=None, name=None
    ):
        self.argv = [str(a) for a in argv]
        self.cwd = Path(cwd)
        self.env = {**(os.environ if inherit_env else {}), **(env or {})}
        self.log = Path(log) if log else None
        self.ready_text = ready_text
        self.name = name or Path(self.argv[0]).name
        self.proc = None

    # ------------------------------------------------------------ life cycle

    def launch(self):
        """Start the process without waiting for it to be ready (to start
        several at once, then wait_ready() on each)."""
        if self.ready_text is not None and self.log is None:
            raise ValueError(f"{self.name}: ready_text needs a log file to look in")
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
        try:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            if out is not subprocess.DEVNULL:
                out.close()  # the child has its own descriptor
        return self

    def ready(self):
        """True once the process can be used. Default: ready_text is in the
        log, or at once when there is no ready_text."""
        return self.ready_text is None or self.ready_text in self.log_text()

    def wait_ready(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise ProcessExited(
                    f"{self.name} exited with {self.proc.returncode} before it was ready"
                    + self._log_tail()
                )
            if self.ready():
                return self
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"{self.name} was not ready within {timeout}s" + self._log_tail()
                )
            time.sleep(0.1)

    def start(self, timeout=30.0):
        """launch() and wait_ready(); a process that does not come up is killed."""
        self.launch()
        try:
            return self.wait_ready(timeout)
        except BaseException:
            self.kill()
            raise

    def stop(self, timeout=15.0):
        """SIGTERM (gunicorn finishes the requests in flight), then SIGKILL to
        the whole group if it has not exited within `timeout`."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout)
        self.kill()  # also reaps anything of the group still alive

    def signal_stop(self):
        """SIGTERM without waiting (stop_all() stops many at once)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def terminate(self, timeout=15.0):
        """SIGTERM only, then wait: its exit code, or None if it still runs."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        """SIGKILL the process and everything in its group at once."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)

    def run_to_exit(self, timeout=30.0):
        """Run the command expecting it to end by itself (a refused start);
        returns an Exit. If it is still running after `timeout` it is killed
        and Exit.code is None."""
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            self.argv,
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = self.proc.communicate(timeout=timeout)
            code = self.proc.returncode
        except subprocess.TimeoutExpired:
            self.kill()
            out, err = self.proc.communicate(timeout=10)
            code = None
        return Exit(code, out, err, time.monotonic() - t0)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ------------------------------------------------------------ inspection

    @property
    def pid(self):
        return self.proc.pid

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def child_pids(self):
        """Direct children of the process (gunicorn: its workers)."""
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.proc.pid)],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
        return [int(p) for p in out.split()]

    def log_text(self):
        if self.log is None or not self.log.exists():
            return ""
        return self.log.read_text(errors="replace")

    def log_count(self, text):
        """How often `text` occurs in the log ("Traceback", "database is locked")."""
        return self.log_text().count(text)

    def first_traceback(self, lines=30):
        """The first traceback in the log, up to `lines` lines, or "" (for a
        report that fails on one: what it was, not only that it was)."""
        text = self.log_text()
        at = text.find("Traceback")
        if at < 0:
            return ""
        start = text.rfind("\n", 0, at) + 1  # with the line that logged it
        return "\n".join(text[start:].splitlines()[:lines])

    def _log_tail(self, lines=20):
        tail = self.log_text().strip().splitlines()[-lines:]
        return (":\n" + "\n".join(tail)) if tail else ""


def stop_all(processes, timeout=15.0):
    """stop() every process, side by side: one SIGTERM each at once, then
    the waits, so that a tool holding a dozen servers does not pay each
    one's graceful shutdown in turn."""
    for process in processes:
        process.signal_stop()
    deadline = time.monotonic() + timeout
    for process in processes:
        process.stop(max(0.0, deadline - time.monotonic()))
