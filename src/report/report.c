/* src/report/report.c
 *
 * Loading the runs of an output folder and writing report.html. The page's
 * charts are Vega-Lite specs built by report/web/report.js from the data
 * embedded here; this file owns what the data is and where it comes from.
 */
#include "report/report.h"

#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "report/jread.h"
#include "report/lab.h"
#include "core/jw.h"
#include "stats/results.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Labs in course order; folders not listed here follow alphabetically. */
static const char *const lab_order[] = {"lossless",       "ecn_dcqcn",      "sharp",
                                        "subnet_manager", "load_balancing", "counterarguments",
                                        "ultra_ethernet"};

/* Links drawn in the queue/pause timelines per scenario (the busiest). */
#define SERIES_TOP_LINKS 8
/* Time bins of the spine-link utilisation heatmap. */
#define SERIES_SPINE_BINS 60

/* out = a/b (truncated paths are caught by the open that follows). */
static void pjoin(char *out, size_t len, const char *a, const char *b) {
    if (snprintf(out, len, "%s/%s", a, b) >= (int)len) out[len - 1] = 0;
}

static bool is_dir(const char *p) {
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p) {
    struct stat st;
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the subfolders of `dir`. */
static char **subdirs(const char *dir, size_t *count) {
    DIR *dp = opendir(dir);
    *count = 0;
    if (!dp) return NULL;
    char **v = NULL;
    size_t cap = 0;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        pjoin(path, sizeof path, dir, e->d_name);
        if (!is_dir(path)) continue;
        fs_grow((void **)&v, &cap, *count + 1, sizeof *v);
        v[(*count)++] = fs_xstrdup(e->d_name);
    }
    closedir(dp);
    if (*count) qsort(v, *count, sizeof *v, cmp_str);
    return v;
}

static int lab_rank(const char *id) {
    for (size_t i = 0; i < sizeof lab_order / sizeof lab_order[0]; i++)
        if (!strcmp(lab_order[i], id)) return (int)i;
    return 1000;
}

static int cmp_lab(const void *a, const void *b) {
    const struct report_lab *x = a, *y = b;
    int rx = lab_rank(x->id), ry = lab_rank(y->id);
    return rx != ry ? rx - ry : strcmp(x->id, y->id);
}

/* links.csv -> {"t_ns":[..],"rx_gbps":[..],"links":[{"name","q","paused_ns","util"}]}.
 * Rows come in blocks of one row per link per sample, in port order, so the
 * link of a row is its index modulo the block size. rx_gbps sums the bytes
 * into hosts (links named "...->hN"): the fabric's delivered throughput. */
