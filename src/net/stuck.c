#include "net/stuck.h"

#include "core/mem.h"
#include "net/net.h"
#include "net/dist.h"
#include "net/nic.h"
#include "route/route.h"
#include "core/jw.h"

#include <stdlib.h>
#include <string.h>

struct stuck_state {
    uint64_t delivered;   /* bytes_delivered at the last look */
    sim_time_ps since_ps; /* the last look that saw a delivery */
    sim_time_ps after_ps; /* how long without one is stuck */
    uint64_t *blocked_ps; /* per port: paused + credit-stall time at since_ps */
    sim_time_ps next_ps;  /* the pending look (a window boundary in parallel runs) */
};

static uint64_t blocked(const struct port *p) {
    return p->paused_ps + p->credit_stall_ps;
}

void stuck_start(struct net *n) {
    struct stuck_state *st = fs_xcalloc(1, sizeof *st);
    /* An RC QP with the IBA timer is not stuck before its last retry: it
     * errors after retry_cnt + 1 timeouts (net/nic.c), which ends its job. */
    uint64_t rtos = n->rto_fixed ? 4 : (uint64_t)n->retry_cnt + 2;
    st->after_ps = rtos * n->rto_ps > STUCK_AFTER_PS ? rtos * n->rto_ps : STUCK_AFTER_PS;
    st->blocked_ps = fs_xcalloc(n->nports + 1, sizeof *st->blocked_ps);
    n->stuck_state = st;
    st->next_ps = n->sim->now_ps + STUCK_CHECK_PS;
    sim_at(n->sim, st->next_ps, 0, NET_EV_STUCK, 0, 0);
}

sim_time_ps stuck_next_ps(const struct net *n) {
    const struct stuck_state *st = n->stuck_state;
    return st ? st->next_ps : SIM_TIME_NEVER;
}

void stuck_fini(struct net *n) {
    struct stuck_state *st = n->stuck_state;
    if (!st) return;
    free(st->blocked_ps);
    free(st);
    n->stuck_state = NULL;
}

static bool link_up(const struct net *n, uint32_t p) {
    return n->ports[p].up && n->ports[n->ports[p].peer].up;
}

/* Follows the forwarding from node `from` to `to` as a packet of QP q would
 * go (the route policy's own choice). 0 when it arrives, with the ports in
 * path[]; else 1 with `on` saying where it ends. */
static int walk(struct net *n, uint32_t q, uint32_t from, uint32_t to, const char *what,
                uint32_t *path, uint32_t *nhops, char *on, size_t len) {
    const struct qp *qp = &n->qps[q];
    char name[48];
    struct packet p;
    memset(&p, 0, sizeof p);
    p.qp = q;
    p.src = from;
    p.dst = to;
    p.flow_hash = qp->flow_hash[from == qp->src ? 0 : 1];
    p.prio = qp->prio;
    p.type = from == qp->src ? PKT_DATA : PKT_ACK;
    uint32_t hops = 0, sp = nic_port(n, from);
    path[hops++] = sp;
    for (uint32_t v = n->ports[sp].peer; hops < 64;) {
        uint32_t node = n->ports[v].node;
        if (node == to) break;
        if (n->nodes[node].kind != NODE_SWITCH) {
            snprintf(on, len, "no route: the %s path leads to %s", what, n->names[node]);
            return 1;
        }
        p.in_port = v;
        uint32_t port = n->route->select(n, node, &p);
        if (port == NET_NONE) {
            snprintf(on, len, "no route at %s towards %s (%s path)", n->names[node], n->names[to],
                     what);
            return 1;
        }
        if (!link_up(n, port)) {
            net_port_name(n, port, name, sizeof name);
            snprintf(on, len, "link down: %s on the %s path, no route around it", name, what);
            return 1;
        }
        path[hops++] = port;
        v = n->ports[port].peer;
    }
    *nhops = hops;
    return 0;
}

/* What QP q waits on: deadlock, a host's own link down, the forwarding of
 * its data or of its ACKs ending at a dead link or nowhere, or a port on the
 * data path held by PFC pause or credit starvation. */
