#!/usr/bin/env python3
"""Seeded synthetic memory traces in the formats famsim's trace readers accept.

  make_trace.py --format ramulator|dramsim3|dramsys --pattern random|sequential --requests N
                [--read-fraction 0.8] [--stride-bytes 64] --address-bytes SIZE [--base-address A]
                [--seed S] [--cycles-per-request C] -o FILE

Lines written (grammar and sources in traffic/trace/trace_reader.h):
  ramulator  LD 0x1f40          ST 0x1f80                 (Ramulator 2 LoadStoreTrace, no time)
  dramsim3   0x1F40 READ 12     0x1F80 WRITE 13           (cycle = DRAM command clock)
  dramsys    12: read 0x1f40    13: write 0x1f80          (.stl, cycle = trace player clock)

Addresses are base + k * stride for k in [0, address_bytes / stride): uniformly drawn (random) or
k = i mod slots (sequential). Request i is a read with probability read_fraction, and is stamped
with cycle floor(i * cycles_per_request), computed exactly. The same arguments and seed give the same file, byte for
byte, on any Python 3 (the draws use only random.Random.getrandbits and random.Random.random).
Python standard library only.
"""

import argparse
import random
import sys
from fractions import Fraction

_SUFFIXES = {
    "": 1,
    "k": 1 << 10, "kib": 1 << 10,
    "m": 1 << 20, "mib": 1 << 20,
    "g": 1 << 30, "gib": 1 << 30,
    "t": 1 << 40, "tib": 1 << 40,
}

_CHUNK = 1 << 16  # requests formatted per write


def parse_size(text):
    """'4096', '0x1000', '64KiB', '8M', '1GiB', '2T' (binary multiples) -> bytes."""
    t = text.strip().lower()
    if t.startswith("0x"):
        return int(t, 16)
    digits = len(t) - len(t.lstrip("0123456789"))
    number, suffix = t[:digits], t[digits:]
    if not number or suffix not in _SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"bad size {text!r}: expected a number with an optional K/KiB/M/MiB/G/GiB/T/TiB suffix")
    return int(number) * _SUFFIXES[suffix]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--format", required=True, choices=["ramulator", "dramsim3", "dramsys"])
    p.add_argument("--pattern", default="random", choices=["random", "sequential"])
    p.add_argument("--requests", required=True, type=int, help="number of request lines")
    p.add_argument("--read-fraction", type=float, default=0.8, help="probability of a read")
    p.add_argument("--stride-bytes", type=parse_size, default=64,
                   help="address step and alignment, bytes")
    p.add_argument("--address-bytes", required=True, type=parse_size,
                   help="size of the address range, bytes (e.g. 1GiB)")
    p.add_argument("--base-address", type=parse_size, default=0, help="first address of the range")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cycles-per-request", type=Fraction, default=None,
                   help="timestamp step for dramsim3/dramsys (default 1); 0.25 or 1/3 allowed")
    p.add_argument("-o", "--output", required=True, help="output file")
    a = p.parse_args(argv)
    if a.requests <= 0:
        p.error("--requests must be positive")
    if not 0.0 <= a.read_fraction <= 1.0:
        p.error("--read-fraction must be within [0, 1]")
    if a.stride_bytes <= 0:
        p.error("--stride-bytes must be positive")
    if a.address_bytes < a.stride_bytes:
        p.error("--address-bytes must hold at least one stride")
    if a.base_address + a.address_bytes > 1 << 64:
        p.error("--base-address + --address-bytes must fit in 64 bits")
    if a.format == "ramulator":
        if a.cycles_per_request is not None:
            p.error("ramulator traces carry no timestamps: drop --cycles-per-request")
    elif a.cycles_per_request is None:
        a.cycles_per_request = Fraction(1)
    elif a.cycles_per_request < 0:
        p.error("--cycles-per-request must not be negative")
    return a


def slot_stream(rng, pattern, slots, count):
    """count slot indices in [0, slots): uniform by rejection on getrandbits, or sequential."""
    if pattern == "sequential":
        return (i % slots for i in range(count))
    bits = max(1, (slots - 1).bit_length())
    getrandbits = rng.getrandbits

    def draws():
        for _ in range(count):
            k = getrandbits(bits)
            while k >= slots:
                k = getrandbits(bits)
            yield k

    return draws()


def write_trace(a, out):
    rng = random.Random(a.seed)
    slots = a.address_bytes // a.stride_bytes
    base, stride, rf = a.base_address, a.stride_bytes, a.read_fraction
    rand = rng.random
    cpr = a.cycles_per_request
    num, den = (cpr.numerator, cpr.denominator) if cpr is not None else (0, 1)
    fmt = a.format

    if fmt == "dramsys":
        out.write(f"# make_trace.py --pattern {a.pattern} --requests {a.requests} "
                  f"--read-fraction {rf} --stride-bytes {stride} --address-bytes {a.address_bytes} "
                  f"--base-address {base} --seed {a.seed} --cycles-per-request {cpr}\n")

    slots_iter = slot_stream(rng, a.pattern, slots, a.requests)
    i = 0
    while i < a.requests:
        n = min(_CHUNK, a.requests - i)
        lines = []
        append = lines.append
        # Per request: the slot draw (random pattern) comes first, then the read/write draw.
        for j in range(i, i + n):
            addr = base + next(slots_iter) * stride
            write = rand() >= rf
            if fmt == "ramulator":
                append(f"{'ST' if write else 'LD'} 0x{addr:x}\n")
            elif fmt == "dramsim3":
                append(f"0x{addr:X} {'WRITE' if write else 'READ'} {j * num // den}\n")
            else:
                append(f"{j * num // den}: {'write' if write else 'read'} 0x{addr:x}\n")
        out.write("".join(lines))
        i += n


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    with open(a.output, "w", encoding="ascii", newline="\n", buffering=1 << 20) as out:
        write_trace(a, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