static char *series_from_csv(const char *path) {
    char *text = fs_read_file(path, NULL);
    if (!text) return NULL;
    char *save = NULL, *line = strtok_r(text, "\n", &save); /* header */
    size_t nl = 0, nrows = 0, cap = 0;
    char **names = NULL;
    double *t = NULL, *bytes = NULL, *util = NULL, *q = NULL, *paused = NULL;
    size_t tcap = 0;
    double first_t = -1;
    bool block_known = false;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char name[128];
        double tn, b, u, qq, pp;
        if (sscanf(line, "%lf,%127[^,],%lf,%lf,%lf,%lf", &tn, name, &b, &u, &qq, &pp) != 6)
            continue;
        if (first_t < 0) first_t = tn;
        if (!block_known && tn != first_t) block_known = true;
        if (!block_known) {
            fs_grow((void **)&names, &cap, nl + 1, sizeof *names);
            names[nl++] = fs_xstrdup(name);
        }
        if (nrows == tcap) {
            tcap = tcap ? tcap * 2 : 4096;
            bytes = fs_xrealloc(bytes, tcap * sizeof *bytes);
            util = fs_xrealloc(util, tcap * sizeof *util);
            q = fs_xrealloc(q, tcap * sizeof *q);
            paused = fs_xrealloc(paused, tcap * sizeof *paused);
            t = fs_xrealloc(t, tcap * sizeof *t);
        }
        bytes[nrows] = b;
        util[nrows] = u;
        q[nrows] = qq;
        paused[nrows] = pp;
        t[nrows] = tn;
        nrows++;
    }
    free(text);
    if (!nl) {
        free(names);
        free(bytes), free(util), free(q), free(paused), free(t);
        return NULL;
    }
    size_t ns = nrows / nl;
    /* Score each link: queue peaks and pauses matter most, then bytes. */
    double *score = fs_xcalloc(nl, sizeof *score), *tot = fs_xcalloc(nl, sizeof *tot);
    for (size_t s = 0; s < ns; s++)
        for (size_t l = 0; l < nl; l++) {
            size_t i = s * nl + l;
            if (q[i] > score[l]) score[l] = q[i];
            score[l] += paused[i];
            tot[l] += bytes[i];
        }
    size_t pick[SERIES_TOP_LINKS], npick = 0;
    bool *used = fs_xcalloc(nl, sizeof *used);
    for (int pass = 0; pass < 2 && npick < SERIES_TOP_LINKS; pass++)
        while (npick < SERIES_TOP_LINKS) {
            double best = 0;
            size_t bi = nl;
            for (size_t l = 0; l < nl; l++) {
                double v = pass == 0 ? score[l] : tot[l];
                if (!used[l] && v > best) best = v, bi = l;
            }
            if (bi == nl) break;
            used[bi] = true;
            pick[npick++] = bi;
            if (pass == 1 && npick >= 4) break;
        }
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    struct jw w;
    jw_init(&w, f);
    jw_obj_compact(&w);
    jw_key(&w, "t_ns");
    jw_arr_compact(&w);
    for (size_t s = 0; s < ns; s++)
        jw_num(&w, t[s * nl]);
    jw_arr_end(&w);
    jw_key(&w, "rx_gbps");
    jw_arr_compact(&w);
    for (size_t s = 0; s < ns; s++) {
        double span = s ? t[s * nl] - t[(s - 1) * nl] : t[0];
        double sum = 0;
        for (size_t l = 0; l < nl; l++) {
            const char *arrow = strstr(names[l], "->h");
            if (arrow && !strchr(arrow, '.')) sum += bytes[s * nl + l];
        }
        jw_num(&w, span > 0 ? sum * 8.0 / span : 0.0);
    }
    jw_arr_end(&w);
    /* Every leaf-spine link's utilisation over time (the course's picture of
     * spine links during simultaneous AllReduces), at most SERIES_SPINE_BINS
     * time bins: each bin is the mean of the samples it covers. */
    size_t bins = ns < SERIES_SPINE_BINS ? ns : SERIES_SPINE_BINS;
    jw_key(&w, "spine_t_ns");
    jw_arr_compact(&w);
    for (size_t b = 0; b < bins; b++)
        jw_num(&w, t[((b + 1) * ns / bins - 1) * nl]);
    jw_arr_end(&w);
    jw_key(&w, "spine");
    jw_arr_compact(&w);
    for (size_t l = 0; l < nl; l++) {
        bool up = !strncmp(names[l], "leaf", 4) && strstr(names[l], "->spine");
        bool down = !strncmp(names[l], "spine", 5) && strstr(names[l], "->leaf");
        if (!up && !down) continue;
        jw_obj_compact(&w);
        jw_kstr(&w, "name", names[l]);
        jw_key(&w, "util");
        jw_arr_compact(&w);
        for (size_t b = 0; b < bins; b++) {
            size_t s0 = b * ns / bins, s1 = (b + 1) * ns / bins;
            double sum = 0;
            for (size_t s = s0; s < s1; s++)
                sum += util[s * nl + l];
            jw_num(&w, s1 > s0 ? sum / (double)(s1 - s0) : 0.0);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "links");
    jw_arr_compact(&w);
    for (size_t k = 0; k < npick; k++) {
        size_t l = pick[k];
        jw_obj_compact(&w);
        jw_kstr(&w, "name", names[l]);
        jw_key(&w, "q");
        jw_arr_compact(&w);
        for (size_t s = 0; s < ns; s++)
            jw_num(&w, q[s * nl + l]);
        jw_arr_end(&w);
        jw_key(&w, "paused_ns");
        jw_arr_compact(&w);
        for (size_t s = 0; s < ns; s++)
            jw_num(&w, paused[s * nl + l]);
        jw_arr_end(&w);
        jw_key(&w, "util");
        jw_arr_compact(&w);
        for (size_t s = 0; s < ns; s++)
            jw_num(&w, util[s * nl + l]);
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    fclose(f);
    for (size_t l = 0; l < nl; l++)
        free(names[l]);
    free(names), free(score), free(tot), free(used);
    free(bytes), free(util), free(q), free(paused), free(t);
    return out;
}

/* "# label: text" comment line in a scenario file, or NULL. */
static char *yaml_comment(const char *yaml, const char *key) {
    if (!yaml) return NULL;
    size_t kl = strlen(key);
    for (const char *p = yaml; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *s = p;
        if (*s != '#') continue;
        s++;
        while (*s == ' ')
            s++;
        if (strncmp(s, key, kl) || s[kl] != ':') continue;
        s += kl + 1;
        while (*s == ' ')
            s++;
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char *v = fs_xmalloc(len + 1);
        memcpy(v, s, len);
        v[len] = 0;
        return v;
    }
    return NULL;
}

/* What report.js reads of a run's results.json without checking has the
 * type it expects, so that a hand-edited or foreign file shows as that run's
 * error instead of blanking the page. NULL when fine, else what is wrong. */
static const char *results_shape(const struct jv *r) {
    static const char *const lists[] = {"flows", "collectives", "control_plane", "cc_rates"};
    if (!r || r->type != JV_OBJ) return "not an object";
    const struct jv *s = jv_get(r, "summary"), *l = jv_get(r, "links");
    if (!s || s->type != JV_OBJ) return "summary is not an object";
    const struct jv *dl = jv_get(s, "deadlock");
    if (!dl || dl->type != JV_OBJ) return "summary.deadlock is not an object";
    if (!l || l->type != JV_ARR) return "links is not an array";
    for (size_t i = 0; i < l->n; i++) {
        const struct jv *t = jv_get(l->items[i], "tier");
        if (l->items[i]->type != JV_OBJ || !t || t->type != JV_STR)
            return "links[] are not objects with a tier";
    }
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
        const struct jv *a = jv_get(r, lists[k]);
        if (!a || a->type == JV_NULL) continue;
        if (a->type != JV_ARR)
            return "flows, collectives, control_plane or cc_rates is not an array";
        for (size_t i = 0; i < a->n; i++)
            if (a->items[i]->type != JV_OBJ)
                return "an item of flows, collectives, control_plane or cc_rates is not an object";
    }
    const struct jv *cc = jv_get(r, "cc_rates");
    for (size_t i = 0; cc && cc->type == JV_ARR && i < cc->n; i++) {
        const struct jv *t = jv_get(cc->items[i], "t_ns"), *g = jv_get(cc->items[i], "gbps");
        if (!t || t->type != JV_ARR || !g || g->type != JV_ARR)
            return "cc_rates[] lack the t_ns and gbps arrays";
    }
    return NULL;
}