/* Per port, what diagnose needs of its state since the last delivery. */
enum { PST_BLOCKED = 1, PST_CREDIT = 2 };

static bool diagnose(struct net *n, const uint8_t *pst, uint32_t q, char *on, size_t len) {
    const struct qp *qp = &n->qps[q];
    char name[48];
    if (n->deadlock.detected) {
        snprintf(on, len, "deadlock (a cycle of %u paused ports)", n->deadlock.ncycle);
        return false;
    }
    uint32_t sp = nic_port(n, qp->src), dp = nic_port(n, qp->dst);
    if (!link_up(n, sp) || !link_up(n, dp)) {
        net_port_name(n, link_up(n, sp) ? dp : sp, name, sizeof name);
        snprintf(on, len, "link down: %s (the %s's link)", name,
                 link_up(n, sp) ? "destination" : "source");
        return true; /* no control plane routes around a host's own link */
    }
    uint32_t path[64], hops = 0, back[64], nback = 0;
    if (walk(n, q, qp->src, qp->dst, "data", path, &hops, on, len)) return false;
    if (walk(n, q, qp->dst, qp->src, "ACK", back, &nback, on, len)) return false;
    for (uint32_t i = 0; i < hops; i++) {
        if (!(pst[path[i]] & PST_BLOCKED)) continue;
        net_port_name(n, path[i], name, sizeof name);
        snprintf(on, len, "%s at %s", pst[path[i]] & PST_CREDIT ? "credit-stalled" : "paused",
                 name);
        return false;
    }
    snprintf(on, len, "no progress: packets sent and lost (retransmitting)");
    return false;
}

/* A scenario event still to come (a link back up, a stall ending) or a
 * stalled host can end the wait by itself. */
static bool events_can_change(const struct net *n) {
    if (n->sc_events_left) return true;
    for (uint32_t h = 0; h < n->nhosts; h++)
        if (n->nodes[n->host_node[h]].stalled) return true;
    return false;
}

/* Diagnoses every waiting QP into n->stuck; true when the run is stuck:
 * the control plane is idle, or every waiting flow is cut off in a way no
 * control plane can route around. */
static bool declare(struct net *n, const struct stuck_state *st, uint32_t *nwaiting) {
    bool ctrl = n->ctrl_pending || n->ctrl_busy_until_ps > n->sim->now_ps;
    struct stuck_info *si = &n->stuck;
    memset(si, 0, sizeof *si);
    bool all_hard = true;
    /* Whether a port was paused or credit-stalled since the last delivery:
     * on several ranks (par/), each knows its own ports'; OR-ed. */
    uint8_t *pst = fs_xcalloc(n->nports + 1, 1);
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct port *pt = &n->ports[p];
        if (!net_mine(n, pt->node)) continue;
        pst[p] = (uint8_t)((blocked(pt) != st->blocked_ps[p] ? PST_BLOCKED : 0) |
                           (pt->credit_stall_ps ? PST_CREDIT : 0));
    }
    net_or_bytes(n, pst, n->nports);
    net_lft_full(n); /* the walks cross other ranks' switches */
    for (uint32_t q = 0; q < n->nqps; q++) {
        if (n->qps[q].una_msg == NET_NONE) continue;
        char on[160];
        bool hard = diagnose(n, pst, q, on, sizeof on);
        all_hard = all_hard && hard;
        if (si->nwaiting++ >= STUCK_MAX_LISTED) continue;
        si->flows[si->nlisted].qp = q;
        snprintf(si->flows[si->nlisted].on, sizeof si->flows[0].on, "%s", on);
        if (!si->nlisted) snprintf(si->reason, sizeof si->reason, "%s", on);
        si->nlisted++;
    }
    free(pst);
    *nwaiting = si->nwaiting;
    if (si->nwaiting && (!ctrl || all_hard)) return true;
    memset(si, 0, sizeof *si);
    return false;
}

