/* fuzz/fuzz_config.c
 *
 * libFuzzer target on the scenario loader (`make fuzz`, clang only; not part
 * of `make test`). Any input must either load or be refused with a diag
 * (file:line:col and a message), never crash, hang or trip ASan/UBSan. A
 * scenario that loads must also survive the round trip through
 * scenario_explain: the resolved text loads again (tests/config checks the
 * same on fixed inputs).
 */
#include "config/scenario.h"
#include "core/diag.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct scenario sc;
    struct diag d;
    int rc = scenario_load_string(&sc, text, "fuzz.yaml", NULL, 0, &d);
    if (rc) {
        /* a refusal says where and why */
        if (!d.msg[0]) abort();
        free(text);
        return 0;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        scenario_explain(&sc, f);
        fclose(f);
        struct scenario again;
        if (scenario_load_string(&again, buf, "explain.yaml", NULL, 0, &d)) {
            fprintf(stderr, "explain output does not load: ");
            diag_print(&d, stderr);
            fprintf(stderr, "--- input ---\n%s\n--- explain ---\n%s\n", text, buf);
            abort();
        }
        scenario_fini(&again);
        free(buf);
    }
    scenario_fini(&sc);
    free(text);
    return 0;
}
