# Model of the pass-fused CUDA NTT (prover/cuda/cu_ntt.cu): the exact index maps of
# k_ntt_small, k_ntt_first and k_ntt_pass over a toy field, against a reference NTT.
#   python3 scripts/cuda/ntt_index_model.py 12,13,16 11.3,9.4 [R4=0|1]   (sizes; TILE.COLS list)
# Emulates the index math of k_ntt_small / k_ntt_first / k_ntt_pass over a toy field.
import random, sys
P = 998244353; G = 3
def root(k): return pow(G, (P - 1) >> k, P)
def brev(i, bits): return int(format(i, '0%db' % bits)[::-1], 2) if bits else 0
def mktw(log):
    tw = [0] * (1 << log); tw[0] = 1
    for lg in range(log):
        m = 1 << lg; w = root(lg + 1)
        for j in range(m): tw[m + j] = pow(w, j, P)
    return tw
def bfly(u, v, tw, m, j, inv):
    if j == 0: t = v; return (u + t) % P, (u - t) % P
    if not inv:
        t = tw[m + j] * v % P; return (u + t) % P, (u - t) % P
    t = tw[2 * m - j] * v % P; return (u - t) % P, (u + t) % P
def scale(v, mode, c, tw, n, idx):
    if mode == 1: return v * c % P
    if mode == 2: return v * (tw[n + idx] * c % P) % P
    return v
def small(x, L, mode, c, tw, inv):
    n = 1 << L; sh = [None] * n
    for i in range(n):
        j = brev(i, L); sh[i] = scale(x[j], mode, c, tw, n, j)
    for s in range(L):
        m = 1 << s; seen = set()
        for p in range(n >> 1):
            j = p & (m - 1); i = ((p >> s) << (s + 1)) | j
            assert i not in seen and i + m not in seen; seen |= {i, i + m}
            sh[i], sh[i + m] = bfly(sh[i], sh[i + m], tw, m, j, inv)
    x[:] = sh
