/* JSON writing (json.h): strings and numbers for every writer of gapscope. */
#include "json.h"

#include <math.h>

size_t gs_utf8_valid_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned c = p[0];
    if (c < 0x80)
        return c ? 1 : 0;
    int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
    if (n < 0)
        return 0;
    for (int i = 1; i <= n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
        return 0;
    if (n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
        return 0;
    return (size_t)n + 1;
}

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
            size_t n = gs_utf8_valid_len((const char *)p);
            if (n) {
                fwrite(p, 1, n, f);
                p += n;
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
