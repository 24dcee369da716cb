#include <stdio.h>

#include "cli.h"

#ifndef GS_GIT_REV
#define GS_GIT_REV "unknown"
#endif

static int version_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("gapscope 0.1.0 (git %s)\n", GS_GIT_REV);
#ifdef GS_HAVE_CUDA
    printf("backends: cpu cuda\n");
#else
    printf("backends: cpu\n");
#endif
    return 0;
}

GS_CLI_COMMAND(version, "version", "print version and build backends", version_main)
