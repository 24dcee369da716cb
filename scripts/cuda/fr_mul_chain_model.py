# Model of fr_mul_fast (prover/cuda/cu_ntt.cu): python3 scripts/cuda/fr_mul_chain_model.py
# Simulates the Fr-specialised CIOS reduction row (p0 = 1, p1 = 2^32 - 1, N0 = -1)
# with 32-bit carry-chain semantics, against t + m*p in big integers.
import random
p = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
P = [(p >> (32 * i)) & 0xffffffff for i in range(8)]
assert P[0] == 1 and P[1] == 0xffffffff
M32 = 0xffffffff
R = 1 << 256
class Chain:
    def __init__(s): s.cf = 0
    def add(s, a, b, cin, cout):
        v = a + b + (s.cf if cin else 0)
        if cout: s.cf = v >> 32
        return v & M32
def products(ch, t, js, x, b, cin):
    """t[j], t[j + 1] += the low and high words of x[j] * b for j in js, on
    the chain ch; the first add takes the chain's carry when cin is set."""
    for k, j in enumerate(js):
        t[j] = ch.add(t[j], (x[j] * b) & M32, cin or k > 0, 1)
        t[j + 1] = ch.add(t[j + 1], (x[j] * b) >> 32, 1, 1)
def mac_row(t, a, b):
    ch = Chain()
    # even j
    products(ch, t, range(0, 8, 2), a, b, 0)
    t[8] = ch.add(t[8], 0, 1, 1)
    t[9] = ch.add(t[9], 0, 1, 0)
    # odd j
    products(ch, t, range(1, 8, 2), a, b, 0)
    t[9] = ch.add(t[9], 0, 1, 0)
def red_row(t):
    x = t[0]; m = (-x) & M32; hi1 = (~x & M32) if x else 0
    ch = Chain()
    # chain A: words 0..2 get [m, x, hi1], then odd products j = 3, 5, 7
    t[0] = ch.add(t[0], m, 0, 1)
    t[1] = ch.add(t[1], x, 1, 1)
    t[2] = ch.add(t[2], hi1, 1, 1)
    products(ch, t, (3, 5, 7), P, m, 1)
    t[9] = ch.add(t[9], 0, 1, 0)
    # chain B: even products j = 2, 4, 6
    products(ch, t, (2, 4, 6), P, m, 0)
    t[8] = ch.add(t[8], 0, 1, 1)
    t[9] = ch.add(t[9], 0, 1, 0)
    return m
def val(t): return sum(v << (32 * i) for i, v in enumerate(t))
def words(v, n): return [(v >> (32 * i)) & M32 for i in range(n)]
def mul(a, b):
    A = words(a, 8); Bw = words(b, 8); t = [0] * 10
    for i in range(8):
        mac_row(t, A, Bw[i])
        before = val(t)
        m = red_row(t)
        assert val(t) == before + m * p, "row"
        assert t[0] == 0
        t = t[1:] + [0]
    v = val(t); assert v < 2 * p
    return v - p if v >= p else v
Rinv = pow(R, -1, p)
random.seed(5)
edges = [0, 1, 2, p - 1, p - 2, (1 << 32), (1 << 32) - 1, R % p, p >> 1]
vals = edges + [random.randrange(p) for _ in range(3000)]
n = 0
for a in vals[:60]:
    for b in vals:
        assert mul(a, b) == a * b * Rinv % p; n += 1
print("ok", n)
