/* gapscope model fit: see cli/cli_predict.c for the options. */
#include "cli_run.h"
#include "cli.h"

static int model_main(int argc, char **argv) { return gs_scn_cmd_model(argc, argv); }

GS_CLI_COMMAND(model, "model", "fit the machine model of a capture (model fit CAPTURE [-o model.json])", model_main)
