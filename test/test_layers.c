/*
 * The house's rule, checked: every #include runs down the layer list.
 *
 * The Makefile's LAYERS, dir_<layer> and deps_<layer> lines are the
 * architecture written down (DESIGN.md "Layout").  This test reads them and
 * every quoted #include of every source file under a layer's folder, and
 * fails on an include of a file of another layer that the includer's
 * deps_ line does not name (an include running up the list, or sideways),
 * on a deps_ line naming a layer that comes later in LAYERS (a loop), and
 * on a source file that belongs to no layer but includes one.  Tests
 * (test_*) may also include test/ and the layers of their tdeps_ line:
 * a test of an importer checks the analysis of what it imported.
 *
 * It runs from the source root (where `make test` runs the tests), or from
 * $GS_SRC_ROOT.  A second test builds a three-layer tree in a scratch
 * directory with one upward include and checks that the same code finds it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"

/* Paths and Makefile words are bounded by the buffers below; a longer one
 * is cut, which at worst names a path short in a message. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAXL 48
#define MAXV 64

typedef struct {
    char name[32];
    char dir[128];
    int deps[MAXL], n_deps;   /* indices into the layer table */
    int tdeps[MAXL], n_tdeps;
} layer;

typedef struct {
    layer l[MAXL];
    int n;
    char vars[MAXV][2][512]; /* NAME := value, for $(NAME) in deps lines */
    int n_vars;
    int n_files, n_includes;
    int n_bad;
    char first_bad[512];
} house;

static void bad(house *h, const char *fmt, const char *a, const char *b, const char *c)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b, c);
    if (h->n_bad++ == 0)
        snprintf(h->first_bad, sizeof h->first_bad, "%s", msg);
    if (h->n_bad <= 20)
        fprintf(stderr, "  layers: %s\n", msg);
}

static int layer_index(const house *h, const char *name)
{
    for (int i = 0; i < h->n; i++)
        if (strcmp(h->l[i].name, name) == 0)
            return i;
    return -1;
}

static const char *var_value(const house *h, const char *name)
{
    for (int i = 0; i < h->n_vars; i++)
        if (strcmp(h->vars[i][0], name) == 0)
            return h->vars[i][1];
    return NULL;
}

/* Splits a value into words, expanding $(NAME) from the variables read. */
static int words(const house *h, const char *v, char out[][32], int max, int depth)
{
    int n = 0;
    while (*v && n < max) {
        while (isspace((unsigned char)*v))
            v++;
        if (!*v)
            break;
        const char *s = v;
        while (*v && !isspace((unsigned char)*v))
            v++;
        char w[128];
        snprintf(w, sizeof w, "%.*s", (int)(v - s), s);
        size_t wl = strlen(w);
        if (wl > 3 && w[0] == '$' && w[1] == '(' && w[wl - 1] == ')' && depth < 4) {
            w[wl - 1] = 0;
            const char *x = var_value(h, w + 2);
            if (x)
                n += words(h, x, out + n, max - n, depth + 1);
            continue;
        }
        snprintf(out[n++], 32, "%s", w);
    }
    return n;
}

