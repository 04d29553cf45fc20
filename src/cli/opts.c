/* src/cli/opts.c
 *
 * getopt_long over the option tables of cli/opts.h, and the help and man
 * page printed from the same tables.
 */
#include "cli/opts.h"
#include "core/strdist.h"

#include "core/mem.h"
#include "stats/results.h"

#include "core/file.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *fmt, ...) {
    char raw[1024], esc[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fs_escape_ctl(raw, esc, sizeof esc); /* options are echoed: one line, no escapes */
    fprintf(stderr, "fabsim: %s\n", esc);
    return 2;
}

const char *cli_closest(const char *word, const char *const *cands, size_t n) {
    const char *best = NULL;
    size_t bd = 64, wl = strlen(word);
    for (size_t i = 0; i < n; i++) {
        size_t d = str_osa_distance(word, cands[i], false);
        /* a prefix of a candidate ("--pcap-f") is as good as one typo */
        if (wl >= 3 && !strncmp(word, cands[i], wl)) d = 1;
        if (d < bd) bd = d, best = cands[i];
    }
    /* close: at most 2 edits, and at most a third of the word */
    return best && bd <= 2 && bd * 3 <= (wl > 3 ? wl : 3) ? best : NULL;
}

int cli_parse_u64(const char *opt, const char *v, unsigned long long min, unsigned long long max,
                  unsigned long long *out) {
    char *end;
    if (!v || !*v || *v == '-' || *v == '+')
        return cli_usage_error("%s '%s': expected a number from %llu to %llu", opt, v ? v : "", min,
                               max);
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || n < min || n > max)
        return cli_usage_error("%s '%s': expected a number from %llu to %llu", opt, v, min, max);
    *out = n;
    return 0;
}

static const struct cli_opt HELP_OPT = {"help", 'h', NULL, "print this help and exit"};

static size_t nopts(const struct cli_cmd *c) {
    size_t n = 0;
    while (c->opts && c->opts[n].name)
        n++;
    return n;
}

static const struct cli_opt *opt_by_key(const struct cli_cmd *c, int key) {
    for (size_t i = 0; c->opts && c->opts[i].name; i++)
        if (c->opts[i].key == key) return &c->opts[i];
    return key == 'h' ? &HELP_OPT : NULL;
}

static void opt_spelling(const struct cli_opt *o, char *buf, size_t len) {
    if (o->key < CLI_LONG)
        snprintf(buf, len, "-%c/--%s", o->key, o->name);
    else
        snprintf(buf, len, "--%s", o->name);
}

