/* gapscope predict: see cli/cli_predict.c for the options. */
#include "cli_run.h"
#include "cli.h"

static int predict_main(int argc, char **argv) { return gs_scn_cmd_predict(argc, argv); }

GS_CLI_COMMAND(predict, "predict", "run a capture's scenario (changed by --set) on its fitted model", predict_main)
