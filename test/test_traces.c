/*
 * Committed captures name no folder of the machine they were taken on
 * (traces/README.md, "Paths in captures"): every file under traces/, and
 * every file inside its .tgz / .tar.gz archives, is searched for the
 * README's pattern '/(work|root|home|tmp)/'.  Runs from the source root
 * (where `make test` runs the tests) or $GS_SRC_ROOT; needs find, tar and
 * grep (skipped without tar).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

GS_TEST(traces_hold_no_machine_paths)
{
    const char *root = getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : ".";
    if (system("command -v tar >/dev/null 2>&1 && command -v grep >/dev/null 2>&1") != 0) {
        gs_test_skip("tar or grep not installed");
        return;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && [ -d traces ] && find traces -type f | sort | while read -r f; do "
             "case \"$f\" in *.tgz|*.tar.gz) tar xzf \"$f\" -O 2>/dev/null ;; *) cat \"$f\" ;; esac "
             "| grep -qaE '/(work|root|home|tmp)/' && echo \"$f\"; done; echo end",
             root);
    FILE *p = popen(cmd, "r");
    GS_REQUIRE(p);
    char line[1024];
    int ended = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strcmp(line, "end"))
            ended = 1;
        else
            gs_test_fail(__FILE__, __LINE__, "%s names a machine folder (/work/, /root/, /home/ or /tmp/)",
                         line);
    }
    pclose(p);
    GS_CHECK_MSG(ended, "could not search %s/traces", root);
}