/* Reads the Makefile's layer lines (continuations joined). */
static int read_makefile(house *h, const char *root)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/Makefile", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096], joined[8192];
    static char deps[MAXL * 3][2][512];
    int n_deplines = 0;
    joined[0] = 0;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        int cont = n && line[n - 1] == '\\';
        if (cont)
            line[--n] = 0;
        strncat(joined, line, sizeof joined - strlen(joined) - 1);
        if (cont)
            continue;
        char name[128], val[4096];
        const char *eq = strstr(joined, ":=");
        if (eq && joined[0] != '\t' && joined[0] != '#' && eq - joined < (long)sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - joined), joined);
            for (char *e = name + strlen(name); e > name && isspace((unsigned char)e[-1]);)
                *--e = 0;
            snprintf(val, sizeof val, "%s", eq + 2);
            if (strcmp(name, "LAYERS") == 0) {
                char w[MAXL][32];
                int k = words(h, val, w, MAXL, 0);
                for (int i = 0; i < k; i++)
                    snprintf(h->l[h->n++].name, 32, "%s", w[i]);
            } else if (!strncmp(name, "dir_", 4) || !strncmp(name, "deps_", 5) ||
                       !strncmp(name, "tdeps_", 6)) {
                if (n_deplines < MAXL * 3) {
                    snprintf(deps[n_deplines][0], 512, "%s", name);
                    snprintf(deps[n_deplines][1], 512, "%s", val);
                    n_deplines++;
                }
            } else if (h->n_vars < MAXV && strchr(name, ' ') == NULL && name[0]) {
                snprintf(h->vars[h->n_vars][0], 512, "%s", name);
                snprintf(h->vars[h->n_vars][1], 512, "%s", val);
                h->n_vars++;
            }
        }
        joined[0] = 0;
    }
    fclose(f);
    for (int i = 0; i < n_deplines; i++) {
        const char *nm = deps[i][0];
        int kind = nm[0] == 'd' && nm[2] == 'r' ? 0 : nm[0] == 'd' ? 1 : 2;
        int li = layer_index(h, strchr(nm, '_') + 1);
        if (li < 0)
            continue;
        layer *L = &h->l[li];
        char w[MAXL][32];
        int k = words(h, deps[i][1], w, MAXL, 0);
        if (kind == 0) {
            snprintf(L->dir, sizeof L->dir, "%s", k ? w[0] : "");
            continue;
        }
        for (int j = 0; j < k; j++) {
            int d = layer_index(h, w[j]);
            if (d < 0) {
                bad(h, "%s names '%s', which is not in LAYERS%s", nm, w[j], "");
                continue;
            }
            if (kind == 1) {
                L->deps[L->n_deps++] = d;
                if (d >= li)
                    bad(h, "%s names '%s', a layer at or after it in LAYERS (a loop)%s", nm, w[j], "");
            } else {
                L->tdeps[L->n_tdeps++] = d;
            }
        }
    }
    return h->n > 0 ? 0 : -1;
}

/* The layer of a path relative to the root: the longest dir_ prefix. */
static int layer_of(const house *h, const char *rel)
{
    int best = -1;
    size_t bl = 0;
    for (int i = 0; i < h->n; i++) {
        size_t dl = strlen(h->l[i].dir);
        if (dl && dl > bl && strncmp(rel, h->l[i].dir, dl) == 0 && rel[dl] == '/') {
            best = i;
            bl = dl;
        }
    }
    return best;
}

static int has(const int *a, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (a[i] == x)
            return 1;
    return 0;
}

/* Normalizes a/b/../c into a/c (no leading "/"); returns -1 above the root. */
static int normalize(char *p)
{
    char *parts[256];
    int n = 0;
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", p);
    for (char *s = strtok(tmp, "/"); s; s = strtok(NULL, "/")) {
        if (strcmp(s, ".") == 0)
            continue;
        if (strcmp(s, "..") == 0) {
            if (n == 0)
                return -1;
            n--;
            continue;
        }
        if (n < 256)
            parts[n++] = s;
    }
    char out[PATH_MAX];
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            strncat(out, "/", sizeof out - strlen(out) - 1);
        strncat(out, parts[i], sizeof out - strlen(out) - 1);
    }
    snprintf(p, PATH_MAX, "%s", out);
    return 0;
}

static int is_source(const char *name)
{
    const char *d = strrchr(name, '.');
    return d && (!strcmp(d, ".c") || !strcmp(d, ".h") || !strcmp(d, ".cu") || !strcmp(d, ".cuh") ||
                 !strcmp(d, ".inc"));
}

static void check_file(house *h, const char *root, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    h->n_files++;
    int me = layer_of(h, rel);
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    /* test_*.c and a layer's test helpers (engine_test.h) are tests. */
    int is_test = strncmp(base, "test_", 5) == 0 || strstr(base, "_test.") != NULL;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", (int)(base - rel), rel);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s != '#')
            continue;
        s++;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, "include", 7) != 0)
            continue;
        s += 7;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s != '"')
            continue;
        const char *e = strchr(s + 1, '"');
        if (!e)
            continue;
        char tgt[PATH_MAX];
        snprintf(tgt, sizeof tgt, "%s%.*s", dir, (int)(e - s - 1), s + 1);
        if (normalize(tgt) != 0)
            continue;
        char tpath[PATH_MAX];
        struct stat sb;
        snprintf(tpath, sizeof tpath, "%s/%s", root, tgt);
        if (stat(tpath, &sb) != 0)
            continue; /* a system or generated header: not ours to place */
        h->n_includes++;
        int them = layer_of(h, tgt);
        if (them == me)
            continue;
        if (me < 0) {
            continue; /* bench/, fuzz/, test/: above every layer */
        }
        if (them < 0) {
            if (is_test && strncmp(tgt, "test/", 5) == 0)
                continue;
            bad(h, "%s includes %s, which belongs to no layer%s", rel, tgt, "");
            continue;
        }
        const layer *L = &h->l[me];
        if (has(L->deps, L->n_deps, them))
            continue;
        if (is_test && has(L->tdeps, L->n_tdeps, them))
            continue;
        /* A test may also use what its test-only layers depend on. */
        int ok = 0;
        for (int i = 0; is_test && !ok && i < L->n_tdeps; i++) {
            const layer *T = &h->l[L->tdeps[i]];
            ok = has(T->deps, T->n_deps, them);
        }
        if (ok)
            continue;
        bad(h, "%s includes %s: layer '%s' may not include it", rel, tgt, L->name);
    }
    fclose(f);
}