/* "unknown option": names the closest option, or every option it abbreviates. */
static int unknown_option(const struct cli_cmd *c, const char *arg) {
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
    size_t n = nopts(c);
    const char **cands = fs_xcalloc(n + 1, sizeof *cands);
    char **spelled = fs_xcalloc(n + 1, sizeof *spelled);
    size_t nmatch = 0;
    char matches[512] = "";
    for (size_t i = 0; i <= n; i++) {
        const struct cli_opt *o = i < n ? &c->opts[i] : &HELP_OPT;
        size_t l = strlen(o->name) + 3;
        spelled[i] = fs_xmalloc(l);
        snprintf(spelled[i], l, "--%s", o->name);
        cands[i] = spelled[i];
        if (word[0] == '-' && word[1] == '-' && word[2] &&
            !strncmp(o->name, word + 2, strlen(word + 2))) {
            size_t ml = strlen(matches);
            snprintf(matches + ml, sizeof matches - ml, "%s%s", nmatch ? ", " : "", spelled[i]);
            nmatch++;
        }
    }
    int rc;
    if (nmatch > 1) {
        rc = cli_usage_error("%s: option '%s' is ambiguous: %s", c->name, word, matches);
    } else {
        const char *best = cli_closest(word, cands, n + 1);
        /* Every option as close as the best one: --sed is --set or --seed. */
        char alts[256] = "";
        if (best) {
            size_t bd = str_osa_distance(word, best, false), al = 0;
            for (size_t i = 0; i <= n; i++)
                if (cands[i] != best && str_osa_distance(word, cands[i], false) == bd &&
                    al < sizeof alts)
                    al += (size_t)snprintf(alts + al, sizeof alts - al, " or '%s'", cands[i]);
        }
        if (best)
            rc = cli_usage_error("%s: unknown option '%s'; did you mean '%s'%s? (fabsim %s --help)",
                                 c->name, word, best, alts, c->name);
        else
            rc = cli_usage_error("%s: unknown option '%s' (fabsim %s --help lists them)", c->name,
                                 word, c->name);
    }
    for (size_t i = 0; i <= n; i++)
        free(spelled[i]);
    free(spelled);
    free(cands);
    return rc;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, cli_opt_fn fn, void *ctx, char **pos,
              int *npos) {
    size_t n = nopts(c);
    struct option *lo = fs_xcalloc(n + 2, sizeof *lo);
    char *shorts = fs_xmalloc(3 * n + 8);
    size_t sl = 0;
    shorts[sl++] = ':'; /* ':' for a missing value, '?' for an unknown option */
    for (size_t i = 0; i <= n; i++) {
        const struct cli_opt *o = i < n ? &c->opts[i] : &HELP_OPT;
        int has = !o->arg ? no_argument : o->arg[0] == '[' ? optional_argument : required_argument;
        lo[i] = (struct option){o->name, has, NULL, o->key};
        if (o->key < CLI_LONG) {
            shorts[sl++] = (char)o->key;
            if (has != no_argument) shorts[sl++] = ':';
            if (has == optional_argument) shorts[sl++] = ':';
        }
    }
    shorts[sl] = 0;
    *npos = 0;
    int rc = 0;
    opterr = 0;
    optind = 0; /* glibc: a full re-initialisation, so that a second parse works */
    for (;;) {
        int k = getopt_long(argc, argv, shorts, lo, NULL);
        if (k == -1) break;
        if (k == 'h') {
            cli_help(c, stdout);
            rc = CLI_HELP;
            break;
        }
        if (k == ':') {
            const struct cli_opt *o = opt_by_key(c, optopt);
            char sp[96];
            if (o) opt_spelling(o, sp, sizeof sp);
            rc = cli_usage_error("%s: option %s needs a value (%s)", c->name,
                                 o ? sp : argv[optind - 1], o ? o->arg : "see --help");
            break;
        }
        if (k == '?') {
            const struct cli_opt *o = optopt ? opt_by_key(c, optopt) : NULL;
            if (o && !o->arg) {
                rc = cli_usage_error("%s: option --%s takes no value", c->name, o->name);
            } else if (optopt && optopt < CLI_LONG && !o) {
                char w[3] = {'-', (char)optopt, 0};
                rc = unknown_option(c, w);
            } else {
                rc = unknown_option(c, argv[optind - 1]);
            }
            break;
        }
        rc = fn(ctx, k, optarg);
        if (rc) break;
    }
    if (!rc)
        for (int i = optind; i < argc; i++)
            pos[(*npos)++] = argv[i];
    free(lo);
    free(shorts);
    return rc;
}

/* ---- help --------------------------------------------------------------- */

static void synopsis(const struct cli_cmd *c, FILE *f) {
    fprintf(f, "fabsim %s%s%s%s", c->name, c->args && *c->args ? " " : "", c->args ? c->args : "",
            nopts(c) ? " [OPTIONS]" : "");
}

static void opt_head(const struct cli_opt *o, char *buf, size_t len) {
    const char *eq = o->arg && o->arg[0] == '[' ? "[=" : "=";
    const char *arg = o->arg ? (o->arg[0] == '[' ? o->arg + 1 : o->arg) : "";
    if (o->key < CLI_LONG)
        snprintf(buf, len, "-%c, --%s%s%s", o->key, o->name, o->arg ? eq : "", arg);
    else
        snprintf(buf, len, "    --%s%s%s", o->name, o->arg ? eq : "", arg);
}

