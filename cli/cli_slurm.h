/*
 * The Slurm options of `sweep --slurm` and `gate --slurm`, one table for
 * both (cli_slurm.c), embedded in each command's context with
 * GS_CLI_GROUP; gs_cli_slurm_apply turns them into the driver's options
 * (scenarios/slurm.h).
 */
#ifndef GS_CLI_SLURM_H
#define GS_CLI_SLURM_H

#include "../scenarios/slurm.h"
#include "cli_opts.h"

typedef struct gs_cli_slurm {
    int on;                       /* --slurm */
    const char *partition, *time, *gapscope;
    uint64_t gpus, array_max, poll;
    gs_cli_list sbatch;
    int dry_run, resume;
} gs_cli_slurm;

extern const gs_cli_opt gs_cli_slurm_opts[];

/* o from c (o->stop and o->quiet are left to the caller).  The strings
 * stay c's.  Returns 0 and says why on stderr when an option was given
 * without --slurm. */
int gs_cli_slurm_apply(gs_slurm_opts *o, const gs_cli_slurm *c, const char *cmd);

#endif
