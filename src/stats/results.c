#include "stats/results.h"

#include "coll/coll.h"
#include "coll/nccllog.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/units.h"
#include "ctrl/ctrl.h"
#include "model/model.h"
#include "net/dist.h"
#include "net/stuck.h"
#include "core/jw.h"
#include "model/sampler.h"
#include "workload/workload.h"
#include "workload/workload.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* NCCL busbw factor (nccl-tests doc/PERFORMANCE.md, docs/sources.md B). */
static double busbw_factor(int op, uint32_t n) {
    if (n == 0) return 0;
    switch (op) {
    case WL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case WL_ALLGATHER:
    case WL_REDUCESCATTER:
    case WL_ALLTOALL:
        return (double)(n - 1) / n;
    default:
        return 1.0;
    }
}

/* summary.link_layer: Ethernet CBFC and LLR at work (docs/outputs.md), only
 * when the scenario turns one of them on (other runs' results are unchanged). */
static void write_link_layer(const struct net *n, struct jw *w, uint64_t stall_ps) {
    const struct fabric_params *f = &n->sc->fabric;
    bool cbfc = f->flow_control == FLOWCTL_CBFC, llr = f->link_retry == LINK_RETRY_LLR;
    if (!cbfc && !llr) return;
    jw_key(w, "link_layer");
    jw_obj_compact(w);
    jw_kstr(w, "flow_control", cbfc ? "cbfc" : f->flow_control == FLOWCTL_PFC ? "pfc" : "none");
    if (cbfc) {
        jw_ku64(w, "credit_updates", n->c.credit_frames);
        jw_knum(w, "credit_stall_ns", time_ps_to_ns(stall_ps));
    }
    jw_kstr(w, "link_retry", llr ? "llr" : "none");
    if (llr) {
        jw_ku64(w, "llr_nacks", n->c.llr_nacks);
        jw_ku64(w, "llr_replays", n->c.llr_replays);
        jw_ku64(w, "llr_replay_bytes", n->c.llr_replay_bytes);
        jw_ku64(w, "llr_acks", n->c.llr_acks);
        jw_ku64(w, "llr_unprotected", n->c.llr_ineligible);
        jw_ku64(w, "llr_unrecovered", n->c.llr_unrecovered);
    }
    jw_obj_end(w);
}

