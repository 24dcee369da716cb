#!/usr/bin/env python3
"""Generates prover/field/mont_asm.h: Montgomery multiplication for 6 limbs
(Fp) and 4 limbs (Fr) as x86-64 inline assembly with mulx/adcx/adox (BMI2 +
ADX), one straight-line block per limb count.

Run from the repository root:
    python3 prover/field/gen/mont_asm.py > prover/field/mont_asm.h

Algorithm: CIOS (Koc, Acar, Kaliski 1996) interleaving one multiplication
row and one reduction row per limb of b.  Each row adds X * rdx into the
running sum t[0..n] with two independent carry chains: adcx carries the low
halves, adox the high halves (Intel, "New Instructions Supporting Large
Integer Arithmetic on Intel Architecture Processors", 2012).  Both moduli
have their top limb below 2^62, so every running sum stays below 2^(64(n+1))
and the final value is below 2m: one conditional subtraction reduces it.

Registers: n+1 accumulators rotate by one position per reduction row (the
limb that the reduction zeroes becomes the new top limb, already 0), so no
moves are needed.  After the last row the pointers a and b and the mulx
temporaries are free and hold t - m for the constant-time selection.
"""

ACC = ["r8", "r9", "r10", "r11", "r12", "r13", "r14"]

# limb count -> (modulus symbol with external linkage, n0 = -m^-1 mod 2^64)
FIELDS = {
    6: ("gs_fp_modulus_asm", 0x89F3FFFCFFFCFFFD),
    4: ("gs_fr_modulus_asm", 0xFFFFFFFEFFFFFFFF),
}


def emitter():
    """A list of asm lines and the function that appends one."""
    L = []

    def e(x):
        L.append('        "%s\\n\\t"' % x)

    return L, e


def mod_ref(n, j):
    return f"{FIELDS[n][0]}+{8 * j}(%%rip)"


def mul_row(e, n, t, src, word):
    """t[0..n] += src * word: rdx = word, one carry chain per half (adcx the
    low halves, adox the high ones), the last carry into the top limb."""
    e(f"movq {word}, %%rdx")
    e("xorl %%eax, %%eax")  # clears CF and OF
    for j in range(n):
        e(f"mulxq {src(j)}, %%rax, %%rbx")
        e(f"adcxq %%rax, {t[j]}")
        e(f"adoxq %%rbx, {t[j + 1]}")
    e(f"adcq $0, {t[n]}")


def redc_row(e, n, t):
    """t += q m with q = t0 n0 mod 2^64 (t0 becomes 0); returns t rotated by
    one limb (the zeroed register becomes the top)."""
    n0 = FIELDS[n][1]
    e(f"movabsq $0x{n0:016x}, %%rdx")
    e(f"imulq {t[0]}, %%rdx")
    e("xorl %%eax, %%eax")
    for j in range(n):
        e(f"mulxq {mod_ref(n, j)}, %%rax, %%rbx")
        e(f"adcxq %%rax, {t[j]}")
        e(f"adoxq %%rbx, {t[j + 1]}")
    e(f"adcq $0, {t[n]}")
    return t[1:] + t[:1]


def cond_sub(e, n, t, s):
    """s = t - m in the free registers s; t = s unless that borrows."""
    for j in range(n):
        e(f"movq {t[j]}, {s[j]}")
    for j in range(n):
        e(f"{'subq' if j == 0 else 'sbbq'} {mod_ref(n, j)}, {s[j]}")
    for j in range(n):
        e(f"cmovncq {s[j]}, {t[j]}")


def final_sub(e, n, t, s, out):
    """cond_sub, then store t."""
    cond_sub(e, n, t, s)
    for j in range(n):
        e(f"movq {t[j]}, {8 * j}({out})")


def gen(n):
    acc = ["%%" + r for r in ACC[: n + 1]]
    a, b, out = "%[a]", "%[b]", "%[out]"
    L, e = emitter()
    for r in acc:
        e(f"xorl {r}d, {r}d")
    t = list(acc)  # t[0..n], rotating
    for i in range(n):
        mul_row(e, n, t, lambda j: f"{8 * j}({a})", f"{8 * i}({b})")   # t += a b[i]
        t = redc_row(e, n, t)   # t[0] is now 0 and becomes the top limb
    final_sub(e, n, t, ["%%rax", "%%rbx", "%%rdx", a, b, "%%rcx"][:n], out)
    return L


def gen_wide(n):
    """out[0 .. 2n) = a b: the multiplication rows of gen() without the
    reduction rows.  Row i adds a b[i] into the n + 1 rotating accumulators
    (their value stays below 2^(64(n+1))), then the lowest limb is final:
    it is stored and its register, zeroed, becomes the new top."""
    acc = ["%%" + r for r in ACC[: n + 1]]
    a, b, out = "%[a]", "%[b]", "%[out]"
    L, e = emitter()
    for r in acc:
        e(f"xorl {r}d, {r}d")
    t = list(acc)
    for i in range(n):
        mul_row(e, n, t, lambda j: f"{8 * j}({a})", f"{8 * i}({b})")
        e(f"movq {t[0]}, {8 * i}({out})")
        e(f"xorl {t[0]}d, {t[0]}d")
        t = t[1:] + t[:1]
    for j in range(n):
        e(f"movq {t[j]}, {8 * (n + j)}({out})")
    return L