static void print_lines(FILE *f, const char *text, int indent) {
    for (const char *p = text; *p;) {
        size_t l = strcspn(p, "\n");
        fprintf(f, "%*s%.*s\n", l ? indent : 0, "", (int)l, p);
        p += l;
        if (*p) p++;
    }
}

void cli_help(const struct cli_cmd *c, FILE *f) {
    fprintf(f, "usage: ");
    synopsis(c, f);
    fprintf(f, "\n\n%s.\n", c->summary);
    if (c->details) {
        fputc('\n', f);
        print_lines(f, c->details, 0);
    }
    fprintf(f, "\noptions:\n");
    size_t n = nopts(c);
    for (size_t i = 0; i <= n; i++) {
        const struct cli_opt *o = i < n ? &c->opts[i] : &HELP_OPT;
        char head[96];
        opt_head(o, head, sizeof head);
        const char *h = o->help;
        size_t l = strcspn(h, "\n");
        if (strlen(head) > 26)
            fprintf(f, "  %s\n%30s%.*s\n", head, "", (int)l, h);
        else
            fprintf(f, "  %-26s  %.*s\n", head, (int)l, h);
        if (h[l]) print_lines(f, h + l + 1, 30);
    }
    if (c->example) {
        fprintf(f, "\nexample%s:\n", strstr(c->example, "\nfabsim ") ? "s" : "");
        print_lines(f, c->example, 2);
    }
}

