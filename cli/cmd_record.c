/* gapscope record: see scenarios/cli_run.c for the options. */
#include "../scenarios/cli_run.h"
#include "cli.h"

static int record_main(int argc, char **argv) { return gs_scn_cmd_run(argc, argv, "record"); }

GS_CLI_COMMAND(record, "record", "write the arrivals a run processed as a trace", record_main)