def gen_redc(n):
    """out = T R^-1 mod m for T = in[0 .. 2n) < m R (Montgomery reduction,
    R = 2^(64n)): the reduction rows of gen() on the low half T_lo, which
    leave V = (T_lo + q m) / R < 1 + m in n limbs, then V + T_hi < 2m
    (T_hi <= m - 1 as T < m R) and one conditional subtraction."""
    acc = ["%%" + r for r in ACC[: n + 1]]
    src, out = "%[in]", "%[out]"
    L, e = emitter()
    for j in range(n):
        e(f"movq {8 * j}({src}), {acc[j]}")
    e(f"xorl {acc[n]}d, {acc[n]}d")
    t = list(acc)
    for i in range(n):
        t = redc_row(e, n, t)
    for j in range(n):
        e(f"{'addq' if j == 0 else 'adcq'} {8 * (n + j)}({src}), {t[j]}")
    final_sub(e, n, t, ["%%rax", "%%rbx", "%%rdx", "%%rcx", src, t[n]][:n], out)
    return L


def func_wide(n, name):
    body = "\n".join(gen_wide(n))
    regs = ", ".join('"%s"' % r for r in ACC[: n + 1])
    return f"""/* out[0 .. {2 * n}) = a b, the full product (no reduction); a, b below
 * 2^{64 * n}; out must not alias a or b. */
static inline void {name}(uint64_t out[{2 * n}], const uint64_t a[{n}], const uint64_t b[{n}])
{{
    __asm__ volatile(
{body}
        :
        : [a] "r"(a), [b] "r"(b), [out] "r"(out)
        : "rax", "rbx", "rdx", {regs}, "cc", "memory");
}}
"""


def func_redc(n, name):
    body = "\n".join(gen_redc(n))
    regs = ", ".join('"%s"' % r for r in ACC[: n + 1])
    return f"""/* out = T R^-1 mod {FIELDS[n][0]} for T = in[0 .. {2 * n}) < m R (R = 2^{64 * n}),
 * reduced; out may alias in. */
static inline void {name}(uint64_t out[{n}], const uint64_t in[{2 * n}])
{{
    const uint64_t *pin = in;
    __asm__ volatile(
{body}
        : [in] "+&r"(pin)
        : [out] "r"(out)
        : "rax", "rbx", "rcx", "rdx", {regs}, "cc", "memory");
}}
"""


def func_wide_addsub(n, op, name):
    """Plain multi-limb add or sub through memory (mov does not touch the
    flags, so one carry chain): out = a + b over n limbs ("add") or 2n
    ("addw"), no carry out for the callers' values, or out = a - b over 2n
    limbs and, with
    op == "subm", m added to the high n limbs on a borrow (a - b + m R when
    a < b, the representative in [0, m R) of a - b mod m R)."""
    L, e = emitter()
    limbs = n if op == "add" else 2 * n
    first, cont = ("addq", "adcq") if op in ("add", "addw") else ("subq", "sbbq")
    for j in range(limbs):
        e(f"movq {8 * j}(%[a]), %%rax")
        e(f"{first if j == 0 else cont} {8 * j}(%[b]), %%rax")
        e(f"movq %%rax, {8 * j}(%[out])")
    mreg = ["%%rax", "%%rdx", "%%r8", "%%r9", "%%r10", "%%r11"][:n]
    if op == "subm":
        # The masked limbs first: and clears the carry flag.
        sym = FIELDS[n][0]
        e("sbbq %%rcx, %%rcx")
        for j in range(n):
            e(f"movq {sym}+{8 * j}(%%rip), {mreg[j]}")
            e(f"andq %%rcx, {mreg[j]}")
        for j in range(n):
            e(f"{'addq' if j == 0 else 'adcq'} {mreg[j]}, {8 * (n + j)}(%[out])")
    body = "\n".join(L)
    what = {"add": f"out[0 .. {n}) = a + b, no reduction (a + b < 2^{64 * n})",
            "addw": f"out[0 .. {2 * n}) = a + b (no carry out for the callers' values)",
            "sub": f"out[0 .. {2 * n}) = a - b (a >= b)",
            "subm": f"out[0 .. {2 * n}) = a - b, or a - b + m 2^{64 * n} when a < b"}[op]
    size = n if op == "add" else 2 * n
    clob = "".join(f'"{r[2:]}", ' for r in (["%%rax", "%%rcx"] + (mreg[1:] if op == "subm" else [])))
    return f"""/* {what}; out may alias a or b. */
static inline void {name}(uint64_t out[{size}], const uint64_t a[{size}], const uint64_t b[{size}])
{{
    __asm__ volatile(
{body}
        :
        : [a] "r"(a), [b] "r"(b), [out] "r"(out)
        : {clob}"cc", "memory");
}}
"""


