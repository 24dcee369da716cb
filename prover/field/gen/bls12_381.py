"""BLS12-381 arithmetic for the generators (field/gen, curve/gen): the base
field modulus p, limb splitting, square-and-multiply over any operation,
and Fp2 = Fp[u]/(u^2+1) on pairs (c0, c1).  Plain big-integer arithmetic;
no generated constant is copied from elsewhere.

Sources: p as published for BLS12-381 (draft-irtf-cfrg-pairing-friendly-
curves, section 4.2.1).
"""

P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab


def limbs(v, n):
    """The n little-endian 64-bit limbs of v."""
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]


def binexp(op, identity, a, e):
    """a combined with itself e times under op, by square-and-multiply
    (a power for a multiplication, a multiple for a point addition)."""
    r = identity
    while e:
        if e & 1:
            r = op(r, a)
        a = op(a, a)
        e >>= 1
    return r


def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def f2pow(a, e):
    return binexp(f2mul, (1, 0), a, e)


def f2inv(a):
    n = pow(a[0] * a[0] + a[1] * a[1], P - 2, P)
    return (a[0] * n % P, -a[1] * n % P)
