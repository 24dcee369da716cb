/* The span vocabulary's name table (vocab.h). */
#include "vocab.h"

#include <string.h>

static const char *const names[] = {
#define GS_X(e, n) n,
    GS_VOCAB_TABLE(GS_X)
#undef GS_X
};
_Static_assert(sizeof names / sizeof names[0] == GS_V_COUNT, "vocab table out of step");

const char *gs_vocab_name(gs_vocab v)
{
    return (unsigned)v < GS_V_COUNT ? names[v] : NULL;
}

int gs_vocab_from_name(gs_vocab *out, const char *name)
{
    for (int i = 0; name && i < GS_V_COUNT; i++)
        if (!strcmp(names[i], name)) {
            *out = (gs_vocab)i;
            return 1;
        }
    return 0;
}

int gs_vocab_is(const char *name, gs_vocab v)
{
    return name && (unsigned)v < GS_V_COUNT && !strcmp(name, names[v]);
}