def func(n, name):
    body = "\n".join(gen(n))
    regs = ", ".join('"%s"' % r for r in ACC[: n + 1])
    extra = ', "rcx"' if n >= 6 else ""
    return f"""/* out = a b R^-1 mod {FIELDS[n][0]}; a, b reduced; out may alias a or b. */
static inline void {name}(uint64_t out[{n}], const uint64_t a[{n}], const uint64_t b[{n}])
{{
    const uint64_t *pa = a, *pb = b;
    __asm__ volatile(
{body}
        : [a] "+&r"(pa), [b] "+&r"(pb)
        : [out] "r"(out)
        : "rax", "rbx", "rdx"{extra}, {regs}, "cc", "memory");
}}
"""


def addsub(n, op):
    """Modular add or sub of reduced inputs.  add: t = a + b (no carry out,
    m < 2^(64n-1)), s = t - m, keep s unless that borrows.  sub: t = a - b;
    on a borrow add m back (cmov of m or 0 limb by limb; mov and cmov leave
    the flags alone, so the borrow survives until the adds)."""
    sym = FIELDS[n][0]
    t = [f"%[t{j}]" for j in range(n)]
    s = [f"%[s{j}]" for j in range(n - 2)] + ["%[a]", "%[b]"]
    L, e = emitter()
    for j in range(n):
        e(f"movq {8 * j}(%[a]), {t[j]}")
    first = "addq" if op == "add" else "subq"
    cont = "adcq" if op == "add" else "sbbq"
    for j in range(n):
        e(f"{first if j == 0 else cont} {8 * j}(%[b]), {t[j]}")
    if op == "add":
        cond_sub(e, n, t, s)
    else:
        for j in range(n):
            e(f"movq $0, {s[j]}")
        for j in range(n):
            e(f"cmovcq {mod_ref(n, j)}, {s[j]}")
        for j in range(n):
            e(f"{'addq' if j == 0 else 'adcq'} {s[j]}, {t[j]}")
    body = "\n".join(L)
    decl_t = ", ".join(f"t{j}" for j in range(n))
    decl_s = ", ".join(f"s{j}" for j in range(n - 2))
    outs = ", ".join([f'[t{j}] "=&r"(t{j})' for j in range(n)] +
                     [f'[s{j}] "=&r"(s{j})' for j in range(n - 2)] +
                     ['[a] "+&r"(pa)', '[b] "+&r"(pb)'])
    stores = " ".join(f"out[{j}] = t{j};" for j in range(n))
    what = "a + b" if op == "add" else "a - b"
    return f"""/* out = {what} mod {sym}; a, b reduced; out may alias a or b. */
static inline void gs_mod_{op}{n}_asm(uint64_t out[{n}], const uint64_t a[{n}], const uint64_t b[{n}])
{{
    uint64_t {decl_t}, {decl_s};
    const uint64_t *pa = a, *pb = b;
    __asm__(
{body}
        : {outs}
        :
        : "cc", "memory");
    {stores}
}}
"""


def main():
    s = "/* Generated by prover/field/gen/mont_asm.py; do not edit. */\n"
    s += "#ifndef GS_FIELD_MONT_ASM_H\n#define GS_FIELD_MONT_ASM_H\n\n"
    s += "#include <stdint.h>\n\n"
    s += "#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__) && !defined(GS_NO_ASM)\n"
    s += "#define GS_HAVE_MONT_ASM 1\n\n"
    s += "/* The moduli, defined in fp.c and fr.c; hidden, so the RIP-relative\n"
    s += " * references below also link into position-independent code. */\n"
    s += '__attribute__((visibility("hidden"))) extern const uint64_t gs_fp_modulus_asm[6];\n'
    s += '__attribute__((visibility("hidden"))) extern const uint64_t gs_fr_modulus_asm[4];\n\n'
    s += func(6, "gs_mont_mul6_asm") + "\n"
    s += func(4, "gs_mont_mul4_asm") + "\n"
    s += func_wide(6, "gs_mul6_wide_asm") + "\n"
    s += func_redc(6, "gs_redc6_asm") + "\n"
    s += func_wide_addsub(6, "add", "gs_add6_nored_asm") + "\n"
    s += func_wide_addsub(6, "addw", "gs_add12_asm") + "\n"
    s += func_wide_addsub(6, "sub", "gs_sub12_asm") + "\n"
    s += func_wide_addsub(6, "subm", "gs_sub12_modp_asm") + "\n"
    for n in (6, 4):
        s += addsub(n, "add") + "\n" + addsub(n, "sub") + "\n"
    s += "#endif\n\n#endif\n"
    print(s, end="")


if __name__ == "__main__":
    main()
