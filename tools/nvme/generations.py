#!/usr/bin/env python3
"""Overwrites that can show a stale write: the same blocks written again and
again, each time with a new generation, and a check that every block holds
the generation whose write was acknowledged last.

fio's verify stamps a block with its offset and a checksum, so an older
copy of a block, written late, passes it. Here each 4 KiB block carries a
header (magic, block number, generation, run id) and a payload derived
from those, so a block that holds anything but the last generation written
to it is told apart: "stale" (an older generation of this run), "newer"
(a generation whose write never returned) or "corrupt" (anything else).

    generations.py write DEV STATE [--blocks N] [--passes P] [--writers W]
                                   [--readers R]
        P passes over the first N blocks of DEV (O_DIRECT): pass g writes
        every block with generation g, in runs of 1 to 16 blocks, each
        writer on its own chunks of 64 blocks in a random order. From the
        second pass on, R readers read random runs meanwhile and check
        each block: valid, and neither older than the last generation
        acknowledged before the read nor newer than the last one started
        after it. Any I/O error or failed read check fails. The generation
        of every block is saved in STATE (JSON).
    generations.py check DEV STATE
        Every block of STATE read back and compared with its generation.
    generations.py replay DEV STATE BLOCK
        Writes BLOCK's previous generation to DEV, as a write that landed
        late would: the check afterwards must find it (the proof that the
        check can fail).

Each command prints one summary line and exits non-zero on a failure.
"""

import argparse
import hashlib
import json
import mmap
import os
import random
import struct
import sys
import threading

BLOCK = 4096
CHUNK = 64  # blocks a writer owns together
MAX_RUN = 16  # blocks one write or read covers at most
MAGIC = b"NVMEGEN1"
HEADER = struct.Struct("<8sQQQ")  # magic, block, generation, run id