static void walk(house *h, const char *root, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char sub[PATH_MAX];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat sb;
        if (lstat(full, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            if (!strcmp(de->d_name, "node_modules") || !strncmp(de->d_name, "build", 5) ||
                !strcmp(de->d_name, "traces") || !strcmp(de->d_name, "runs"))
                continue;
            walk(h, root, sub);
        } else if (S_ISREG(sb.st_mode) && is_source(de->d_name)) {
            check_file(h, root, sub);
        }
    }
    closedir(d);
}

static int check_house(house *h, const char *root)
{
    memset(h, 0, sizeof *h);
    if (read_makefile(h, root) != 0)
        return -1;
    for (int i = 0; i < h->n; i++)
        if (!h->l[i].dir[0])
            bad(h, "layer '%s' has no dir_%s line%s", h->l[i].name, h->l[i].name, "");
    walk(h, root, "");
    return 0;
}

GS_TEST(layers_includes_run_down_the_list)
{
    const char *root = getenv("GS_SRC_ROOT") ? getenv("GS_SRC_ROOT") : ".";
    static house h;
    GS_REQUIRE(check_house(&h, root) == 0);
    GS_CHECK(h.n >= 10);
    GS_CHECK(h.n_files > 200);
    GS_CHECK(h.n_includes > 500);
    GS_CHECK_MSG(h.n_bad == 0, "%d include(s) against the layer list; first: %s", h.n_bad, h.first_bad);
    /* The brief's explicit rule: diag/ reads the timeline, never a source. */
    int diag = layer_index(&h, "diag");
    GS_REQUIRE(diag >= 0);
    for (int i = 0; i < h.l[diag].n_deps; i++) {
        const char *dn = h.l[h.l[diag].deps[i]].name;
        GS_CHECK_MSG(strcmp(dn, "common") == 0 || strcmp(dn, "timeline") == 0,
                     "diag depends on %s", dn);
    }
}

static void put(const char *dir, const char *rel, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *slash = strrchr(path, '/');
    *slash = 0;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    GS_CHECK(system(cmd) == 0);
    *slash = '/';
    GS_REQUIRE(gs_test_write_text(path, text));
}

GS_TEST(layers_checker_finds_an_upward_include)
{
    const char *d = gs_test_tmpdir();
    put(d, "Makefile",
        "LAYERS := base mid \\\n   top\n"
        "dir_base := base\ndir_mid := mid/x\ndir_top := top\n"
        "LOW := base\n"
        "deps_base :=\ndeps_mid := $(LOW)\ndeps_top := mid base\n");
    put(d, "base/b.h", "#include <stdio.h>\n");
    put(d, "mid/x/m.h", "#include \"../../base/b.h\"\n");
    put(d, "top/t.c", "#include \"../mid/x/m.h\"\n#include \"../base/b.h\"\n");
    static house h;
    GS_REQUIRE(check_house(&h, d) == 0);
    GS_CHECK_EQ_INT(h.n, 3);
    GS_CHECK_EQ_INT(h.n_bad, 0);
    GS_CHECK_EQ_INT(h.n_includes, 3);
    /* Now base reaches up into mid. */
    put(d, "base/b.c", "#include \"b.h\"\n# include \"../mid/x/m.h\"\n");
    GS_REQUIRE(check_house(&h, d) == 0);
    GS_CHECK_EQ_INT(h.n_bad, 1);
    GS_CHECK(strstr(h.first_bad, "base/b.c includes mid/x/m.h") != NULL);
    /* And a deps line that names a later layer is a loop. */
    put(d, "Makefile",
        "LAYERS := base mid top\ndir_base := base\ndir_mid := mid/x\ndir_top := top\n"
        "deps_base := top\ndeps_mid := base\ndeps_top := mid base\n");
    put(d, "base/b.c", "#include \"b.h\"\n");
    GS_REQUIRE(check_house(&h, d) == 0);
    GS_CHECK(h.n_bad >= 1);
    GS_CHECK(strstr(h.first_bad, "loop") != NULL);
}