/* A scenario's folder is named after its file, "NN-name" (the number only
 * orders the runs); its id is the name. */
static void load_scn(struct report_scn *sc, const char *dir, const char *folder, bool series) {
    char path[PATH_MAX], err[256];
    memset(sc, 0, sizeof *sc);
    const char *id = folder;
    if (id[0] >= '0' && id[0] <= '9' && id[1] >= '0' && id[1] <= '9' && id[2] == '-' && id[3])
        id += 3;
    sc->id = fs_xstrdup(id);
    pjoin(path, sizeof path, dir, "scenario.yaml");
    sc->yaml = fs_read_file(path, NULL);
    pjoin(path, sizeof path, dir, "status.json");
    struct jv *st = jread_file(path, err, sizeof err);
    pjoin(path, sizeof path, dir, "results.json");
    sc->results_text = fs_read_file(path, NULL);
    if (sc->results_text) {
        sc->res = jread_parse(sc->results_text, err, sizeof err);
        const char *bad = sc->res ? results_shape(sc->res) : NULL;
        if (bad) {
            snprintf(err, sizeof err, "results.json: %s (docs/outputs.md)", bad);
            jread_free(sc->res);
            sc->res = NULL;
        }
        if (!sc->res) {
            free(sc->results_text);
            sc->results_text = NULL;
            sc->status = fs_xstrdup(REPORT_ERROR);
            sc->message = fs_xstrdup(err);
        }
    }
    if (!sc->status) {
        const char *s = jv_str_at(st, "status", sc->res ? REPORT_OK : REPORT_ERROR);
        sc->status = fs_xstrdup(s);
        const char *m = jv_str_at(st, "message", sc->res ? "" : "no results.json");
        sc->message = fs_xstrdup(m);
    }
    const char *label = jv_str_at(st, "label", NULL);
    sc->label = label ? fs_xstrdup(label) : yaml_comment(sc->yaml, "label");
    const struct jv *set = jv_get(st, "set");
    if (set && set->type == JV_OBJ && set->n) {
        sc->set_keys = fs_xcalloc(set->n, sizeof *sc->set_keys);
        sc->set_vals = fs_xcalloc(set->n, sizeof *sc->set_vals);
        for (size_t i = 0; i < set->n; i++)
            if (set->items[i]->type == JV_STR) {
                sc->set_keys[sc->nset] = fs_xstrdup(set->keys[i]);
                sc->set_vals[sc->nset++] = fs_xstrdup(set->items[i]->str);
            }
    }
    if (!sc->label) sc->label = fs_xstrdup(id);
    jread_free(st);
    if (sc->res && series) {
        pjoin(path, sizeof path, dir, "links.csv");
        sc->series_json = series_from_csv(path);
    }
}

/* The runs in dir's subfolders (those holding a status.json or a
 * results.json), in folder order; `full` keeps what the page shows (the
 * links.csv series, results.json's text, the scenario), else the parsed
 * results only. */
static struct report_scn *load_runs(const char *dir, size_t *nscn, bool full) {
    char path[PATH_MAX], probe[PATH_MAX + 32];
    size_t n;
    char **names = subdirs(dir, &n);
    struct report_scn *scn = fs_xcalloc(n ? n : 1, sizeof *scn);
    *nscn = 0;
    for (size_t i = 0; i < n; i++) {
        pjoin(path, sizeof path, dir, names[i]);
        pjoin(probe, sizeof probe, path, "status.json");
        bool has = is_file(probe);
        pjoin(probe, sizeof probe, path, "results.json");
        if (has || is_file(probe)) {
            struct report_scn *sc = &scn[(*nscn)++];
            load_scn(sc, path, names[i], full);
            if (!full) {
                free(sc->results_text), free(sc->yaml);
                sc->results_text = sc->yaml = NULL;
            }
        }
        free(names[i]);
    }
    free(names);
    return scn;
}

/* DIR/readings/<id>/<NN-run>/: the runs of a reading, their results only
 * (the report shows the readings' verdicts, not their charts). */
static void load_reading(struct report_reading *rd, const char *dir, const char *id) {
    char sub[PATH_MAX];
    if (snprintf(sub, sizeof sub, "%s/readings/%s", dir, id) >= (int)sizeof sub) {
        rd->scn = fs_xcalloc(1, sizeof *rd->scn);
        return;
    }
    rd->scn = load_runs(sub, &rd->nscn, false);
}

static char *md_title(const char *md, const char *fallback) {
    if (md) {
        for (const char *p = md; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
            if (p[0] == '#' && p[1] == ' ') {
                const char *e = strchr(p, '\n');
                size_t len = e ? (size_t)(e - p - 2) : strlen(p + 2);
                char *v = fs_xmalloc(len + 1);
                memcpy(v, p + 2, len);
                v[len] = 0;
                return v;
            }
        }
    }
    return fs_xstrdup(fallback);
}

static int load_lab(struct report_lab *lab, const char *dir, const char *id, struct diag *d) {
    char path[PATH_MAX];
    memset(lab, 0, sizeof *lab);
    lab->id = fs_xstrdup(id);
    pjoin(path, sizeof path, dir, "lab.md");
    lab->markdown = fs_read_file(path, NULL);
    pjoin(path, sizeof path, dir, "lab.yaml");
    if (is_file(path)) {
        lab->def = fs_xcalloc(1, sizeof *lab->def);
        int rc = lab_load(lab->def, path, d);
        if (rc) {
            lab_fini(lab->def);
            free(lab->def);
            lab->def = NULL;
            lab->title = fs_xstrdup(id);
            lab->scn = fs_xcalloc(1, sizeof *lab->scn);
            return rc;
        }
    }
    lab->title = lab->def ? fs_xstrdup(lab->def->title) : md_title(lab->markdown, id);
    lab->scn = load_runs(dir, &lab->nscn, true);
    if (lab->def && lab->def->nreadings) {
        lab->rd = fs_xcalloc(lab->def->nreadings, sizeof *lab->rd);
        for (size_t r = 0; r < lab->def->nreadings; r++)
            load_reading(&lab->rd[r], dir, lab->def->readings[r].id);
    }
    return 0;
}