static void write_summary(const struct model *m, struct jw *w) {
    const struct net *n = &m->net;
    uint64_t paused = 0, stall = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        paused += n->ports[p].paused_ps;
        stall += n->ports[p].credit_stall_ps;
    }
    jw_key(w, "summary");
    jw_obj(w);
    jw_kbool(w, "completed", m->completed);
    char why[400];
    jw_key(w, "incomplete_reason");
    if (results_incomplete_reason(m, why, sizeof why))
        jw_str(w, why);
    else
        jw_null(w);
    jw_kbool(w, "interrupted", m->interrupted != 0); /* SIGINT/SIGTERM (core/sig.h) */
    jw_knum(w, "sim_time_ns", time_ps_to_ns(m->sim.now_ps));
    jw_knum(w, "done_ns", m->net.work_pending ? -1.0 : time_ps_to_ns(n->done_ps));
    /* The control plane on its own (an SM re-sweep after the workload ended):
     * when it last went idle (null: it never acted), and whether it was still
     * reacting when the run ended. */
    jw_key(w, "control_plane_done_ns");
    if (n->ctrl_held && !n->ctrl_pending)
        jw_num(w, time_ps_to_ns(n->ctrl_done_ps));
    else
        jw_null(w);
    jw_kbool(w, "control_plane_pending", n->ctrl_pending > 0);
    jw_knum(w, "wall_s", m->wall_s);
    jw_ku64(w, "events", m->sim.events_run);
    jw_ku64(w, "packets_sent", n->c.packets_sent);
    jw_ku64(w, "packets_delivered", n->c.packets_delivered);
    jw_ku64(w, "packets_dropped", n->c.packets_dropped);
    jw_ku64(w, "packets_in_flight", n->pkts_in_flight);
    jw_ku64(w, "bytes_delivered", n->c.bytes_delivered);
    jw_ku64(w, "retransmitted_packets", n->c.retransmitted_packets);
    jw_ku64(w, "pause_frames", n->c.pause_frames);
    jw_knum(w, "paused_ns_total", time_ps_to_ns(paused));
    jw_ku64(w, "ecn_marked", n->c.ecn_marked);
    jw_ku64(w, "cnps", n->c.cnps);
    /* which came first, PFC or ECN (the ECN-misconfiguration lab) */
    jw_key(w, "first_pause_ns");
    if (n->c.first_pause_ps)
        jw_num(w, time_ps_to_ns(n->c.first_pause_ps));
    else
        jw_null(w);
    jw_key(w, "first_ecn_mark_ns");
    if (n->c.first_mark_ps)
        jw_num(w, time_ps_to_ns(n->c.first_mark_ps));
    else
        jw_null(w);
    jw_knum(w, "credit_stall_ns_total", time_ps_to_ns(stall));
    write_link_layer(n, w, stall);
    jw_ku64(w, "reorder_max_bytes", n->c.reorder_max_bytes);
    if (m->sc->fabric.kind == FABRIC_UET) {
        /* Ultra Ethernet's mechanisms (docs/outputs.md "uet"); only in UET runs */
        jw_key(w, "uet");
        jw_obj(w);
        jw_ku64(w, "trims", n->c.trimmed);
        jw_ku64(w, "trim_naks", n->c.trim_naks);
        jw_ku64(w, "entropy_changes", n->c.entropy_changes);
        jw_ku64(w, "credit_grants", n->c.credit_grants);
        jw_ku64(w, "credit_bytes", n->c.credit_bytes);
        jw_ku64(w, "retransmits", n->c.retransmitted_packets);
        jw_ku64(w, "timeouts", n->c.timeouts);
        jw_obj_end(w);
    }
    /* failures (docs/model.md "Failures") */
    jw_ku64(w, "timeouts", n->c.timeouts);
    jw_ku64(w, "qp_errors", n->nqp_errs);
    jw_ku64(w, "corrupted", n->c.corrupted);
    jw_ku64(w, "gray_dropped", n->c.gray_dropped);
    jw_ku64(w, "hoq_discards", n->c.hoq_discards);
    jw_key(w, "first_hoq_discard_ns");
    if (n->c.first_hoq_ps)
        jw_num(w, time_ps_to_ns(n->c.first_hoq_ps));
    else
        jw_null(w);
    jw_key(w, "deadlock");
    jw_obj_compact(w);
    jw_kbool(w, "detected", n->deadlock.detected);
    jw_key(w, "at_ns");
    if (n->deadlock.detected)
        jw_num(w, time_ps_to_ns(n->deadlock.at_ps));
    else
        jw_null(w);
    jw_key(w, "cycle");
    jw_arr_compact(w);
    char name[64];
    for (uint32_t i = 0; i < n->deadlock.ncycle; i++) {
        net_port_name(n, n->deadlock.cycle[i], name, sizeof name);
        jw_str(w, name);
    }
    jw_arr_end(w);
    jw_obj_end(w);
    stuck_write(n, w); /* net/stuck.h: a run that could not finish, and why */
    jw_key(w, "warnings");
    jw_arr(w);
    for (uint32_t i = 0; i < n->nwarnings; i++)
        jw_str(w, n->warnings[i]);
    jw_arr_end(w);
    jw_obj_end(w);
}