def first(x, L, mode, c, tw, inv):
    M = L - 10; n = 1 << L; row = 1 << (L - 5)
    written = set()
    for B in range(1 << M):
        RB = brev(B, M)
        if RB < B: continue
        nt = 1024 if RB == B else 2048
        sh = [None] * 2048
        for e in range(nt):
            tau = e >> 10; C = e & 31; A = (e >> 5) & 31
            idx = A * row + ((RB if tau else B) << 5) + C
            a = brev(A, 5)
            k = (tau << 10) + (C << 5) + (a ^ (C & 7)); assert sh[k] is None
            sh[k] = scale(x[idx], mode, c, tw, n, idx)
        for u in range(5):
            seen = set()
            for b in range(nt // 2):
                tau = b >> 9; C = b & 31; rest = (b >> 5) & 15
                jp = rest >> (4 - u); gg = rest & ((1 << (4 - u)) - 1)
                a0 = (gg << (u + 1)) | jp; a1 = a0 + (1 << u)
                base = (tau << 10) + (C << 5); sw = C & 7
                i0 = base + (a0 ^ sw); i1 = base + (a1 ^ sw)
                assert i0 not in seen and i1 not in seen; seen |= {i0, i1}
                sh[i0], sh[i1] = bfly(sh[i0], sh[i1], tw, 1 << u, jp, inv)
            assert len(seen) == nt
        for e in range(nt):
            tau = e >> 10; a = e & 31; X = (e >> 5) & 31; C = brev(X, 5)
            idx = X * row + ((B if tau else RB) << 5) + a
            assert idx not in written; written.add(idx)
            x[idx] = sh[(tau << 10) + (C << 5) + (a ^ (C & 7))]
    assert len(written) == n
def slot(e, t):
    if t >= 3: return e
    a = e >> 3
    if t == 2: f = bin(a).count('1') & 1
    else:
        a ^= a >> 8; a ^= a >> 4; a ^= a >> 2
        f = (a & 3) if t == 1 else ((e >> 3) ^ (e >> 6) ^ (e >> 9) ^ (e >> 12)) & 7
    return e ^ (f << t)
CONF = {}
def phase_check(key, idxs, t):
    # idxs: element indices touched by 8 consecutive threads (one access each)
    banks = [slot(e, t) & 7 for e in idxs]
    CONF[key] = CONF.get(key, 0) + (len(banks) - len(set(banks)))
def pss(x, s, k, t, tw, inv, L):
    C = 1 << t; E = 1 << (k + t)
    for bid in range(1 << (L - k - t)):
        hi = bid >> (s - t); lo0 = (bid & ((1 << (s - t)) - 1)) << t
        base = (hi << (s + k)) + lo0
        sh0 = [None] * E
        for e in range(E): sh0[slot(e, t)] = x[base + ((e >> t) << s) + (e & (C - 1))]
        assert None not in sh0
        sh = [sh0[slot(e, t)] for e in range(E)]
        u = 0
        while u < k:
            m = 1 << (s + u); shf = k - 1 - u; seen = set()
            if R4 and u + 1 < k:
                shf -= 1
                for q in range(E // 4):
                    c = q & (C - 1); rest = q >> t
                    jp = rest >> shf; gg = rest & ((1 << shf) - 1)
                    i0 = (((gg << (u + 2)) | jp) << t) | c; dd = 1 << (u + t)
                    j = (jp << s) + lo0 + c
                    ii = [i0, i0 + dd, i0 + 2 * dd, i0 + 3 * dd]
                    for z in ii: assert z not in seen; seen.add(z)
                    p0, p1, p2, p3 = [sh[z] for z in ii]
                    p0, p1 = bfly(p0, p1, tw, m, j, inv); p2, p3 = bfly(p2, p3, tw, m, j, inv)
                    p0, p2 = bfly(p0, p2, tw, 2 * m, j, inv); p1, p3 = bfly(p1, p3, tw, 2 * m, j + m, inv)
                    for z, v in zip(ii, (p0, p1, p2, p3)): sh[z] = v
                assert len(seen) == E
                u += 2; continue
            u += 1; u_ = u - 1; ph = []
            for b in range(E // 2):
                c = b & (C - 1); rest = b >> t
                jp = rest >> shf; gg = rest & ((1 << shf) - 1)
                a0 = (gg << (u_ + 1)) | jp
                i0 = (a0 << t) | c; i1 = i0 + (1 << (u_ + t))
                if bid == 0:
                    ph.append(i0)
                    if len(ph) == 8: phase_check((k, t), ph, t); ph.clear()
                assert i0 not in seen and i1 not in seen; seen |= {i0, i1}
                sh[i0], sh[i1] = bfly(sh[i0], sh[i1], tw, m, (jp << s) + lo0 + c, inv)
        for e in range(E): x[base + ((e >> t) << s) + (e & (C - 1))] = sh[e]
def fused(x, L, mode, c, tw, inv, tile=11, cols=3):
    if L <= 11: return small(x, L, mode, c, tw, inv)
    first(x, L, mode, c, tw, inv)
    s = 5; t = cols; kmax = tile - cols; left = L - s; passes = (left + kmax - 1) // kmax
    for p in range(passes):
        k = left // (passes - p) + (left % (passes - p) != 0)
        pss(x, s, k, t, tw, inv, L); s += k; left -= k
    assert s == L
def ref(x, L, inv):
    n = 1 << L; w = root(L)
    if inv: w = pow(w, P - 2, P)
    # fast reference via recursive NTT
    def rec(a, w):
        if len(a) == 1: return a[:]
        e = rec(a[0::2], w * w % P); o = rec(a[1::2], w * w % P); h = len(a) // 2
        out = [0] * len(a); wk = 1
        for k in range(h):
            t = wk * o[k] % P; out[k] = (e[k] + t) % P; out[k + h] = (e[k] - t) % P; wk = wk * w % P
        return out
    r = rec(x, w)
    if inv:
        ni = pow(n, P - 2, P); r = [v * ni % P for v in r]
    return r
random.seed(1)
R4 = int(sys.argv[3]) if len(sys.argv) > 3 else 0
CFGS = [tuple(map(int, c.split("."))) for c in (sys.argv[2] if len(sys.argv) > 2 else "11.3,10.2,9.1,12.5").split(",")]
for L in [int(a) for a in sys.argv[1].split(',')]:
    tw = mktw(L + 1)
    for (tile, cols) in CFGS:
        if L <= 11 and (tile, cols) != (11, 3): continue
        for inv in (0, 1):
            x = [random.randrange(P) for _ in range(1 << L)]
            want = ref(x, L, inv)
            y = x[:]
            fused(y, L, 1 if inv else 0, pow(1 << L, P - 2, P) if inv else 0, tw, inv, tile, cols)
            assert y == want, (L, inv, tile, cols)
        # coset mode 2: x_i * w_2n^i * c, then forward
        x = [random.randrange(P) for _ in range(1 << L)]; cc = 12345
        want = ref([x[i] * tw[(1 << L) + i] * cc % P for i in range(1 << L)], L, 0)
        y = x[:]; fused(y, L, 2, cc, tw, 0, tile, cols)
        assert y == want, ('coset', L, tile, cols)
    print('ok', L, {k: v for k, v in CONF.items()}, flush=True); CONF.clear()