static void free_scns(struct report_scn *scn, size_t n) {
    for (size_t k = 0; k < n; k++) {
        struct report_scn *sc = &scn[k];
        free(sc->id), free(sc->label), free(sc->status), free(sc->message), free(sc->yaml);
        for (size_t q = 0; q < sc->nset; q++)
            free(sc->set_keys[q]), free(sc->set_vals[q]);
        free(sc->set_keys), free(sc->set_vals);
        free(sc->results_text), free(sc->series_json);
        jread_free(sc->res);
    }
}

static void free_lab(struct report_lab *lab) {
    free_scns(lab->scn, lab->nscn);
    for (size_t r = 0; lab->rd && r < lab->def->nreadings; r++) {
        free_scns(lab->rd[r].scn, lab->rd[r].nscn);
        free(lab->rd[r].scn);
        if (lab->rd[r].ev) lab_eval_fini(lab->def, lab->rd[r].ev);
        free(lab->rd[r].ev);
    }
    free(lab->rd);
    if (lab->def) {
        if (lab->ev) lab_eval_fini(lab->def, lab->ev);
        lab_fini(lab->def);
    }
    free(lab->ev), free(lab->def);
    free(lab->scn), free(lab->id), free(lab->title), free(lab->markdown);
}

int report_load(struct report *r, const char *dir, struct diag *d) {
    memset(r, 0, sizeof *r);
    r->dir = fs_xstrdup(dir);
    char path[PATH_MAX];
    if (!is_dir(dir))
        return diag_set(d, dir, (struct srcpos){0, 0}, FS_ENOENT,
                        "no such folder (run `fabsim labs -o %s` first)", dir);
    pjoin(path, sizeof path, dir, "mode");
    char *mode = fs_read_file(path, NULL);
    if (mode) {
        mode[strcspn(mode, "\r\n")] = 0;
        r->mode = mode;
    }
    pjoin(path, sizeof path, dir, "results.json");
    /* one `fabsim run` folder; a labs/compare/sweep folder says so in `mode`
     * and keeps its runs in subfolders even when a stray results.json sits
     * beside them (it wrote an empty verdicts.json then) */
    if (is_file(path) && (!r->mode || !strcmp(r->mode, "run"))) {
        r->labs = fs_xcalloc(1, sizeof *r->labs);
        struct report_lab *lab = &r->labs[r->nlabs++];
        lab->id = fs_xstrdup("run");
        lab->title = fs_xstrdup("Run");
        lab->scn = fs_xcalloc(1, sizeof *lab->scn);
        const char *base = strrchr(dir, '/');
        load_scn(&lab->scn[lab->nscn++], dir, base && base[1] ? base + 1 : dir, true);
        if (!r->mode) r->mode = fs_xstrdup("run");
    } else {
        size_t n;
        char **names = subdirs(dir, &n);
        r->labs = fs_xcalloc(n ? n : 1, sizeof *r->labs);
        for (size_t i = 0; i < n; i++) {
            pjoin(path, sizeof path, dir, names[i]);
            struct report_lab lab;
            int rc = load_lab(&lab, path, names[i], d);
            if (rc) {
                free_lab(&lab);
                for (size_t k = i; k < n; k++)
                    free(names[k]);
                free(names);
                return rc;
            }
            if (lab.nscn) {
                r->labs[r->nlabs++] = lab;
            } else {
                free_lab(&lab);
            }
            free(names[i]);
        }
        free(names);
        qsort(r->labs, r->nlabs, sizeof *r->labs, cmp_lab);
        if (!r->mode) r->mode = fs_xstrdup("labs");
    }
    if (!r->nlabs)
        return diag_set(d, dir, (struct srcpos){0, 0}, FS_ENOENT,
                        "no runs found (expected DIR/<lab>/<scenario>/results.json or "
                        "DIR/results.json)");
    report_compute_findings(r);
    r->validation = report_validation_load(dir);
    return 0;
}

static void free_findings(struct report *r) {
    for (size_t i = 0; i < r->nfindings; i++)
        free(r->findings[i].lab), free(r->findings[i].title), free(r->findings[i].text);
    free(r->findings);
    r->findings = NULL;
    r->nfindings = 0;
}

void report_fini(struct report *r) {
    for (size_t i = 0; i < r->nlabs; i++)
        free_lab(&r->labs[i]);
    free_findings(r);
    free(r->labs), free(r->dir), free(r->mode), free(r->validation);
    memset(r, 0, sizeof *r);
}

