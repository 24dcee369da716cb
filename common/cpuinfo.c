/* /proc/cpuinfo fields (cpuinfo.h). */
#include <stdio.h>
#include <string.h>

#include "cpuinfo.h"

int gs_cpuinfo_field(char *out, size_t n, const char *key)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[512];
    size_t kl = strlen(key);
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, key, kl) || !c)
            continue;
        c += 1 + strspn(c + 1, " \t");
        c[strcspn(c, "\n")] = '\0';
        snprintf(out, n, "%s", c);
        found = 1;
    }
    fclose(f);
    return found;
}
