/*
 * libgsaudit.so: the rtld-audit module `gapscope attach` names in LD_AUDIT,
 * so that malloc_trim is seen however the program reaches it.
 *
 * LD_PRELOAD interposition (inject_host.c) catches calls linked against
 * malloc_trim, but not a binding made by dlsym(libc, "malloc_trim") —
 * Python's ctypes.CDLL("libc.so.6").malloc_trim, Rust crates that bind libc
 * at run time — since dlsym on a handle searches that object alone.  The
 * dynamic linker tells an audit module of every symbol binding
 * (la_symbind64: lazy and bind-now PLT bindings, and dlsym, glibc >= 2.35),
 * and uses the address the module returns: for malloc_trim defined by any
 * object but libgsattach.so (whose own interposer already records), this
 * module returns trim_wrapper, which times the real function and writes
 * the T (and A: its caller, one frame) records through its own writer.
 *
 * The module lives in its own link namespace with its own copy of libc and
 * of the writer (inject_out.c, audit mode): its records go to
 * p<pid>-<t0>-audit.rec, opened at the first one (a process that never
 * trims gets no file), flushed at once (trims are rare, and a program that
 * ends with _exit must not lose them), and reopened in a forked child.
 * Nothing else is bound differently: every other symbol gets its own
 * address back.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "inject.h"

static uintptr_t g_real_trim;    /* the malloc_trim the program would have called */
static uintptr_t g_preload_map;  /* libgsattach.so's link map (its cookie), 0 if absent */

int gsi_is_audit_copy(void)
{
    return 1;
}

static int trim_wrapper(size_t pad)
{
    int (*f)(size_t) = (int (*)(size_t))__atomic_load_n(&g_real_trim, __ATOMIC_ACQUIRE);
    uint64_t t0 = gsi_now();
    int r = f(pad);
    gsi_emit_trim(t0, r, __builtin_return_address(0));
    gsi_flush();
    return r;
}

GSI_EXPORT unsigned la_version(unsigned version)
{
    gsi_init_audit();
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

GSI_EXPORT unsigned la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    if (lmid != LM_ID_BASE)
        return 0;   /* this module's own namespace */
    const char *b = map->l_name ? strrchr(map->l_name, '/') : NULL;
    if (b && !strcmp(b + 1, "libgsattach.so"))
        g_preload_map = *cookie;
    return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

GSI_EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned ndx, uintptr_t *refcook,
                                  uintptr_t *defcook, unsigned *flags, const char *symname)
{
    (void)ndx;
    (void)flags;
    /* libgsattach.so's own wrapper, and its own lookup of the real
     * function (dlsym RTLD_NEXT), are left alone: one record per call. */
    if (symname[0] != 'm' || strcmp(symname, "malloc_trim") || !gsi_active() ||
        (g_preload_map && (*defcook == g_preload_map || *refcook == g_preload_map)) ||
        !sym->st_value)
        return sym->st_value;
    __atomic_store_n(&g_real_trim, (uintptr_t)sym->st_value, __ATOMIC_RELEASE);
    return (uintptr_t)trim_wrapper;
}