int report_find_web(char *out, size_t len) {
    const char *probe = "node_modules/vega/build/vega.min.js";
    char path[PATH_MAX + 64];
    const char *env = getenv("FABSIM_WEB_DIR");
    if (env && *env) {
        pjoin(path, sizeof path, env, probe);
        if (is_file(path)) {
            snprintf(out, len, "%s", env);
            return 0;
        }
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        /* Installed: PREFIX/bin/fabsim finds PREFIX/share/fabsim/web. */
        char *slash = strrchr(exe, '/');
        if (slash) {
            snprintf(path, sizeof path, "%.*s/../share/fabsim/web/%s", (int)(slash - exe), exe,
                     probe);
            if (is_file(path) &&
                snprintf(out, len, "%.*s/../share/fabsim/web", (int)(slash - exe), exe) < (int)len)
                return 0;
        }
        /* A source tree: build/fabsim finds report/web above it. */
        for (int up = 0; up < 5; up++) {
            slash = strrchr(exe, '/');
            if (!slash) break;
            *slash = 0;
            snprintf(path, sizeof path, "%s/report/web/%s", exe, probe);
            if (is_file(path)) {
                snprintf(out, len, "%s/report/web", exe);
                return 0;
            }
        }
    }
    snprintf(path, sizeof path, "report/web/%s", probe);
    if (is_file(path)) {
        snprintf(out, len, "report/web");
        return 0;
    }
    return FS_ENOENT;
}

/* Writes `s` into an inline <script>/<style> so that nothing in it can close
 * the element. JSON (`any_close`): every "</" becomes "<\\/", the same string.
 * Code: only "</script" and "</style" are touched, since "</" also occurs in
 * regular expressions of the minified libraries, where "<\\/" would differ. */
/* Inlines a library or style sheet: only "</script" and "</style" could end
 * the element early; the libraries' own text is otherwise left as it is. */
static void put_inline(FILE *f, const char *s) {
    for (const char *p = s; *p; p++) {
        if (p[0] == '<' && p[1] == '/' &&
            (!strncasecmp(p + 2, "script", 6) || !strncasecmp(p + 2, "style", 5)))
            fputs("<\\/", f), p++;
        else
            fputc(*p, f);
    }
}

/* ---- findings and verdicts (lab.yaml) ---------------------------------- */

static const struct jv *find_run(void *ctx, const char *id, const char **status) {
    const struct report_lab *lab = ctx;
    for (size_t i = 0; i < lab->nscn; i++) {
        const struct report_scn *sc = &lab->scn[i];
        if (strcmp(sc->id, id)) continue;
        *status = sc->status;
        return sc->res && !strcmp(sc->status, REPORT_OK) ? sc->res : NULL;
    }
    *status = NULL;
    return NULL;
}

/* A run under a reading: its own folder's, else the lab's run (the
 * reading did not apply to it). */
struct reading_ctx {
    const struct report_lab *lab;
    const struct report_reading *rd;
};

static const struct jv *find_reading_run(void *ctx, const char *id, const char **status) {
    const struct reading_ctx *c = ctx;
    for (size_t i = 0; i < c->rd->nscn; i++) {
        const struct report_scn *sc = &c->rd->scn[i];
        if (strcmp(sc->id, id)) continue;
        *status = sc->status;
        return sc->res && !strcmp(sc->status, REPORT_OK) ? sc->res : NULL;
    }
    return find_run((void *)c->lab, id, status);
}

static void add_finding(struct report *r, const char *lab, const char *title, const char *text,
                        bool available) {
    size_t cap = r->nfindings;
    fs_grow((void **)&r->findings, &cap, r->nfindings + 1, sizeof *r->findings);
    struct report_finding *f = &r->findings[r->nfindings++];
    f->lab = fs_xstrdup(lab);
    f->title = fs_xstrdup(title);
    f->text = fs_xstrdup(text);
    f->available = available;
}

void report_compute_findings(struct report *r) {
    free_findings(r);
    for (size_t i = 0; i < r->nlabs; i++) {
        struct report_lab *lab = &r->labs[i];
        if (!lab->def) continue;
        if (lab->ev) lab_eval_fini(lab->def, lab->ev);
        free(lab->ev);
        lab->ev = fs_xcalloc(1, sizeof *lab->ev);
        lab_eval(lab->def, find_run, lab, lab->ev);
        for (size_t q = 0; lab->rd && q < lab->def->nreadings; q++) {
            struct report_reading *rd = &lab->rd[q];
            if (rd->ev) lab_eval_fini(lab->def, rd->ev);
            free(rd->ev);
            rd->ev = NULL;
            if (!rd->nscn) continue; /* not run (--no-readings, or an older folder) */
            rd->ev = fs_xcalloc(1, sizeof *rd->ev);
            struct reading_ctx c = {lab, rd};
            lab_eval(lab->def, find_reading_run, &c, rd->ev);
        }
        for (size_t k = 0; k < lab->def->nf; k++)
            add_finding(r, lab->id, lab->def->f[k].title, lab->ev->findings[k],
                        lab->ev->available[k]);
    }
}

static bool chart_wants(const struct lab_chart *c, const char *id) {
    if (!c->nruns) return true;
    for (size_t i = 0; i < c->nruns; i++)
        if (lab_run_matches(c->runs[i], id)) return true;
    return false;
}

/* The lab's sub-claims and their verdicts: [{id, claim, verdict, text}]. */
static void write_claims(struct jw *w, const struct report_lab *lab) {
    const struct lab_def *L = lab->def;
    jw_key(w, "claims");
    jw_arr(w);
    for (size_t k = 0; k < L->nclaims; k++) {
        jw_obj_compact(w);
        jw_kstr(w, "id", L->claims[k].id);
        jw_kstr(w, "claim", L->claims[k].text);
        jw_kstr(w, "verdict", lab_sub_name(lab->ev->sub[k]));
        jw_kstr(w, "text", lab->ev->sub_text[k]);
        /* the readings under which this claim's verdict is another */
        jw_key(w, "depends_on");
        jw_arr(w);
        for (size_t q = 0; lab->rd && q < L->nreadings; q++)
            if (lab->rd[q].ev && lab->rd[q].ev->sub[k] != lab->ev->sub[k])
                jw_str(w, L->readings[q].id);
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* The lab's readings that ran: [{id, set, why, verdict, text, claims: [{id,
 * verdict, text}]}], and the lab's verdict under each. */
