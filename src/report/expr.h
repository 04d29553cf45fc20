/* src/report/expr.h
 *
 * The small expression language of lab.yaml (docs/labs/README.md): numbers,
 * "strings", names, function calls, + - * /, comparisons, && || !, and
 * parentheses. A lab's metric reads one run's results.json (names are
 * dotted paths into it, functions compute from its rows); its verdict and
 * derived metrics read the lab's metrics by name. NaN stands for "no value"
 * (a run that did not run, a null field) and makes whatever uses it NaN.
 * Only report/lab.c calls this.
 */
#ifndef FABSIM_REPORT_EXPR_H
#define FABSIM_REPORT_EXPR_H

#include <stdbool.h>
#include <stddef.h>

struct jv;

enum expr_op {
    EXPR_NUM,
    EXPR_STR,
    EXPR_NAME, /* path into a run's results, or a metric */
    EXPR_CALL,
    EXPR_NEG,
    EXPR_NOT,
    EXPR_ADD,
    EXPR_SUB,
    EXPR_MUL,
    EXPR_DIV,
    EXPR_LT,
    EXPR_LE,
    EXPR_GT,
    EXPR_GE,
    EXPR_EQ,
    EXPR_NE,
    EXPR_AND,
    EXPR_OR,
};

#define EXPR_MAX_ARGS 4
/* Limits of one expression (docs/outputs.md "Limits"), so that a hostile
 * lab.yaml (or a downloaded report folder's copy) can neither overflow the
 * stack of the recursive parser and evaluator nor take long: at most
 * EXPR_MAX_LEN bytes, at most EXPR_MAX_DEPTH nested parentheses, unary
 * operators and calls, and so at most EXPR_MAX_LEN / 2 levels of operators
 * for the evaluator. */
#define EXPR_MAX_LEN 4096
#define EXPR_MAX_DEPTH 64

struct expr_node {
    enum expr_op op;
    double num;
    char *text;             /* EXPR_STR, EXPR_NAME, EXPR_CALL (the name) */
    int kid[EXPR_MAX_ARGS]; /* node indices; -1 = none */
    int nkids;
    int metric;   /* EXPR_NAME in a lab expression: metric index */
    unsigned col; /* 0-based offset in the source text */
};

struct expr {
    struct expr_node *n;
    size_t len, cap;
    int root;
};

/* Where names resolve: in one run's results, or among the lab's metrics. */
enum expr_ctx { EXPR_CTX_RUN, EXPR_CTX_LAB };

/* Parses `src`. 0, or FS_EINVAL with `*err_col` (0-based offset) and a
 * message in err (what is wrong, what is allowed). Functions are checked
 * against the context's list; names are not (the caller resolves them). */
int expr_parse(struct expr *e, const char *src, enum expr_ctx ctx, unsigned *err_col, char *err,
               size_t errlen);
void expr_fini(struct expr *e);

/* Value of the expression over one run's results (EXPR_CTX_RUN). NaN when
 * a name is missing or null. `res` may be NULL (then NaN). */
double expr_eval_run(const struct expr *e, const struct jv *res);
/* Value over the metrics' values (EXPR_CTX_LAB; EXPR_NAME nodes carry their
 * metric index, set by the caller after parsing). */
double expr_eval_lab(const struct expr *e, const double *metrics);

/* Functions of a run's results, also used by the report's charts. */
double expr_done_us(const struct jv *res);
/* "a, b, c" of the functions allowed in a context (for error messages). */
const char *expr_functions(enum expr_ctx ctx);

#endif /* FABSIM_REPORT_EXPR_H */