void cli_usage(FILE *f, const struct cli_cmd *const *cmds, size_t ncmds) {
    fprintf(f,
            "fabsim %s - packet-level simulator of AI-training fabrics (InfiniBand vs RoCEv2)\n"
            "\nusage: fabsim COMMAND [ARGS] [OPTIONS]\n\ncommands:\n",
            FABSIM_VERSION);
    for (size_t i = 0; i < ncmds; i++)
        fprintf(f, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
    fprintf(f, "\n");
    for (size_t i = 0; i < ncmds; i++) {
        fprintf(f, "  ");
        synopsis(cmds[i], f);
        fprintf(f, "\n");
    }
    fprintf(f, "  fabsim --help | --version\n"
               "\n`fabsim COMMAND --help` (or `fabsim help COMMAND`) shows a command's options and "
               "an example;\n`man fabsim` the whole manual. Options take `--opt=value` or "
               "`--opt value`.\n"
               "Exit status: 0 ran, 2 bad input or usage, 1 internal error.\n");
}

/* ---- man page ----------------------------------------------------------- */

/* roff text: '-' and '\' escaped, a leading '.' or '\'' protected. */
static void roff(FILE *f, const char *s, size_t n) {
    for (size_t i = 0; i < n && s[i]; i++) {
        char ch = s[i];
        if ((i == 0 || s[i - 1] == '\n') && (ch == '.' || ch == '\'')) fputs("\\&", f);
        if (ch == '-')
            fputs("\\-", f);
        else if (ch == '\\')
            fputs("\\e", f);
        else
            fputc(ch, f);
    }
}

static void roff_s(FILE *f, const char *s) {
    roff(f, s, strlen(s));
}

static void man_synopsis(const struct cli_cmd *c, FILE *f) {
    fprintf(f, ".B fabsim %s\n", c->name);
    if (c->args && *c->args) {
        fputs(".I ", f);
        roff_s(f, c->args);
        fputc('\n', f);
    }
    if (nopts(c)) fputs("[\\fIOPTIONS\\fR]\n", f);
}

void cli_man(FILE *f, const struct cli_cmd *const *cmds, size_t ncmds) {
    fprintf(f,
            ".\\\" Generated by `fabsim help --man` from the option tables in src/cli/.\n"
            ".TH FABSIM 1 \"\" \"fabsim %s\" \"User Commands\"\n"
            ".SH NAME\nfabsim \\- packet\\-level simulator of AI\\-training fabrics "
            "(InfiniBand vs RoCEv2)\n.SH SYNOPSIS\n",
            FABSIM_VERSION);
    for (size_t i = 0; i < ncmds; i++) {
        man_synopsis(cmds[i], f);
        fputs(".br\n", f);
    }
    fputs(".B fabsim\n\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n"
          ".SH DESCRIPTION\n"
          "fabsim simulates packet by packet how an AI\\-training fabric (InfiniBand with "
          "credit\\-based flow control and a subnet manager, or RoCEv2 with PFC, ECN and DCQCN) "
          "carries a workload described by a YAML scenario, and writes results.json, links.csv "
          "and an HTML report.\n"
          "Options take \\fB\\-\\-opt=value\\fR or \\fB\\-\\-opt value\\fR; every command "
          "takes \\fB\\-h\\fR, \\fB\\-\\-help\\fR.\n"
          ".SH COMMANDS\n",
          f);
    for (size_t i = 0; i < ncmds; i++) {
        const struct cli_cmd *c = cmds[i];
        fprintf(f, ".SS %s\n", c->name);
        man_synopsis(c, f);
        fputs(".PP\n", f);
        roff_s(f, c->summary);
        fputs(".\n", f);
        if (c->details) {
            fputs(".PP\n", f);
            for (const char *p = c->details; *p;) {
                size_t l = strcspn(p, "\n");
                if (l)
                    roff(f, p, l), fputc('\n', f);
                else
                    fputs(".PP\n", f);
                p += l;
                if (*p) p++;
            }
        }
        size_t n = nopts(c);
        for (size_t k = 0; k <= n; k++) {
            const struct cli_opt *o = k < n ? &c->opts[k] : &HELP_OPT;
            char head[96];
            opt_head(o, head, sizeof head);
            const char *h = head;
            while (*h == ' ')
                h++;
            fputs(".TP\n.B ", f);
            roff_s(f, h);
            fputc('\n', f);
            for (const char *p = o->help; *p;) {
                size_t l = strcspn(p, "\n");
                roff(f, p, l);
                fputc('\n', f);
                p += l;
                if (*p) p++;
            }
        }
        if (c->example) {
            fputs(".PP\nExample:\n.PP\n.RS\n.nf\n", f);
            roff_s(f, c->example);
            fputs("\n.fi\n.RE\n", f);
        }
    }
    fputs(".SH EXIT STATUS\n"
          "0: ran (also when a deadlock is detected, which results.json reports); 2: bad input "
          "or usage, with one message on stderr naming the place "
          "(\\fIfile\\fR:\\fIline\\fR:\\fIcolumn\\fR); 1: internal error.\n"
          ".SH ENVIRONMENT\n"
          ".TP\n.B FABSIM_WEB_DIR\n"
          "Folder holding the report's web assets (report.js, report.css and "
          "node_modules/vega*). By default the report looks next to the binary: "
          "\\fIPREFIX\\fR/share/fabsim/web when installed, report/web in a source tree.\n"
          ".TP\n.B FABSIM_DATA_DIR\n"
          "Folder holding scenarios/labs and docs/labs for \\fBfabsim labs\\fR. By default: "
          "the working folder, the source tree above the binary, or "
          "\\fIPREFIX\\fR/share/fabsim when installed.\n"
          ".SH FILES\n"
          ".TP\n.I PREFIX/share/fabsim/scenarios\nthe course labs and example scenarios\n"
          ".TP\n.I PREFIX/share/fabsim/web\nthe report's chart library\n"
          ".SH SEE ALSO\n"
          "The scenario language: \\fBfabsim validate \\-\\-explain\\fR, "
          "\\fBfabsim schema\\fR; docs/scenario.md and docs/outputs.md in the source tree.\n",
          f);
}