def block_bytes(run_id, block, gen):
    """The 4 KiB a block holds at generation gen of run run_id."""
    header = HEADER.pack(MAGIC, block, gen, run_id)
    seed = hashlib.sha256(header).digest()
    return header + (seed * (BLOCK // len(seed)))[: BLOCK - len(header)]


def classify(data, run_id, block):
    """What one block read back holds: its generation when it is a valid
    block of this run (checked in full), None when it is not."""
    magic, number, gen, rid = HEADER.unpack_from(data)
    if magic != MAGIC or number != block or rid != run_id:
        return None
    if data != block_bytes(run_id, block, gen):
        return None
    return gen


class Device:
    """DEV opened with O_DIRECT, with one page-aligned buffer per thread
    (an anonymous mmap is page aligned, as O_DIRECT needs)."""

    def __init__(self, path, write):
        flags = (os.O_RDWR if write else os.O_RDONLY) | os.O_DIRECT
        self.fd = os.open(path, flags)
        self.local = threading.local()

    def buffer(self):
        if not hasattr(self.local, "buf"):
            self.local.buf = mmap.mmap(-1, MAX_RUN * BLOCK)
        return self.local.buf

    def write(self, first, blocks):
        buf = self.buffer()
        buf.seek(0)
        for data in blocks:
            buf.write(data)
        length = len(blocks) * BLOCK
        done = os.pwritev(self.fd, [memoryview(buf)[:length]], first * BLOCK)
        if done != length:
            raise OSError(f"short write at block {first}: {done} of {length}")

    def read(self, first, count):
        buf = self.buffer()
        length = count * BLOCK
        done = os.preadv(self.fd, [memoryview(buf)[:length]], first * BLOCK)
        if done != length:
            raise OSError(f"short read at block {first}: {done} of {length}")
        return [bytes(buf[i * BLOCK:(i + 1) * BLOCK]) for i in range(count)]


def runs(first, count, rng):
    """first..first+count-1 cut in runs of 1..MAX_RUN blocks."""
    out = []
    while count:
        n = min(count, rng.randint(1, MAX_RUN))
        out.append((first, n))
        first += n
        count -= n
    return out


class Run:
    def __init__(self, args):
        self.args = args
        self.run_id = random.getrandbits(63)
        self.dev = Device(args.dev, write=True)
        n = args.blocks
        self.started = [0] * n  # generation last submitted, per block
        self.acked = [0] * n  # generation last acknowledged, per block
        self.first_pass = threading.Barrier(args.writers + args.readers)
        self.writing = True
        self.errors = []
        self.writes = self.reads = 0
        self.lock = threading.Lock()

    def fail(self, what):
        with self.lock:
            self.errors.append(what)

    def writer(self, index):
        args = self.args
        rng = random.Random(self.run_id + index)
        chunks = range(index * CHUNK, args.blocks, args.writers * CHUNK)
        try:
            for gen in range(1, args.passes + 1):
                pieces = [p for c in chunks
                          for p in runs(c, min(CHUNK, args.blocks - c), rng)]
                rng.shuffle(pieces)
                for first, count in pieces:
                    if self.errors:
                        return
                    span = range(first, first + count)
                    for b in span:
                        self.started[b] = gen
                    self.dev.write(first, [block_bytes(self.run_id, b, gen)
                                           for b in span])
                    for b in span:
                        self.acked[b] = gen
                    with self.lock:
                        self.writes += 1
                if gen == 1:
                    self.first_pass.wait()
        except (OSError, threading.BrokenBarrierError) as e:
            self.fail(f"writer {index}: {e}")
            self.first_pass.abort()

    def reader(self, index):
        rng = random.Random(self.run_id - index - 1)
        try:
            self.first_pass.wait()
            while self.writing and not self.errors:
                count = rng.randint(1, MAX_RUN)
                first = rng.randrange(0, self.args.blocks - count + 1)
                span = range(first, first + count)
                oldest = [self.acked[b] for b in span]
                data = self.dev.read(first, count)
                newest = [self.started[b] for b in span]
                for i, b in enumerate(span):
                    gen = classify(data[i], self.run_id, b)
                    if gen is None or not oldest[i] <= gen <= newest[i]:
                        self.fail(f"read of block {b}: generation {gen}, "
                                  f"want {oldest[i]}..{newest[i]}")
                        return
                with self.lock:
                    self.reads += 1
        except (OSError, threading.BrokenBarrierError) as e:
            self.fail(f"reader {index}: {e}")
            self.first_pass.abort()

    def go(self):
        a = self.args
        writers = [threading.Thread(target=self.writer, args=(i,))
                   for i in range(a.writers)]
        readers = [threading.Thread(target=self.reader, args=(i,))
                   for i in range(a.readers)]
        for t in writers + readers:
            t.start()
        for t in writers:
            t.join()
        self.writing = False
        for t in readers:
            t.join()
        return self.errors


def cmd_write(args):
    if args.blocks < MAX_RUN or args.writers < 1 or args.passes < 1:
        sys.exit("generations: want --blocks >= 16, --writers >= 1, --passes >= 1")
    run = Run(args)
    errors = run.go()
    if args.readers and not run.reads and not errors:
        # Readers that never read checked nothing.
        errors.append("no read checked while writing")
    with open(args.state, "w") as f:
        json.dump({"run_id": run.run_id, "acked": run.acked,
                   "started": run.started, "complete": not errors}, f)
    print(f"generations: {args.blocks} blocks x {args.passes} generations, "
          f"{run.writes} writes acknowledged, {run.reads} reads checked "
          f"while writing, {len(errors)} errors")
    for e in errors[:5]:
        print(f"  {e}")
    return 1 if errors else 0


def cmd_check(args):
    with open(args.state) as f:
        state = json.load(f)
    if not state["complete"]:
        print("generations: the write phase failed; nothing to check")
        return 1
    acked, run_id = state["acked"], state["run_id"]
    dev = Device(args.dev, write=False)
    counts = {"stale": 0, "newer": 0, "corrupt": 0}
    shown = 0
    for first in range(0, len(acked), MAX_RUN):
        count = min(MAX_RUN, len(acked) - first)
        for i, data in enumerate(dev.read(first, count)):
            b = first + i
            gen = classify(data, run_id, b)
            if gen == acked[b]:
                continue
            kind = "corrupt" if gen is None else \
                "stale" if gen < acked[b] else "newer"
            counts[kind] += 1
            if shown < 5:
                print(f"  block {b}: {kind} (generation {gen}, "
                      f"acknowledged {acked[b]})")
                shown += 1
    bad = sum(counts.values())
    print(f"generations: {len(acked)} blocks checked, each against its last "
          f"acknowledged generation: {counts['stale']} stale, "
          f"{counts['newer']} newer, {counts['corrupt']} corrupt")
    return 1 if bad else 0


def cmd_replay(args):
    with open(args.state) as f:
        state = json.load(f)
    b = args.block
    gen = state["acked"][b] - 1
    if gen < 1:
        sys.exit(f"generations: block {b} has no previous generation")
    Device(args.dev, write=True).write(b, [block_bytes(state["run_id"], b, gen)])
    print(f"generations: block {b} written again with generation {gen}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("dev")
    w.add_argument("state")
    w.add_argument("--blocks", type=int, default=4096)
    w.add_argument("--passes", type=int, default=6)
    w.add_argument("--writers", type=int, default=4)
    w.add_argument("--readers", type=int, default=2)
    c = sub.add_parser("check")
    c.add_argument("dev")
    c.add_argument("state")
    r = sub.add_parser("replay")
    r.add_argument("dev")
    r.add_argument("state")
    r.add_argument("block", type=int)
    args = p.parse_args()
    return {"write": cmd_write, "check": cmd_check, "replay": cmd_replay}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
