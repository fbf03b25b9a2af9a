/*
 * xml.h — text written as XML or HTML character data or attribute values: the one
 * escaper behind the SVG pictures (plot, inspect) and inspect's HTML page.
 *
 * The output is always well-formed XML 1.0 and safe inside a quoted attribute of
 * either language: the five markup characters become entities; tab, newline and
 * carriage return become spaces (a label is one line); the other control characters,
 * U+FFFE, U+FFFF and every byte that is not part of valid UTF-8 become '?', one each
 * (an invalid byte is skipped alone, so the text resynchronises at the next character).
 */
#ifndef TOYTRANS_XML_H
#define TOYTRANS_XML_H

#include <stddef.h>
#include <stdio.h>

/* How xml_put_text writes the apostrophe; the other characters are the same either way. */
enum {
    XML_APOS_ENTITY = 0,  /* &apos;, XML's entity (SVG files) */
    XML_APOS_NUMERIC = 1, /* &#39;, which HTML 4 also knows (pages that are HTML too) */
};

/* Writes the len bytes at s (UTF-8, not necessarily NUL-terminated) escaped as above to
 * out; apos is XML_APOS_ENTITY or XML_APOS_NUMERIC. Errors are out's (ferror). */
void xml_put_text(FILE *out, const char *s, size_t len, int apos);

#endif
