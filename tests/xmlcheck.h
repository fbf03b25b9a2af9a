/*
 * xmlcheck.h — a small well-formedness checker for the SVG toytrans writes (tests only).
 *
 * xml_well_formed accepts: an XML declaration, then elements properly nested under one
 * <svg> root, attribute values quoted and free of '<', and '&' only in the five
 * predefined entities or a decimal character reference. why (size bytes) says what is
 * wrong. Returns 1 when the document passes, 0 otherwise.
 */
#ifndef TOYTRANS_XMLCHECK_H
#define TOYTRANS_XMLCHECK_H

#include <stdio.h>
#include <string.h>

static inline int xml_well_formed(const char *doc, char *why, size_t size)
{
    enum { DEPTH = 32 };
    char stack[DEPTH][32];
    int depth = 0, roots = 0;
    const char *p = doc;
    if (strncmp(p, "<?xml ", 6) != 0)
        return snprintf(why, size, "no XML declaration"), 0;
    p = strstr(p, "?>");
    if (!p)
        return snprintf(why, size, "unterminated declaration"), 0;
    p += 2;
    while (*p) {
        if (*p == '&') {
            static const char *const ENTITIES[] = {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"};
            int ok = 0;
            for (int i = 0; i < 5; i++)
                ok |= strncmp(p, ENTITIES[i], strlen(ENTITIES[i])) == 0;
            /* A decimal character reference, such as &#39;. */
            if (p[1] == '#') {
                size_t digits = strspn(p + 2, "0123456789");
                ok |= digits > 0 && p[2 + digits] == ';';
            }
            if (!ok)
                return snprintf(why, size, "bare '&' at byte %td", p - doc), 0;
            p++;
            continue;
        }
        if (*p == '>')
            return snprintf(why, size, "bare '>' at byte %td", p - doc), 0;
        if (*p != '<') {
            if (depth == 0 && *p != '\n' && *p != ' ')
                return snprintf(why, size, "text outside the root at byte %td", p - doc), 0;
            p++;
            continue;
        }
        const int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-");
        if (n == 0 || n >= sizeof stack[0])
            return snprintf(why, size, "bad tag at byte %td", p - doc), 0;
        /* Walk the attributes: name="value" pairs up to '>' or '/>'. */
        const char *q = name + n;
        while (*q && *q != '>' && !(q[0] == '/' && q[1] == '>')) {
            if (*q == '"') {
                const char *end = strchr(q + 1, '"');
                if (!end)
                    return snprintf(why, size, "unterminated attribute at byte %td", q - doc), 0;
                if (memchr(q + 1, '<', (size_t)(end - q - 1)))
                    return snprintf(why, size, "'<' in an attribute at byte %td", q - doc), 0;
                q = end;
            } else if (*q == '<') {
                return snprintf(why, size, "'<' inside a tag at byte %td", q - doc), 0;
            }
            q++;
        }
        if (!*q)
            return snprintf(why, size, "unterminated tag at byte %td", p - doc), 0;
        const int empty = q[0] == '/';
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != n ||
                strncmp(stack[depth - 1], name, n) != 0)
                return snprintf(why, size, "</%.*s> does not close <%s> at byte %td", (int)n,
                                name, depth ? stack[depth - 1] : "", p - doc), 0;
            depth--;
        } else if (!empty) {
            if (depth == 0 && roots++ > 0)
                return snprintf(why, size, "a second root element at byte %td", p - doc), 0;
            if (depth == 0 && (n != 3 || strncmp(name, "svg", 3) != 0))
                return snprintf(why, size, "the root is not <svg>"), 0;
            if (depth == DEPTH)
                return snprintf(why, size, "nested too deeply"), 0;
            memcpy(stack[depth], name, n);
            stack[depth++][n] = '\0';
        } else if (depth == 0) {
            return snprintf(why, size, "an empty element outside the root"), 0;
        }
        p = q + (empty ? 2 : 1);
    }
    if (depth != 0)
        return snprintf(why, size, "<%s> is never closed", stack[depth - 1]), 0;
    if (roots != 1)
        return snprintf(why, size, "no root element"), 0;
    return 1;
}

#endif