static void write_links(const struct model *m, struct jw *w) {
    const struct net *n = &m->net;
    double T = (double)m->sim.now_ps;
    char name[64], tier[32];
    bool llr = n->sc->fabric.link_retry == LINK_RETRY_LLR;
    jw_key(w, "links");
    jw_arr(w);
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct port *pt = &n->ports[p];
        net_port_name(n, p, name, sizeof name);
        net_port_tier(n, p, tier, sizeof tier);
        double qarea = (double)port_q_area(pt, m->sim.now_ps);
        jw_obj_compact(w);
        jw_kstr(w, "name", name);
        jw_kstr(w, "from", n->names[pt->node]);
        jw_kstr(w, "to", n->names[n->ports[pt->peer].node]);
        jw_kstr(w, "tier", tier);
        jw_ku64(w, "bytes", pt->tx_bytes);
        jw_ku64(w, "packets", pt->tx_packets);
        double u = T > 0 ? (double)port_busy_ps(pt) / T : 0.0;
        jw_knum(w, "utilization", u > 1.0 ? 1.0 : u);
        jw_ku64(w, "drops", pt->drops);
        jw_ku64(w, "corrupted", n->port_fail ? n->port_fail[p].corrupted : 0);
        jw_ku64(w, "hoq_discards", n->port_fail ? n->port_fail[p].hoq_discards : 0);
        jw_knum(w, "paused_ns", time_ps_to_ns(pt->paused_ps));
        jw_knum(w, "credit_stall_ns", time_ps_to_ns(pt->credit_stall_ps));
        if (llr) { /* only with link_retry: llr (docs/outputs.md) */
            jw_ku64(w, "llr_nacks", n->port_fail ? n->port_fail[p].llr_nacks : 0);
            jw_ku64(w, "llr_replays", n->port_fail ? n->port_fail[p].llr_replays : 0);
        }
        jw_knum(w, "mean_queue_bytes", T > 0 ? qarea / T : 0.0);
        jw_ku64(w, "max_queue_bytes", pt->q_max);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void write_flows(const struct model *m, struct jw *w) {
    const struct net *n = &m->net;
    jw_key(w, "flows");
    jw_arr(w);
    for (uint32_t i = 0; i < n->nflows; i++) {
        const struct flow_row *f = &n->flows[i];
        /* A Poisson sender that drew no packet before its end carried
         * nothing: not a flow, and certainly not an unfinished one. */
        if (f->msgs_left == 0 && f->start_ps == SIM_TIME_NEVER) continue;
        bool done = f->msgs_left == 0;
        jw_obj_compact(w);
        jw_ku64(w, "id", i);
        jw_kstr(w, "src", n->names[n->host_node[f->src]]);
        jw_kstr(w, "dst", n->names[n->host_node[f->dst]]);
        jw_ku64(w, "size", f->size_bytes);
        jw_knum(w, "start_ns", f->start_ps == SIM_TIME_NEVER ? 0 : time_ps_to_ns(f->start_ps));
        jw_key(w, "end_ns");
        if (done)
            jw_num(w, time_ps_to_ns(f->end_ps));
        else
            jw_null(w);
        jw_key(w, "fct_ns");
        if (done)
            jw_num(w, time_ps_to_ns(f->end_ps - f->start_ps));
        else
            jw_null(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void write_collectives(const struct model *m, struct jw *w) {
    const struct net *n = &m->net;
    jw_key(w, "collectives");
    jw_arr(w);
    for (uint32_t i = 0; i < n->ncoll_rows; i++) {
        const struct coll_row *r = &n->coll_rows[i];
        bool done = r->end_ps != SIM_TIME_NEVER;
        double t_ns = done ? time_ps_to_ns(r->end_ps - r->start_ps) : 0.0;
        double algbw = t_ns > 0 ? (double)r->size_bytes * 8.0 / t_ns : 0.0; /* Gbit/s */
        jw_obj_compact(w);
        jw_ku64(w, "job", r->job);
        jw_kstr(w, "op", coll_op_name(r->op));
        jw_kstr(w, "algorithm", r->op == WL_ALLTOALL ? "direct" : coll_algo_name(r->algorithm));
        jw_kbool(w, "fallback", r->fallback);
        if (r->op != WL_ALLTOALL) { /* NCCL protocol of the call (coll/algos.c) */
            static const char *const proto[] = {"simple", "ll", "ll128"};
            jw_kstr(w, "protocol", r->proto < 3 ? proto[r->proto] : "simple");
        }
        jw_ku64(w, "size", r->size_bytes);
        jw_ku64(w, "ranks", r->ranks);
        jw_knum(w, "start_ns", time_ps_to_ns(r->start_ps));
        if (done) {
            jw_knum(w, "time_ns", t_ns);
            jw_knum(w, "algbw_gbps", algbw);
            jw_knum(w, "busbw_gbps", algbw * busbw_factor(r->op, r->ranks));
        } else { /* did not finish before `stop` */
            jw_key(w, "time_ns");
            jw_null(w);
            jw_key(w, "algbw_gbps");
            jw_null(w);
            jw_key(w, "busbw_gbps");
            jw_null(w);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static const char *ev_name(int kind) {
    switch (kind) {
    case EV_LINK_GRAY:
        return "link_gray";
    case EV_LINK_FLAP:
        return "link_flap";
    default:
        return "link_down";
    }
}

static void knum_or_null(struct jw *w, const char *key, sim_time_ps t) {
    jw_key(w, key);
    if (t == SIM_TIME_NEVER)
        jw_null(w);
    else
        jw_num(w, time_ps_to_ns(t));
}

static void write_qp_errors(const struct model *m, struct jw *w) {
    const struct net *n = &m->net;
    jw_key(w, "qp_errors");
    jw_arr(w);
    for (uint32_t i = 0; i < n->nqp_errs; i++) {
        const struct qp_err_row *r = &n->qp_errs[i];
        jw_obj_compact(w);
        jw_ku64(w, "qp", r->qp);
        jw_kstr(w, "src", n->names[r->src]);
        jw_kstr(w, "dst", n->names[r->dst]);
        jw_knum(w, "at_ns", time_ps_to_ns(r->at_ps));
        jw_ku64(w, "psn", r->psn);
        jw_ku64(w, "retries", r->retries);
        jw_ku64(w, "messages_failed", r->msgs_failed);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* Why the run did not complete, or false when it did. */
bool results_incomplete_reason(const struct model *m, char *buf, size_t len) {
    const struct net *n = &m->net;
    char t[32], to[32];
    if (n->nqp_errs) {
        const struct qp_err_row *r = &n->qp_errs[0];
        units_fmt_time(r->at_ps, t, sizeof t);
        units_fmt_time(n->rto_ps, to, sizeof to);
        snprintf(buf, len,
                 "aborted: QP %s->%s exhausted its %u retries (timeout %s) at %s; %u QP(s) in "
                 "error, their jobs aborted",
                 n->names[r->src], n->names[r->dst], n->retry_cnt, to, t, n->nqp_errs);
        return true;
    }
    if (!m->completed) {
        units_fmt_time(m->sim.now_ps, t, sizeof t);
        /* Nothing in flight and QPs with packets unacknowledged: only their
         * retransmission timers can move the run on. A tail drop on a lossy
         * fabric (no later packet to trigger a NAK) waits for the local ACK
         * timeout, 4.096 us x 2^timeout: 4.29 s at NCCL's default 20, past
         * the 1 s cap of a run without `stop`. */
        uint32_t waiting = 0, cut_off = 0, cut_node = NET_NONE;
        sim_time_ps first = SIM_TIME_NEVER;
        for (uint32_t q = 0; n->pkts_in_flight == 0 && q < n->nqps; q++) {
            sim_time_ps d = n->qps[q].rto_deadline_ps;
            if (n->qps[q].error || d == SIM_TIME_NEVER) continue;
            waiting++;
            if (d < first) first = d;
            uint32_t ends[2] = {n->qps[q].dst, n->qps[q].src};
            for (int k = 0; k < 2 && n->sc_events_left == 0; k++)
                if (!net_node_attached(n, ends[k])) { /* waits in vain */
                    cut_off++;
                    if (cut_node == NET_NONE) cut_node = ends[k];
                    break;
                }
        }
        bool capped = !m->params.stop_ps && m->sim.now_ps >= MODEL_STOP_CAP_PS;
        if (cut_off) {
            /* More time cannot help: every retry goes into a dead link until
             * the QP exhausts its retries (docs/sources.md A12). */
            units_fmt_time(n->rto_ps, to, sizeof to);
            char budget[32];
            units_fmt_time((uint64_t)(n->retry_cnt + 1) * n->rto_ps, budget, sizeof budget);
            snprintf(buf, len,
                     "stopped at %s with work left: %u of %u QP(s) waiting for their "
                     "retransmission timeout cannot reach their peer (%s has no live link and "
                     "no link_up follows); raising `stop` cannot help: they retry every %s and "
                     "go to error after %u retries (%s), aborting their jobs",
                     t, cut_off, waiting, n->names[cut_node], to, n->retry_cnt, budget);
        } else if (waiting) {
            char at[32];
            units_fmt_time(n->rto_ps, to, sizeof to);
            units_fmt_time(first, at, sizeof at);
            snprintf(buf, len,
                     "stopped at %s with work left: nothing in flight, %u QP(s) wait for their "
                     "retransmission timeout (%s, the first at %s): a lost tail packet is only "
                     "resent then; %s, or see fabric.transport.timeout and .rto",
                     t, waiting, to, at,
                     capped ? "the run was cut short at the default cap (the scenario gives no "
                              "`stop`): set `stop` past that time"
                            : "raise `stop`");
        } else if (capped)
            snprintf(buf, len,
                     "cut short at %s, the default cap of a scenario without `stop`, with work "
                     "left: set `stop` to let it finish",
                     t);
        else
            snprintf(buf, len, "stopped at %s with work left", t);
        return true;
    }
    return false;
}

static void write_control_plane(const struct model *m, struct jw *w) {
    const struct net *n = &m->net;
    char name[64];
    jw_key(w, "control_plane");
    jw_arr(w);
    for (uint32_t i = 0; i < n->ncp_rows; i++) {
        const struct cp_row *r = &n->cp_rows[i];
        const struct port *pt = &n->ports[r->port];
        snprintf(name, sizeof name, "%s-%s", n->names[pt->node], n->names[n->ports[pt->peer].node]);
        jw_obj_compact(w);
        jw_kstr(w, "event", ev_name(r->event));
        jw_kstr(w, "link", name);
        jw_knum(w, "at_ns", time_ps_to_ns(r->at_ps));
        jw_key(w, "rerouted_at_ns");
        if (r->rerouted_ps == SIM_TIME_NEVER)
            jw_null(w);
        else
            jw_num(w, time_ps_to_ns(r->rerouted_ps));
        jw_key(w, "local_reroute_at_ns"); /* SHIELD: switch-local, before the SM */
        if (r->local_rerouted_ps == SIM_TIME_NEVER)
            jw_null(w);
        else
            jw_num(w, time_ps_to_ns(r->local_rerouted_ps));
        jw_ku64(w, "packets_lost", r->packets_lost);
        /* converged: every switch has its new forwarding state (or had
         * nothing to change); false when the run ended first */
        jw_kbool(w, "converged", r->rerouted_ps != SIM_TIME_NEVER);
        knum_or_null(w, "detected_at_ns", r->detected_ps); /* gray: found by BFD/hold/sweep */
        static const char *const by[] = {NULL, "liveness", "sweep", "unhealthy_link"};
        jw_key(w, "detected_by"); /* what found it: null for a port-down, or never found */
        if (r->detected_by && r->detected_by < sizeof by / sizeof *by)
            jw_str(w, by[r->detected_by]);
        else
            jw_null(w);
        knum_or_null(w, "up_at_ns", r->up_ps);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void results_write_json(const struct model *m, FILE *f) {
    struct jw w;
    jw_init(&w, f);
    jw_obj(&w);
    jw_kstr(&w, "fabsim", FABSIM_VERSION);
    jw_ku64(&w, "schema_version", RESULTS_SCHEMA_VERSION);
    jw_kstr(&w, "scenario", m->sc->name);
    jw_ku64(&w, "seed", m->sc->seed);
    jw_kstr(&w, "fabric",
            m->sc->fabric.kind == FABRIC_UET    ? "uet"
            : m->sc->fabric.kind == FABRIC_ROCE ? "roce"
                                                : "infiniband");
    write_summary(m, &w);
    write_links(m, &w);
    write_flows(m, &w);
    write_collectives(m, &w);
    coll_write_training(&m->net, &w);
    coll_write_nccl_tests(&m->net, &w);                           /* docs/inputs.md */
    if (m->against) nccl_log_write_json(m->against, &m->net, &w); /* run --against */
    coll_write_chakra(&m->net, &w);
    coll_write_moe(&m->net, &w);
    coll_write_inference(&m->net, &w);
    write_control_plane(m, &w);
    write_qp_errors(m, &w);
    coll_write_jobs(&m->net, &w);
    jw_key(&w, "cc_rates"); /* DCQCN rate per sender over time (model/sampler.h) */
    sampler_write_cc_rates(&m->sampler, &m->net, &w);
    if (m->net.ctrl && m->net.ctrl->write_results) m->net.ctrl->write_results(&m->net, &w);
    if (m->net.dist && m->net.dist->write_json) /* MPI runs only (docs/outputs.md) */
        m->net.dist->write_json(&m->net, &w);
    jw_obj_end(&w);
    jw_end(&w);
}

int results_mkdirs(const char *dir) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    /* EEXIST for a file of that name (sweep -o FILE): refused here, before
     * anything runs, not when the first output is written. */
    struct stat st;
    if (stat(buf, &st)) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Both files are written to temporary files and renamed into place only
 * when both are complete (links.csv first, results.json last), so a full
 * disk or a signal never leaves a torn results.json or a mismatched pair.
 * FS_EINVAL: the folder cannot be created; FS_EINTERNAL: a write failed. */
int results_write_dir(const struct model *m, const char *dir, struct diag *d) {
    char rpath[4200], lpath[4200];
    if (results_mkdirs(dir))
        return diag_set(d, dir, (struct srcpos){0, 0}, FS_EINVAL, "cannot create output folder: %s",
                        strerror(errno));
    snprintf(rpath, sizeof rpath, "%s/results.json", dir);
    snprintf(lpath, sizeof lpath, "%s/links.csv", dir);
    struct fs_out r, l;
    if (fs_out_open(&r, rpath))
        return diag_set(d, rpath, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(errno));
    if (fs_out_open(&l, lpath)) {
        int e = errno;
        fs_out_abort(&r);
        return diag_set(d, lpath, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(e));
    }
    results_write_json(m, r.f);
    sampler_write_csv(&m->sampler, &m->net, l.f);
    const char *bad = NULL;
    if (fs_out_close(&r))
        bad = rpath;
    else if (fs_out_close(&l))
        bad = lpath;
    else if (fs_out_commit(&l))
        bad = lpath;
    else if (fs_out_commit(&r))
        bad = rpath;
    if (bad) {
        int e = errno;
        fs_out_abort(&r);
        fs_out_abort(&l);
        return diag_set(d, bad, (struct srcpos){0, 0}, FS_EINTERNAL, "write failed: %s",
                        strerror(e));
    }
    return 0;
}

void results_print_summary(const struct model *m, FILE *f) {
    const struct net *n = &m->net;
    char t[32], b[32];
    units_fmt_time(m->sim.now_ps, t, sizeof t);
    units_fmt_size(n->c.bytes_delivered, b, sizeof b);
    fprintf(f, "%s (%s, seed %llu): %s at %s simulated, %.2f s wall, %llu events\n", m->sc->name,
            m->sc->fabric.kind == FABRIC_UET    ? "Ultra Ethernet"
            : m->sc->fabric.kind == FABRIC_ROCE ? "RoCEv2"
                                                : "InfiniBand",
            (unsigned long long)m->sc->seed, m->completed ? "completed" : "NOT completed", t,
            m->wall_s, (unsigned long long)m->sim.events_run);
    fprintf(f, "  delivered %s in %llu packets; dropped %llu, retransmitted %llu\n", b,
            (unsigned long long)n->c.packets_delivered, (unsigned long long)n->c.packets_dropped,
            (unsigned long long)n->c.retransmitted_packets);
    if (n->nflows) {
        double sum = 0, max = 0;
        uint32_t done = 0, nflows = 0;
        for (uint32_t i = 0; i < n->nflows; i++) {
            const struct flow_row *fl = &n->flows[i];
            nflows += fl->msgs_left || fl->start_ps != SIM_TIME_NEVER; /* carried something */
            if (fl->msgs_left || fl->start_ps == SIM_TIME_NEVER) continue;
            double fct = time_ps_to_ns(fl->end_ps - fl->start_ps) / 1000.0;
            sum += fct;
            if (fct > max) max = fct;
            done++;
        }
        if (done)
            fprintf(f, "  flows: %u of %u done, mean FCT %.2f us, max %.2f us\n", done, nflows,
                    sum / done, max);
        else /* no FCT to average: "mean FCT 0.00 us" would read as instant */
            fprintf(f, "  flows: 0 of %u done\n", nflows);
    }
    if (m->sc->fabric.kind == FABRIC_UET)
        fprintf(f,
                "  UET: trimmed %llu, trim NAKs %llu, entropy changes %llu, credit grants %llu\n",
                (unsigned long long)n->c.trimmed, (unsigned long long)n->c.trim_naks,
                (unsigned long long)n->c.entropy_changes, (unsigned long long)n->c.credit_grants);
    if (n->c.pause_frames || n->c.ecn_marked || n->c.cnps)
        fprintf(f, "  PFC pause frames %llu, ECN marked %llu, CNPs %llu\n",
                (unsigned long long)n->c.pause_frames, (unsigned long long)n->c.ecn_marked,
                (unsigned long long)n->c.cnps);
    if (n->deadlock.detected)
        fprintf(f, "  DEADLOCK detected at %.1f us (cycle of %u ports)\n",
                time_ps_to_ns(n->deadlock.at_ps) / 1000.0, n->deadlock.ncycle);
    if (n->c.timeouts || n->c.corrupted || n->c.gray_dropped || n->c.hoq_discards)
        fprintf(f,
                "  failures: %llu timeouts, %llu corrupted, %llu dropped by gray links, %llu "
                "HOQ discards\n",
                (unsigned long long)n->c.timeouts, (unsigned long long)n->c.corrupted,
                (unsigned long long)n->c.gray_dropped, (unsigned long long)n->c.hoq_discards);
    char why[400];
    if ((n->nqp_errs || !m->completed) && results_incomplete_reason(m, why, sizeof why))
        fprintf(f, "  finding: %s\n", why);
    stuck_print(n, f);
    for (uint32_t i = 0; i < n->nwarnings; i++)
        fprintf(f, "  warning: %s\n", n->warnings[i]);
    coll_print_table(n, f);
    if (m->against) nccl_log_print_against(m->against, n, f);
}
