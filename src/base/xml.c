/*
 * xml.c — the escaper of xml.h.
 *
 * utf8proc decodes the text, so a multi-byte character is copied whole and an invalid
 * sequence is recognised as such rather than passed through to break the document.
 */
#include "base/xml.h"

#include <utf8proc.h>

void xml_put_text(FILE *out, const char *s, size_t len, int apos)
{
    size_t i = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(len - i), &cp);
        if (n < 1) {
            fputc('?', out); /* an invalid byte: skip it alone and resynchronise */
            i++;
            continue;
        }
        if (cp == '<')
            fputs("&lt;", out);
        else if (cp == '>')
            fputs("&gt;", out);
        else if (cp == '&')
            fputs("&amp;", out);
        else if (cp == '"')
            fputs("&quot;", out);
        else if (cp == '\'')
            fputs(apos == XML_APOS_NUMERIC ? "&#39;" : "&apos;", out);
        else if (cp == '\t' || cp == '\n' || cp == '\r')
            fputc(' ', out);
        else if (cp < 0x20 || cp == 0x7f || cp == 0xfffe || cp == 0xffff)
            fputc('?', out); /* not allowed in XML 1.0, or invisible */
        else
            fwrite(s + i, 1, (size_t)n, out);
        i += (size_t)n;
    }
}
