/*
 * test_xml.c — the XML/HTML text escaper behind the SVG pictures and the HTML page.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/xml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s (len bytes) as xml_put_text writes it; the caller frees the result. */
static char *escaped(const char *s, size_t len, int apos)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    xml_put_text(f, s, len, apos);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* Markup characters become entities, the apostrophe as asked; line breaks become
 * spaces; controls, U+FFFE/U+FFFF and invalid bytes become one '?' each; the rest,
 * multi-byte characters included, is copied; only len bytes are read. */
static void test_xml_put_text_escapes_as_documented(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        int apos;
        const char *want;
    } CASES[] = {
        {"a<b>&\"c\"", 8, XML_APOS_ENTITY, "a&lt;b&gt;&amp;&quot;c&quot;"},
        {"it's", 4, XML_APOS_ENTITY, "it&apos;s"},
        {"it's", 4, XML_APOS_NUMERIC, "it&#39;s"},
        {"a\tb\nc\rd", 7, XML_APOS_ENTITY, "a b c d"},
        {"a\x01" "b\x7f" "c", 5, XML_APOS_ENTITY, "a?b?c"},
        {"\xef\xbf\xbe\xef\xbf\xbf", 6, XML_APOS_ENTITY, "??"},
        {"caf\xc3\xa9 \xe2\x86\x92", 9, XML_APOS_ENTITY, "caf\xc3\xa9 \xe2\x86\x92"},
        {"a\xff" "b\xc3", 4, XML_APOS_ENTITY, "a?b?"},
        {"ab<", 2, XML_APOS_ENTITY, "ab"}, /* only len bytes */
        {"", 0, XML_APOS_NUMERIC, ""},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char *got = escaped(CASES[i].in, CASES[i].len, CASES[i].apos);
        assert_string_equal(got, CASES[i].want);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xml_put_text_escapes_as_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
