"""Work on an upload in a child process with memory, CPU and time limits
(docs/media.md): how images.py decodes an image and documents.py reads a
PDF, so that no file, however crafted, costs the web worker more than the
limits, and the next request finds the worker as it was.

`run(work, data, ...)` forks a child for one upload. The child closes every
descriptor but its end of a pipe, lowers its limits (MEMORY_BYTES more than
the worker held, the CPU time), runs `work(data)` and writes what it
returned, or why it refused the upload, and ends with os._exit. The worker
reads the answer until its deadline, and kills the child then. The price is
a fork per upload (a few milliseconds of CPU; the bytes and the libraries
are already in memory, so nothing is copied or imported).
"""

import ctypes
import math
import os
import resource
import select
import signal
import time


class Refused(ValueError):
    """The upload is not one this service takes; the message says why."""


def run(work, data, *, what, verb, seconds, memory_bytes, max_output, setup=None):
    """What `work(data)` returns (bytes), computed in a child process; or
    Refused saying why (`work` refused it; it took more than `seconds`, more
    than `memory_bytes`, or would return more than `max_output` bytes);
    `what` and `verb` name the work in the messages: ("image", ("decode",
    "decoded")). `setup()` runs in the child once its limits are set."""
    limits = (what, verb, seconds, memory_bytes)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        _child(work, data, setup, limits, read_end, write_end)
    os.close(write_end)
    try:
        answer = _collect(read_end, limits, max_output)
    except BaseException:
        _kill(pid)  # late, too long, or the worker itself is stopping: the child goes first
        raise
    finally:
        os.close(read_end)
    status = os.waitpid(pid, 0)[1]
    return _result(answer, status, limits)


def _collect(read_end, limits, max_output):
    """Everything the child wrote, until it closed its end."""
    what, verb, seconds, _ = limits
    deadline = time.monotonic() + seconds
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    chunks, size = [], 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Refused(f"The {what} takes more than {seconds} seconds to {verb[0]}.")
        if not poller.poll(remaining * 1000):
            continue
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_output + 9:
            raise Refused(f"The {what} written anew would be over {max_output:,} bytes.")
        chunks.append(chunk)


def mib(memory_bytes):
    return memory_bytes // 2**20


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    finally:
        os.waitpid(pid, 0)


def _result(answer, status, limits):
    what, verb, seconds, memory_bytes = limits
    kind, body = answer[:1], answer[1:]
    if kind == b"0":
        return body
    if kind == b"1":
        raise Refused(body.decode())
    if kind == b"2" or not os.WIFSIGNALED(status):
        raise RuntimeError(f"working on the {what} failed ({status}): {body.decode()}")
    if os.WTERMSIG(status) == signal.SIGXCPU:
        raise Refused(f"The {what} takes more than {seconds} seconds to {verb[0]}.")
    # Killed without a word: a library's C code out of memory (or worse) on this file
    raise Refused(
        f"The {what} cannot be {verb[1]} within {mib(memory_bytes)} MiB and {seconds} seconds "
        f"(the work ended with signal {os.WTERMSIG(status)})."
    )


# --- the child ---------------------------------------------------------------------------


def _child(work, data, setup, limits, read_end, write_end):
    """Never returns: writes `0` and what `work` returned, `1` why it was
    refused, or `2` the error, and ends with os._exit (no atexit handler, no
    finaliser of the worker's connections, no buffered output of the
    parent's runs here)."""
    what, verb, seconds, memory_bytes = limits
    code = 1
    try:
        os.close(read_end)
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGABRT):
            signal.signal(signum, signal.SIG_DFL)  # the worker's handlers are not this process's
        os.closerange(3, write_end)  # the client's socket, the database's: not the child's to hold
        os.closerange(write_end + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        _limit(seconds, memory_bytes)
        try:
            if setup is not None:
                setup()
            answer = b"0" + work(data)
        except Refused as e:
            answer = b"1" + str(e).encode()
        except MemoryError:
            needs = f"The {what} needs more than {mib(memory_bytes)} MiB to {verb[0]}."
            answer = b"1" + needs.encode()
        except Exception as e:  # a bug here, not the client's: the worker answers 500
            answer = b"2" + f"{type(e).__name__}: {e}".encode()
        view = memoryview(answer)
        while view:
            view = view[os.write(write_end, view) :]
        code = 0
    finally:
        os._exit(code)


def _limit(seconds, memory_bytes):
    """At most `memory_bytes` of memory more than the worker held, at most
    `seconds` + 1 of CPU (the parent's deadline comes first; this one holds
    if the parent is gone), no core dumped.

    The memory is bounded by RLIMIT_DATA, which counts every private
    writable mapping (the heap, and since Linux 4.7 anonymous mmap too, and
    reserved address space made writable: malloc's arenas grow so), from
    what the worker had written (VmData) less what its malloc holds free
    for reuse, which the child may take without growing. RLIMIT_AS bounds
    the address space as well."""
    with open("/proc/self/status") as status:
        sizes = dict(line.split(":", 1) for line in status if line.startswith(("VmSize", "VmData")))
    vm_size, vm_data = (int(sizes[name].split()[0]) * 1024 for name in ("VmSize", "VmData"))
    _lower(resource.RLIMIT_DATA, max(0, vm_data - free_in_malloc()) + memory_bytes)
    _lower(resource.RLIMIT_AS, vm_size + memory_bytes)
    _lower(resource.RLIMIT_CPU, math.ceil(seconds) + 1)
    _lower(resource.RLIMIT_CORE, 0)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def free_in_malloc():
    """The bytes glibc's malloc holds free in all its arenas (0 without
    glibc 2.33's mallinfo2)."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return 0
    mallinfo2.restype = _Mallinfo2
    return mallinfo2().fordblks


def _lower(which, value):
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))
