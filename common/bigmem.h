/*
 * Large buffers on transparent huge pages.  In a VM a first touch of a
 * 4 KiB page can cost 7-25 us (measured on the project's 2-core EPYC VM:
 * 21,400 page faults and 0.15 s of system time in one `gapscope prove` at
 * 2^16, most of them the decoded key's point arrays); a 2 MiB huge page
 * takes one fault for 512 such pages and fewer TLB misses after.
 *
 * gs_big_alloc(bytes): like malloc; from GS_BIG_MIN (2 MiB) up the block is
 * 2 MiB-aligned and its whole 2 MiB pages advised MADV_HUGEPAGE, which the
 * kernel honours when /sys/kernel/mm/transparent_hugepage/enabled is
 * "madvise" or "always" (on "never" it is plain memory); the tail below
 * 2 MiB stays on 4 KiB pages, so resident memory is what is touched, as
 * with malloc.  GS_HUGEPAGES=0 in the environment turns the advice off
 * (plain malloc).  Release with free().
 */
#ifndef GS_BIGMEM_H
#define GS_BIGMEM_H

#include <stddef.h>

/* One huge page and up: a block of 2-3 MiB gets one huge page and a 4 KiB
 * tail.  (It was 3 MiB while a block of that size at 2^14 raised the peak
 * RSS; no block of the 2^14 prove is in that range now, and at 2^16 the
 * witness, w, its Montgomery copy and a/b/c are 2 MiB each: 2,500 faults,
 * bench/RESULTS.md.) */
#define GS_BIG_MIN ((size_t)2 << 20)
/* The transparent huge page's size on x86-64 (what blocks align to and
 * advice covers). */
#define GS_HUGE_PAGE ((size_t)2 << 20)

void *gs_big_alloc(size_t bytes);
/* The same, zeroed, n * size bytes (NULL when that overflows); calloc below
 * GS_BIG_MIN. */
void *gs_big_calloc(size_t n, size_t size);

/* Scratch that is written all over (MSM buckets): from 1 MiB up, whole
 * huge pages, rounded up (at most 1 MiB of a 2 MiB page unused, against
 * ~256 faults of 4 KiB pages per MiB); malloc below.  Release with free(). */
void *gs_big_alloc_dense(size_t bytes);

/* Advises the whole 2 MiB pages inside [p, p + bytes) MADV_HUGEPAGE when
 * bytes >= GS_BIG_ADVISE_MIN (advice only, p from any allocator: pages
 * already touched stay as they are, later faults take huge pages).  For
 * memory that grows by realloc or comes from malloc; GS_HUGEPAGES=0: nothing. */
#define GS_BIG_ADVISE_MIN ((size_t)8 << 20)
/* 0 when GS_HUGEPAGES=0 turned the advice off. */
int gs_big_enabled(void);
void gs_big_advise(void *p, size_t bytes);

/* A block of its own pages (mmap), 2 MiB-aligned and advised like
 * gs_big_alloc from GS_BIG_MIN up, zeroed, outside malloc's heap: for
 * owners that know each block's size.  Freeing one returns its memory at
 * once, where malloc would keep a freed large block in its heap (a freed
 * mmapped block raises glibc's mmap threshold) and a later, larger phase
 * of the process would not reuse it.  NULL on failure.  Release with
 * gs_big_unmap(p, bytes), bytes as allocated; p NULL: nothing. */
void *gs_big_map(size_t bytes);
void gs_big_unmap(void *p, size_t bytes);

struct gs_pool;
/* Touches every page of [p, p + bytes) on the pool (one item per advised
 * huge page, one per 256 KiB of the rest), keeping the contents: the first
 * touches of a fresh block fault in parallel, each thread on its own pages,
 * instead of in whichever decoder thread writes first while the other waits
 * on the same page (in this VM a cold huge page costs ~2.5 ms).  p NULL or
 * bytes 0: nothing.  (bigmem_prefault.c.) */
void gs_big_prefault(void *p, size_t bytes, struct gs_pool *pool);

#endif
