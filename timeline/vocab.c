/* The span vocabulary's name table (vocab.h). */
#include "vocab.h"

#include <string.h>

static const char *const names[] = {GS_VOCAB_TABLE(GS_XT_COL2)};
_Static_assert(sizeof names / sizeof names[0] == GS_V_COUNT, "vocab table out of step");

GS_XT_DEFINE_NAMES(gs_vocab, gs_vocab, names, GS_V_COUNT)

int gs_vocab_is(const char *name, gs_vocab v)
{
    return name && (unsigned)v < GS_V_COUNT && !strcmp(name, names[v]);
}
