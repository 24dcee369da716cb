#include <stdio.h>

#include "../scenarios/run.h"
#include "cli.h"

static int version_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* The fingerprint every run records (scenarios/fingerprint.c). */
    gs_fingerprint fp;
    gs_fingerprint_get(&fp);
    printf("gapscope %s (git %s)\n", fp.version, fp.git_rev);
    printf("binary sha256: %s\n", fp.binary_sha256);
#ifdef GS_HAVE_CUDA
    printf("backends: cpu cuda\n");
#else
    printf("backends: cpu\n");
#endif
    return 0;
}

GS_CLI_COMMAND(version, "version", "print version and build backends", version_main)
