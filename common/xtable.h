/*
 * X-macro tables, the way every vocabulary of gapscope is written once:
 * TABLE(X) lists rows X(ID, second column, ...), and the enum, its name
 * table and its lookups are spelled from it with the column macros below
 * instead of a #define GS_X / #undef GS_X pair at each use:
 *
 *     typedef enum { GS_H_CONV_TABLE(GS_XT_ID) GS_H_CONV_COUNT } gs_h_convention;
 *     static const char *const names[] = {GS_H_CONV_TABLE(GS_XT_COL2)};
 *
 * A row has at least two columns (three for GS_XT_COL3).  C and C++ (nvcc includes status.h).
 */
#ifndef GS_XTABLE_H
#define GS_XTABLE_H

#include <string.h>

/* The row's first column, as an enumerator and as a string literal. */
#define GS_XT_ID(id, ...) id,
#define GS_XT_IDSTR(id, ...) #id,
/* The row's second column (the name, in most tables), and its third (a
 * description, in some). */
#define GS_XT_COL2(id, ...) GS_XT_FIRST_(__VA_ARGS__, ~),
#define GS_XT_COL3(id, a, ...) GS_XT_FIRST_(__VA_ARGS__, ~),
#define GS_XT_FIRST_(x, ...) x

/* The index of name in names[0 .. n), or -1 (also for a NULL name). */
static inline int gs_xt_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* Defines the two lookups of a vocabulary T over its name table names[0 ..
 * count): const char *fn##_name(T v) (NULL out of range; `missing` with
 * GS_XT_DEFINE_NAMES_OR) and int fn##_from_name(T *out, const char *name)
 * (1 and *out set when name is in the table, else 0). */
#define GS_XT_DEFINE_NAMES(T, fn, names, count) GS_XT_DEFINE_NAMES_OR(T, fn, names, count, NULL)
#define GS_XT_DEFINE_NAMES_OR(T, fn, names, count, missing)              \
    const char *fn##_name(T v)                                            \
    {                                                                     \
        return (unsigned)v < (unsigned)(count) ? names[v] : (missing);    \
    }                                                                     \
    int fn##_from_name(T *out, const char *name)                          \
    {                                                                     \
        int i_ = gs_xt_index(names, count, name);                         \
        if (i_ >= 0)                                                      \
            *out = (T)i_;                                                 \
        return i_ >= 0;                                                   \
    }

#endif
