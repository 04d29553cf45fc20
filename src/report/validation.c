/* src/report/validation.c
 *
 * The report's "Validation" page: `make validate` (tools/validate.py) writes
 * validation.json (docs/outputs.md), one row per published figure of
 * docs/validation.md; when the report folder holds one, its rows are
 * embedded as-is and report.js draws them as a table. Kept apart from the
 * labs' loading so the two can change independently.
 */
#include "report/report.h"

#include "core/file.h"
#include "core/jw.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* DIR/validation.json's text, or NULL when there is none (caller frees). */
char *report_validation_load(const char *dir) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/validation.json", dir);
    return fs_read_file(path, NULL);
}

/* Writes the key "validation": the embedded rows, or null. */
void report_validation_write(const char *json, struct jw *w) {
    jw_key(w, "validation");
    if (json)
        jw_raw(w, json);
    else
        jw_null(w);
}
