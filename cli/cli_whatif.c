#include "cli_run.h"
int gs_cli_whatif(int argc, char **argv) { (void)argc; (void)argv; return 2; }
