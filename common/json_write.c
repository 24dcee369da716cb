/* JSON writing (json.h): strings and numbers for every writer of gapscope. */
#include "json.h"

#include <math.h>

/* Writes s as a JSON string; invalid UTF-8 bytes become U+FFFD (RFC 8259). */
void gs_json_str(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', f);
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            p++;
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, f);
            p++;
        } else {
            int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
            int ok = n > 0 && c < 0xf5;
            for (int i = 1; ok && i <= n; i++)
                ok = (p[i] & 0xc0) == 0x80;
            if (ok && n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
                ok = 0;
            if (ok && n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
                ok = 0;
            if (ok) {
                fwrite(p, 1, (size_t)n + 1, f);
                p += n + 1;
            } else {
                fputs("\\ufffd", f);
                p++;
            }
        }
    }
    fputc('"', f);
}

void gs_json_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, "%.10g", v);
}
