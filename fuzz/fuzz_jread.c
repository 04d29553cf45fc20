/* fuzz/fuzz_jread.c
 *
 * libFuzzer target on the report's JSON reader (src/report/jread.c) and the
 * embedding of JSON in report.html (`make fuzz`). Any input is either parsed
 * or refused with a message, never a crash; what parses is strict RFC 8259,
 * so its embedded form holds no '<' or U+2028/2029 and parses again to the
 * same tree.
 */
#include "report/jread.h"
#include "report/report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const struct jv *a, const struct jv *b) {
    if (a->type != b->type || a->n != b->n || a->b != b->b) return 0;
    if (a->type == JV_NUM && a->num != b->num) return 0;
    if (a->type == JV_STR && strcmp(a->str, b->str)) return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->keys && strcmp(a->keys[i], b->keys[i])) return 0;
        if (!same(a->items[i], b->items[i])) return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char err[256];
    struct jv *v = jread_parse(text, err, sizeof err);
    if (!v) {
        if (!err[0]) abort(); /* a refusal says why */
        free(text);
        return 0;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        report_put_json_script(f, text);
        fclose(f);
        if (memchr(buf, '<', len) || strstr(buf, "\xe2\x80\xa8") || strstr(buf, "\xe2\x80\xa9"))
            abort();
        struct jv *w = jread_parse(buf, err, sizeof err);
        if (!w || !same(v, w)) abort();
        jread_free(w);
        free(buf);
    }
    jread_free(v);
    free(text);
    return 0;
}
