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


def gen(n):
    sym, n0 = FIELDS[n]
    acc = ["%%" + r for r in ACC[: n + 1]]
    lo, hi = "%%rax", "%%rbx"
    a, b, out = "%[a]", "%[b]", "%[out]"
    L = []

    def e(s):
        L.append('        "%s\\n\\t"' % s)

    def m(j):
        return f"{sym}+{8 * j}(%%rip)"

    for r in acc:
        e(f"xorl {r}d, {r}d")
    t = list(acc)  # t[0..n], rotating
    for i in range(n):
        # t += a * b[i]
        e(f"movq {8 * i}({b}), %%rdx")
        e("xorl %%eax, %%eax")  # clears CF and OF
        for j in range(n):
            e(f"mulxq {8 * j}({a}), {lo}, {hi}")
            e(f"adcxq {lo}, {t[j]}")
            e(f"adoxq {hi}, {t[j + 1]}")
        e(f"adcq $0, {t[n]}")
        # t += q * m with q = t0 * n0 mod 2^64, then t >>= 64
        e(f"movabsq $0x{n0:016x}, %%rdx")
        e(f"imulq {t[0]}, %%rdx")
        e("xorl %%eax, %%eax")
        for j in range(n):
            e(f"mulxq {m(j)}, {lo}, {hi}")
            e(f"adcxq {lo}, {t[j]}")
            e(f"adoxq {hi}, {t[j + 1]}")
        e(f"adcq $0, {t[n]}")
        t = t[1:] + t[:1]  # t[0] is now 0 and becomes the top limb
    # s = t - m in the free registers, keep t if that borrows.
    s = ["%%rax", "%%rbx", "%%rdx", a, b, "%%rcx"][:n]
    for j in range(n):
        e(f"movq {t[j]}, {s[j]}")
    for j in range(n):
        e(f"{'subq' if j == 0 else 'sbbq'} {m(j)}, {s[j]}")
    for j in range(n):
        e(f"cmovncq {s[j]}, {t[j]}")
    for j in range(n):
        e(f"movq {t[j]}, {8 * j}({out})")
    return L


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
    L = []

    def e(x):
        L.append('        "%s\\n\\t"' % x)

    for j in range(n):
        e(f"movq {8 * j}(%[a]), {t[j]}")
    first = "addq" if op == "add" else "subq"
    cont = "adcq" if op == "add" else "sbbq"
    for j in range(n):
        e(f"{first if j == 0 else cont} {8 * j}(%[b]), {t[j]}")
    if op == "add":
        for j in range(n):
            e(f"movq {t[j]}, {s[j]}")
        for j in range(n):
            e(f"{'subq' if j == 0 else 'sbbq'} {sym}+{8 * j}(%%rip), {s[j]}")
        for j in range(n):
            e(f"cmovncq {s[j]}, {t[j]}")
    else:
        for j in range(n):
            e(f"movq $0, {s[j]}")
        for j in range(n):
            e(f"cmovcq {sym}+{8 * j}(%%rip), {s[j]}")
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
    for n in (6, 4):
        s += addsub(n, "add") + "\n" + addsub(n, "sub") + "\n"
    s += "#endif\n\n#endif\n"
    print(s, end="")


if __name__ == "__main__":
    main()