static void write_readings(struct jw *w, const struct report_lab *lab) {
    const struct lab_def *L = lab->def;
    jw_key(w, "readings");
    jw_arr(w);
    for (size_t q = 0; lab->rd && q < L->nreadings; q++) {
        const struct lab_eval *ev = lab->rd[q].ev;
        if (!ev) continue;
        jw_obj_compact(w);
        jw_kstr(w, "id", L->readings[q].id);
        jw_key(w, "set");
        jw_arr(w);
        for (size_t k = 0; k < L->readings[q].nsets; k++)
            jw_str(w, L->readings[q].sets[k]);
        jw_arr_end(w);
        jw_kstr(w, "why", L->readings[q].why);
        jw_kstr(w, "verdict", lab_verdict_name(ev->verdict));
        jw_kstr(w, "text", ev->verdict_text);
        jw_key(w, "claims");
        jw_arr(w);
        for (size_t k = 0; k < L->nclaims; k++) {
            jw_obj_compact(w);
            jw_kstr(w, "id", L->claims[k].id);
            jw_kstr(w, "verdict", lab_sub_name(ev->sub[k]));
            jw_kstr(w, "text", ev->sub_text[k]);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* A lab's claim, verdict (with the metrics' values) and charts. */
static void write_lab_def(struct jw *w, const struct report_lab *lab) {
    const struct lab_def *L = lab->def;
    jw_kstr(w, "claim", L->claim);
    jw_kstr(w, "claim_source", L->claim_source ? L->claim_source : "");
    jw_kstr(w, "next", L->next ? L->next : "");
    jw_kstr(w, "verdict", lab_verdict_name(lab->ev->verdict));
    jw_kstr(w, "verdict_text", lab->ev->verdict_text);
    write_claims(w, lab);
    write_readings(w, lab);
    jw_key(w, "metrics");
    jw_obj_compact(w);
    for (size_t k = 0; k < L->nm; k++)
        jw_knum(w, L->m[k].name, lab->ev->values[k]);
    jw_obj_end(w);
    jw_key(w, "findings");
    jw_arr(w);
    for (size_t k = 0; k < L->nf; k++) {
        jw_obj_compact(w);
        jw_kstr(w, "title", L->f[k].title);
        jw_kstr(w, "text", lab->ev->findings[k]);
        jw_kbool(w, "available", lab->ev->available[k]);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_key(w, "charts");
    jw_arr(w);
    for (size_t c = 0; c < L->ncharts; c++) {
        const struct lab_chart *ch = &L->charts[c];
        jw_obj_compact(w);
        jw_kstr(w, "type", ch->type);
        jw_kstr(w, "title", ch->title);
        jw_key(w, "opts");
        jw_raw(w, ch->json && *ch->json ? ch->json : "{}");
        jw_key(w, "runs");
        jw_arr_compact(w);
        for (size_t i = 0; i < lab->nscn; i++)
            if (chart_wants(ch, lab->scn[i].id)) jw_str(w, lab->scn[i].id);
        jw_arr_end(w);
        if (ch->nm) { /* counters: each metric of each run that ran */
            jw_key(w, "rows");
            jw_arr_compact(w);
            for (size_t i = 0; i < lab->nscn; i++) {
                const struct report_scn *sc = &lab->scn[i];
                if (!chart_wants(ch, sc->id) || !sc->res || strcmp(sc->status, REPORT_OK)) continue;
                for (size_t m = 0; m < ch->nm; m++) {
                    double v = expr_eval_run(&ch->mexpr[m], sc->res);
                    jw_obj_compact(w);
                    jw_kstr(w, "id", sc->id);
                    jw_kstr(w, "metric", ch->mnames[m]);
                    jw_knum(w, "value", isfinite(v) ? v : NAN);
                    jw_obj_end(w);
                }
            }
            jw_arr_end(w);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* Embeds JSON in a <script type="application/json"> element (HTML Living
 * Standard 4.12.1.3: its text must hold no "<!--", "<script" or "</"): every
 * '<' becomes \u003c, and U+2028/U+2029 become \u2028/\u2029 (harmless in
 * JSON, line terminators to older JavaScript). In valid JSON all three occur
 * only inside strings, where the escapes mean the same characters, so
 * JSON.parse gives back exactly the data; the strict reader (jread.c) makes
 * sure what is embedded is valid JSON. */
void report_put_json_script(FILE *f, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '<')
            fputs("\\u003c", f);
        else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            fputs(p[2] == 0xa8 ? "\\u2028" : "\\u2029", f);
            p += 2;
        } else
            fputc(*p, f);
    }
}

static void write_data(const struct report *r, FILE *f) {
    struct jw w;
    jw_init(&w, f);
    jw_obj(&w);
    jw_kstr(&w, "fabsim", FABSIM_VERSION);
    jw_kstr(&w, "mode", r->mode);
    /* Written by `fabsim compare` / `labs --set` next to the runs. */
    char path[PATH_MAX];
    pjoin(path, sizeof path, r->dir, "title");
    char *title = fs_read_file(path, NULL);
    if (title) {
        title[strcspn(title, "\r\n")] = 0;
        jw_kstr(&w, "title", title);
        free(title);
    }
    pjoin(path, sizeof path, r->dir, "config_diff.json");
    char *diff = fs_read_file(path, NULL), err[128];
    struct jv *dj = diff ? jread_parse(diff, err, sizeof err) : NULL;
    if (dj && dj->type == JV_ARR) {
        jw_key(&w, "config_diff");
        jw_raw(&w, diff);
    }
    jread_free(dj);
    free(diff);
    pjoin(path, sizeof path, r->dir, "sets");
    char *sets = fs_read_file(path, NULL);
    if (sets) {
        jw_key(&w, "sets");
        jw_arr_compact(&w);
        char *save = NULL;
        for (char *l = strtok_r(sets, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            jw_str(&w, l);
        jw_arr_end(&w);
        free(sets);
    }
    jw_key(&w, "findings");
    jw_arr(&w);
    for (size_t i = 0; i < r->nfindings; i++) {
        jw_obj_compact(&w);
        jw_kstr(&w, "lab", r->findings[i].lab);
        jw_kstr(&w, "title", r->findings[i].title);
        jw_kstr(&w, "text", r->findings[i].text);
        jw_kbool(&w, "available", r->findings[i].available);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "labs");
    jw_arr(&w);
    for (size_t i = 0; i < r->nlabs; i++) {
        const struct report_lab *lab = &r->labs[i];
        jw_obj(&w);
        jw_kstr(&w, "id", lab->id);
        jw_kstr(&w, "title", lab->title);
        jw_kstr(&w, "markdown", lab->markdown ? lab->markdown : "");
        if (lab->def) write_lab_def(&w, lab);
        jw_key(&w, "scenarios");
        jw_arr(&w);
        for (size_t k = 0; k < lab->nscn; k++) {
            const struct report_scn *sc = &lab->scn[k];
            jw_obj(&w);
            jw_kstr(&w, "id", sc->id);
            jw_kstr(&w, "label", sc->label);
            jw_kstr(&w, "status", sc->status);
            jw_kstr(&w, "message", sc->message ? sc->message : "");
            if (sc->nset) {
                jw_key(&w, "set");
                jw_obj(&w);
                for (size_t q = 0; q < sc->nset; q++)
                    jw_kstr(&w, sc->set_keys[q], sc->set_vals[q]);
                jw_obj_end(&w);
            }
            jw_kstr(&w, "yaml", sc->yaml ? sc->yaml : "");
            jw_key(&w, "results");
            if (sc->results_text)
                jw_raw(&w, sc->results_text);
            else
                jw_null(&w);
            jw_key(&w, "series");
            if (sc->series_json)
                jw_raw(&w, sc->series_json);
            else
                jw_null(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    report_validation_write(r->validation, &w);
    jw_obj_end(&w);
}

static int inline_file(FILE *out, const char *path, const char *open_tag, const char *close_tag,
                       struct diag *d) {
    char *s = fs_read_file(path, NULL);
    if (!s)
        return diag_set(d, path, (struct srcpos){0, 0}, FS_ENOENT,
                        "report asset missing (run `make deps`, which runs npm ci in report/web)");
    fputs(open_tag, out);
    put_inline(out, s);
    fputs(close_tag, out);
    free(s);
    return 0;
}

/* findings.json: [{lab, title, text, available}]; verdicts.json: per lab
 * with a lab.yaml, {lab, title, claim, verdict, text, claims, metrics{name: value},
 * metrics_text{name: the value as the findings print it}}. */
static int write_findings_json(const struct report *r, struct diag *d) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/findings.json", r->dir);
    struct fs_out o; /* core/file.h: atomic, never through a symlink */
    if (fs_out_open(&o, path))
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(errno));
    struct jw w;
    jw_init(&w, o.f);
    jw_arr(&w);
    for (size_t i = 0; i < r->nfindings; i++) {
        jw_obj_compact(&w);
        jw_kstr(&w, "lab", r->findings[i].lab);
        jw_kstr(&w, "title", r->findings[i].title);
        jw_kstr(&w, "text", r->findings[i].text);
        jw_kbool(&w, "available", r->findings[i].available);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_end(&w);
    if (fs_out_commit(&o))
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                        strerror(errno));
    snprintf(path, sizeof path, "%s/verdicts.json", r->dir);
    if (fs_out_open(&o, path))
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(errno));
    jw_init(&w, o.f);
    jw_arr(&w);
    for (size_t i = 0; i < r->nlabs; i++) {
        const struct report_lab *lab = &r->labs[i];
        if (!lab->def) continue;
        jw_obj(&w);
        jw_kstr(&w, "lab", lab->id);
        jw_kstr(&w, "title", lab->title);
        jw_kstr(&w, "claim", lab->def->claim);
        jw_kstr(&w, "verdict", lab_verdict_name(lab->ev->verdict));
        jw_kstr(&w, "text", lab->ev->verdict_text);
        write_claims(&w, lab);
        write_readings(&w, lab);
        jw_key(&w, "metrics");
        jw_obj_compact(&w);
        for (size_t k = 0; k < lab->def->nm; k++)
            jw_knum(&w, lab->def->m[k].name, lab->ev->values[k]);
        jw_obj_end(&w);
        /* As the findings print them (unit, digits, "never"): what
         * tools/labdoc.py writes into a guide's <!-- m: lab.metric --> marks. */
        jw_key(&w, "metrics_text");
        jw_obj_compact(&w);
        for (size_t k = 0; k < lab->def->nm; k++) {
            char val[160];
            lab_format(&lab->def->m[k], lab->ev->values[k], lab->ev->why[k], val, sizeof val);
            jw_kstr(&w, lab->def->m[k].name, val);
        }
        jw_obj_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_end(&w);
    if (fs_out_commit(&o))
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                        strerror(errno));
    return 0;
}

int report_write(const struct report *r, struct diag *d) {
    char web[PATH_MAX], path[PATH_MAX + 96];
    if (report_find_web(web, sizeof web))
        return diag_set(d, "report/web", (struct srcpos){0, 0}, FS_ENOENT,
                        "chart library not found: run `make deps` (npm ci in report/web) or "
                        "`make install`, or set FABSIM_WEB_DIR to a folder with report.js "
                        "and node_modules/vega*");
    char final[PATH_MAX];
    snprintf(final, sizeof final, "%s/report.html", r->dir);
    struct fs_out o; /* core/file.h: a unique temporary file, never through a symlink */
    if (fs_out_open(&o, final))
        return diag_set(d, final, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(errno));
    FILE *f = o.f;
    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"fabsim " FABSIM_VERSION "\">\n",
          f);
    fprintf(f, "<title>fabsim %s report</title>\n",
            !strcmp(r->mode, "compare") ? "compare"
            : !strcmp(r->mode, "sweep") ? "sweep"
            : !strcmp(r->mode, "run")   ? "run"
                                        : "labs");
    int rc = 0;
    pjoin(path, sizeof path, web, "report.css");
    rc = rc ? rc : inline_file(f, path, "<style>\n", "\n</style>\n", d);
    /* The charts (vega) and the guides' Markdown (marked), pinned by
     * report/web/package-lock.json and inlined: the page works offline. */
    static const char *const libs[] = {"vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js",
                                       "vega-embed/build/vega-embed.min.js",
                                       "marked/lib/marked.umd.js"};
    for (size_t i = 0; i < sizeof libs / sizeof *libs && !rc; i++) {
        snprintf(path, sizeof path, "%s/node_modules/%s", web, libs[i]);
        rc = inline_file(f, path, "<script>\n", "\n</script>\n", d);
    }
    fputs("</head>\n<body>\n<div id=\"app\"><noscript>This report needs JavaScript (it is "
          "self-contained: no network access).</noscript></div>\n"
          "<script type=\"application/json\" id=\"fabsim-data\">\n",
          f);
    char *data = NULL;
    size_t dlen = 0;
    FILE *mf = open_memstream(&data, &dlen);
    write_data(r, mf);
    fclose(mf);
    report_put_json_script(f, data);
    free(data);
    fputs("</script>\n", f);
    pjoin(path, sizeof path, web, "report.js");
    rc = rc ? rc : inline_file(f, path, "<script>\n", "\n</script>\n", d);
    fputs("</body>\n</html>\n", f);
    if (rc) {
        fs_out_abort(&o);
        return rc;
    }
    if (fs_out_commit(&o))
        return diag_set(d, final, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                        strerror(errno));
    return write_findings_json(r, d);
}

int report_build(const char *dir, struct diag *d) {
    struct report r;
    int rc = report_load(&r, dir, d);
    if (!rc) rc = report_write(&r, d);
    report_fini(&r);
    return rc;
}

/* Under which readings claim k (or the lab's verdict: k = -1) is another,
 * or that it is the same under every reading that ran. */
static void print_readings(FILE *f, const struct report_lab *lab, size_t k) {
    const struct lab_def *L = lab->def;
    size_t ran = 0, other = 0;
    for (size_t q = 0; lab->rd && q < L->nreadings; q++) {
        const struct lab_eval *ev = lab->rd[q].ev;
        if (!ev) continue;
        ran++;
        bool differs =
            k == (size_t)-1 ? ev->verdict != lab->ev->verdict : ev->sub[k] != lab->ev->sub[k];
        if (!differs) continue;
        fprintf(f, "%s%s (",
                other++ ? "; " : "        depends on the reading: ", L->readings[q].id);
        for (size_t s = 0; s < L->readings[q].nsets; s++)
            fprintf(f, "%s%s", s ? ", " : "", L->readings[q].sets[s]);
        fprintf(f, "): %s",
                k == (size_t)-1 ? lab_verdict_name(ev->verdict) : lab_sub_name(ev->sub[k]));
    }
    if (other)
        fputc('\n', f);
    else if (ran)
        fprintf(f, "        the same under every reading (%zu)\n", ran);
}

void report_print_findings(const struct report *r, FILE *f) {
    for (size_t i = 0; i < r->nlabs; i++) {
        const struct report_lab *lab = &r->labs[i];
        if (!lab->def) continue;
        fprintf(f, "\n%s\n", lab->title);
        fprintf(f, "  Claim:   \"%s\"%s%s%s\n", lab->def->claim, lab->def->claim_source ? " (" : "",
                lab->def->claim_source ? lab->def->claim_source : "",
                lab->def->claim_source ? ")" : "");
        fprintf(f, "  Verdict: %s. %s\n", lab_verdict_name(lab->ev->verdict),
                lab->ev->verdict_text);
        for (size_t k = 0; k < lab->def->nclaims; k++) {
            fprintf(f, "    - %s: %s. %s\n", lab->def->claims[k].id, lab_sub_name(lab->ev->sub[k]),
                    lab->ev->sub_text[k]);
            print_readings(f, lab, k);
        }
        if (!lab->def->nclaims) print_readings(f, lab, (size_t)-1);
        for (size_t k = 0; k < lab->def->nf; k++)
            fprintf(f, "  %s %s: %s\n", lab->ev->available[k] ? "*" : "-", lab->def->f[k].title,
                    lab->ev->findings[k]);
        if (lab->def->next) fprintf(f, "  Next:    %s\n", lab->def->next);
    }
}