void stuck_on_event(struct sim *s, const struct event *e) {
    (void)e;
    struct net *n = s->model;
    struct stuck_state *st = n->stuck_state;
    st->next_ps = SIM_TIME_NEVER;
    /* Several ranks (par/): a window boundary on every rank; the sums are
     * the whole network's. */
    if (net_sum_u64(n, n->work_pending) == 0) return;
    sim_time_ps now = s->now_ps;
    uint64_t delivered = net_sum_u64(n, n->c.bytes_delivered);
    /* New bytes in order at a receiver: duplicates (data whose ACKs are
     * lost) are delivered packets but no progress. */
    if (delivered != st->delivered) {
        st->delivered = delivered;
        st->since_ps = now;
        for (uint32_t p = 0; p < n->nports; p++)
            st->blocked_ps[p] = blocked(&n->ports[p]);
    } else if (now - st->since_ps >= st->after_ps && !events_can_change(n)) {
        /* Adaptive routing and spraying choose by queues (and turn their
         * tie-break state) on switches other ranks own. */
        if (net_ranks(n) > 1 &&
            (!strcmp(n->route->name, "adaptive") || !strcmp(n->route->name, "spray"))) {
            n->dist->refuse(n, "diagnosing a run that cannot finish with adaptive routing or "
                               "spraying (summary.stuck)");
            return;
        }
        uint32_t nw = 0;
        bool stuck = declare(n, st, &nw);
        if (n->dist) {
            /* Several ranks: each diagnosed the QPs it sends from (the
             * others' are idle copies); stuck when some QP waits and every
             * rank with waiting QPs says so. The flows named are gathered,
             * in QP order as one process lists them. */
            uint64_t w = net_sum_u64(n, nw), against = net_sum_u64(n, nw && !stuck);
            stuck = w > 0 && against == 0;
            if (stuck) n->dist->gather_stuck(n, &n->stuck);
        }
        if (stuck) {
            n->stuck.detected = true;
            n->stuck.at_ps = now;
            n->stuck.since_ps = st->since_ps;
            sim_stop(s);
            return;
        }
    }
    st->next_ps = now + STUCK_CHECK_PS;
    sim_at(s, st->next_ps, 0, NET_EV_STUCK, 0, 0);
}

void stuck_write(const struct net *n, struct jw *w) {
    const struct stuck_info *si = &n->stuck;
    jw_key(w, "stuck");
    if (!si->detected) {
        jw_null(w);
        return;
    }
    jw_obj(w);
    jw_knum(w, "at_ns", time_ps_to_ns(si->at_ps));
    jw_knum(w, "no_delivery_since_ns", time_ps_to_ns(si->since_ps)); /* to the 1 ms look */
    jw_kstr(w, "reason", si->reason);
    jw_ku64(w, "waiting", si->nwaiting);
    jw_key(w, "flows");
    jw_arr(w);
    for (uint32_t i = 0; i < si->nlisted; i++) {
        const struct qp *qp = &n->qps[si->flows[i].qp];
        jw_obj_compact(w);
        jw_ku64(w, "qp", si->flows[i].qp);
        jw_kstr(w, "src", n->names[qp->src]);
        jw_kstr(w, "dst", n->names[qp->dst]);
        jw_kstr(w, "waiting_on", si->flows[i].on);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
}

void stuck_print(const struct net *n, FILE *f) {
    const struct stuck_info *si = &n->stuck;
    if (!si->detected) return;
    fprintf(
        f,
        "  STUCK: no packet delivered from (at most) %.1f us to %.1f us, %u flows waiting; ended "
        "the run\n",
        time_ps_to_ns(si->since_ps) / 1000.0, time_ps_to_ns(si->at_ps) / 1000.0, si->nwaiting);
    for (uint32_t i = 0; i < si->nlisted && i < 4; i++)
        fprintf(f, "    qp %u %s -> %s: %s\n", si->flows[i].qp,
                n->names[n->qps[si->flows[i].qp].src], n->names[n->qps[si->flows[i].qp].dst],
                si->flows[i].on);
}
