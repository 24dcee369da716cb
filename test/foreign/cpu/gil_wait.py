"""gil_wait: a Python job whose launching thread waits for the GIL held by
busy helper threads.  It knows nothing of gapscope.

    python3 gil_wait.py ITERS [trim]

The main thread (the launcher) releases the GIL (time.sleep(0)) and takes
it back ITERS times while two threads run pure Python; each take waits
about one switch interval (100 ms).  With "trim", the launcher instead waits
on a threading.Lock held by a helper that calls malloc_trim(0) through
ctypes (dlsym: invisible to LD_PRELOAD).

Ground truth on stdout (CLOCK_MONOTONIC ns): "launcher=TID", one
"gap START END" per wait, "trim START END" per trim (trim mode),
"wait_ns=TOTAL".
"""
import ctypes
import os
import sys
import threading
import time


def say(line):
    """One write(2) per line: lines of two threads never interleave."""
    os.write(1, (line + "\n").encode())


def busy(stop):
    x = 0
    while not stop.is_set():
        x += 1


def gil_mode(iters):
    sys.setswitchinterval(0.1)
    stop = threading.Event()
    helpers = [threading.Thread(target=busy, args=(stop,), name="busy%d" % i) for i in range(2)]
    for t in helpers:
        t.start()
    time.sleep(0.05)
    total = 0
    for _ in range(iters):
        a = time.monotonic_ns()
        time.sleep(0)
        b = time.monotonic_ns()
        say("gap %d %d" % (a, b))
        total += b - a
    stop.set()
    for t in helpers:
        t.join()
    return total


def trim_mode(iters):
    libc = ctypes.CDLL("libc.so.6")
    lock = threading.Lock()
    holding = threading.Event()
    done = threading.Event()

    def finalizer():
        for _ in range(iters):
            junk = [bytearray(4096 + 64 * (i % 7)) for i in range(40000)]
            del junk[::2]
            with lock:
                holding.set()
                time.sleep(0.002)
                a = time.monotonic_ns()
                libc.malloc_trim(0)
                b = time.monotonic_ns()
            say("trim %d %d" % (a, b))
            del junk
            done.wait()
            done.clear()

    f = threading.Thread(target=finalizer, name="finalizer")
    f.start()
    total = 0
    for _ in range(iters):
        holding.wait()
        holding.clear()
        a = time.monotonic_ns()
        with lock:
            b = time.monotonic_ns()
        say("gap %d %d" % (a, b))
        total += b - a
        done.set()
    f.join()
    return total


def main():
    if len(sys.argv) < 2:
        print("usage: gil_wait.py ITERS [trim]", file=sys.stderr)
        return 2
    iters = int(sys.argv[1])
    say("launcher=%d" % threading.get_native_id())
    total = trim_mode(iters) if sys.argv[2:] == ["trim"] else gil_mode(iters)
    say("wait_ns=%d" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
