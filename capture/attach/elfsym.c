/*
 * Function names of stack frames that dladdr could not name: an
 * executable's or a library's functions that are not exported (a Rust or C
 * program's own code, static functions) are in the file's .symtab, which
 * the dynamic linker never loads.  The library writes such a frame as
 * "/path/of/object+0xOFFSET" (offset from the object's load base); this
 * reads that file's symbol table (.symtab, else .dynsym) once, through a
 * read-only mapping, and names the function whose [value, value + size)
 * holds the address.  Every field read is bounds-checked: a file that is
 * not ELF, is truncated or has changed since the capture gives no name,
 * never a crash.  Not thread safe.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/grow.h"
#include "wake_int.h"

typedef struct fsym {
    uint64_t value, size;
    uint32_t name;             /* offset into the string table */
} fsym;

typedef struct object {
    char *path;
    const uint8_t *map;
    size_t len;
    const char *strtab;
    size_t strtab_len;
    fsym *syms;
    size_t n;
    uint64_t base;             /* vaddr of the first PT_LOAD, page-aligned */
} object;

struct gs_elfsym {
    object *v;
    size_t n, cap;
};

gs_elfsym *gs_elfsym_create(void)
{
    return calloc(1, sizeof(gs_elfsym));
}

void gs_elfsym_destroy(gs_elfsym *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++) {
        free(e->v[i].path);
        free(e->v[i].syms);
        if (e->v[i].map)
            munmap((void *)e->v[i].map, e->v[i].len);
    }
    free(e->v);
    free(e);
}

static int in(const object *o, uint64_t off, uint64_t len)
{
    return off <= o->len && len <= o->len - off;
}

static int cmp_fsym(const void *pa, const void *pb)
{
    const fsym *a = pa, *b = pb;
    return (a->value > b->value) - (a->value < b->value);
}

/* Reads the symbol table of section si (its string table at sh_link). */
static int load_symtab(object *o, const Elf64_Shdr *sh, uint16_t shnum, uint16_t si)
{
    const Elf64_Shdr *s = &sh[si];
    if (s->sh_link >= shnum || s->sh_entsize != sizeof(Elf64_Sym) || !in(o, s->sh_offset, s->sh_size))
        return 0;
    const Elf64_Shdr *st = &sh[s->sh_link];
    if (!in(o, st->sh_offset, st->sh_size))
        return 0;
    o->strtab = (const char *)o->map + st->sh_offset;
    o->strtab_len = st->sh_size;
    size_t count = s->sh_size / sizeof(Elf64_Sym);
    o->syms = malloc((count + 1) * sizeof *o->syms);
    if (!o->syms)
        return 0;
    const Elf64_Sym *sym = (const Elf64_Sym *)(o->map + s->sh_offset);
    for (size_t i = 0; i < count; i++)
        if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_value && sym[i].st_size &&
            sym[i].st_name < o->strtab_len)
            o->syms[o->n++] = (fsym){sym[i].st_value, sym[i].st_size, sym[i].st_name};
    qsort(o->syms, o->n, sizeof *o->syms, cmp_fsym);
    return o->n > 0;
}

static void load(object *o)
{
    /* Non-blocking, regular files only: a raw file may name a FIFO or a
     * device, which must neither hang the conversion nor be mapped. */
    int fd = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat stt;
    if (fd < 0)
        return;
    if (fstat(fd, &stt) != 0 || !S_ISREG(stt.st_mode) || stt.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    void *m = mmap(NULL, (size_t)stt.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return;
    o->map = m;
    o->len = (size_t)stt.st_size;
    const Elf64_Ehdr *eh = m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_phentsize != sizeof(Elf64_Phdr) ||
        eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in(o, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) ||
        !in(o, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(o->map + eh->e_phoff);
    for (uint16_t i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            o->base = ph[i].p_vaddr & ~(uint64_t)0xfff;
            break;
        }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(o->map + eh->e_shoff);
    for (int want = SHT_SYMTAB;; want = SHT_DYNSYM) {
        for (uint16_t i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type == (uint32_t)want && load_symtab(o, sh, eh->e_shnum, i))
                return;
        if (want == SHT_DYNSYM)
            return;
    }
}

const char *gs_elfsym_lookup(gs_elfsym *e, const char *path, uint64_t off)
{
    object *o = NULL;
    for (size_t i = 0; i < e->n && !o; i++)
        if (!strcmp(e->v[i].path, path))
            o = &e->v[i];
    if (!o) {
        if (!gs_grow(&e->v, &e->cap, e->n, sizeof *e->v, 8))
            return NULL;
        o = &e->v[e->n];
        memset(o, 0, sizeof *o);
        if (!(o->path = strdup(path)))
            return NULL;
        e->n++;
        load(o);
    }
    uint64_t a = o->base + off;
    size_t lo = 0, hi = o->n;   /* first symbol above a */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->syms[mid].value <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k > 0 && lo - k < 4; k--) {
        const fsym *f = &o->syms[k - 1];
        if (a - f->value < f->size &&
            memchr(o->strtab + f->name, '\0', o->strtab_len - f->name))
            return o->strtab + f->name;
    }
    return NULL;
}
