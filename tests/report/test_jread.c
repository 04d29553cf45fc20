/* report/jread.c strict to RFC 8259, and the data embedded in report.html
 * safe inside a <script> element (issue 17, item 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/jread.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the old reader accepted and the page's JSON.parse cannot read. */
static void test_jread_rejects_non_json(void **state) {
    (void)state;
    static const char *const bad[] = {
        "-inf",       "0x10", "[\"a\tb\"]",  "[\"\\q\"]",        "01",
        "1.",         "-",    "[1e999]",     "\"\\ud800\"",      "\"\\udc00x\"",
        "\"\xff\"",   "NaN",  "[.5]",        "\"\xed\xa0\x80\"", "[1,]",
        "{\"a\":1,}", "+1",   "[\"\\u12\"]", "[\"a\nb\"]",
    };
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct jv *v = jread_parse(bad[i], err, sizeof err);
        if (v) fail_msg("accepted %s", bad[i]);
        assert_true(err[0] != 0);
    }
}

static void test_jread_accepts_json(void **state) {
    (void)state;
    char err[200];
    struct jv *v =
        jread_parse("{\"a\":[-0.5e+3,true,false,null],\"s\":\"\\u00e9\\ud83d\\ude00\\/\\\"\"}", err,
                    sizeof err);
    assert_non_null(v);
    assert_true(jv_num_at(v, "a", 0) == 0); /* not a number: the array */
    const struct jv *a = jv_get(v, "a");
    assert_true(a->items[0]->num == -500.0);
    assert_string_equal(jv_str_at(v, "s", ""), "\xc3\xa9\xf0\x9f\x98\x80/\"");
    jread_free(v);
}

/* The embedded data holds none of <!--, <script, </ or U+2028/9, and means
 * the same JSON. */
static void test_report_json_script_escape(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_put_json_script(f, "{\"name\":\"x<!--<script></script>\xe2\x80\xa8\xe2\x80\xa9\"}");
    fclose(f);
    assert_null(strstr(buf, "<"));
    assert_null(strstr(buf, "\xe2\x80\xa8"));
    assert_null(strstr(buf, "\xe2\x80\xa9"));
    char err[200];
    struct jv *v = jread_parse(buf, err, sizeof err);
    assert_non_null(v);
    assert_string_equal(jv_str_at(v, "name", ""), "x<!--<script></script>\xe2\x80\xa8\xe2\x80\xa9");
    jread_free(v);
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jread_rejects_non_json),
        cmocka_unit_test(test_jread_accepts_json),
        cmocka_unit_test(test_report_json_script_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
