"""The data famsim's initiators write and the transaction log's data_hash, worked out again here for
tests, independently of the C++ (traffic/pattern.h, models/core/transaction_log.cpp):

- byte a of the pattern is byte (a mod 8) of SplitMix64's finaliser of (a >> 3) xor the seed,
  the finaliser applied to its argument plus 0x9e3779b97f4a7c15;
- data_hash is the 64-bit FNV-1a hash (offset basis 0xcbf29ce484222325, prime 0x100000001b3)
  of the bytes, as 16 hex digits.
"""

M = (1 << 64) - 1


def mix64(x):
    z = (x + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def pattern(va, n, seed):
    """The n bytes of the pattern from address va."""
    return bytes((mix64(((a >> 3) ^ seed) & M) >> (8 * (a & 7))) & 0xFF for a in range(va, va + n))


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & M
    return h

