/* fuzz/fuzz_lab.c
 *
 * libFuzzer target on the lab rules (`make fuzz`): the input as one
 * expression (src/report/expr.c) in both contexts, parsed and evaluated,
 * and as a whole lab.yaml (src/report/lab.c), loaded and evaluated with no
 * runs. Any input is either accepted or refused with a message, never a
 * crash, stack overflow or sanitizer report (expr.h's depth and length
 * limits).
 */
#include "core/diag.h"
#include "report/expr.h"
#include "report/lab.h"

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct jv *no_run(void *ctx, const char *id, const char **status) {
    (void)ctx, (void)id;
    *status = "not_run";
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    for (int ctx = EXPR_CTX_RUN; ctx <= EXPR_CTX_LAB; ctx++) {
        struct expr e;
        char err[512] = "";
        unsigned col = 0;
        if (expr_parse(&e, text, (enum expr_ctx)ctx, &col, err, sizeof err)) {
            if (!err[0] || col > size) abort(); /* a refusal says where and why */
            continue;
        }
        if (ctx == EXPR_CTX_LAB)
            (void)expr_eval_lab(&e, NULL);
        else
            (void)expr_eval_run(&e, NULL);
        expr_fini(&e);
    }
    free(text);
    const char *path = fuzz_file(data, size, "-lab.yaml");
    if (!path) return 0;
    struct lab_def L;
    struct diag d = {0};
    if (lab_load(&L, path, &d)) {
        if (!d.msg[0]) abort();
        lab_fini(&L);
        return 0;
    }
    struct lab_eval ev;
    lab_eval(&L, no_run, NULL, &ev);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);
    return 0;
}
