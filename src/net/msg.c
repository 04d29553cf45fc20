/* src/net/msg.c
 *
 * Messages: what applications (workloads, collectives) hand to a queue pair.
 * A message gets its PSN range when it is posted, so messages of one QP are
 * sent in posting order, as on a real RC queue pair.
 */
#include "core/diag.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/nic.h"

#include <string.h>

uint32_t net_msg_reserve(struct net *n, uint32_t qp, uint64_t size_bytes, int32_t flow,
                         uint32_t owner) {
    uint32_t id = n->msg_free;
    if (id != NET_NONE) {
        n->msg_free = n->msgs[id].next;
    } else {
        fs_grow((void **)&n->msgs, &n->msgs_cap, n->nmsgs + 1, sizeof *n->msgs);
        id = n->nmsgs++;
    }
    struct msg *m = &n->msgs[id];
    memset(m, 0, sizeof *m);
    m->qp = qp;
    m->size_bytes = size_bytes;
    m->npkts = size_bytes ? (uint32_t)((size_bytes + n->mtu_bytes - 1) / n->mtu_bytes) : 1;
    m->flow = flow;
    m->owner = owner;
    m->next = NET_NONE;
    m->post_ps = SIM_TIME_NEVER;
    return id;
}

void net_msg_activate(struct net *n, uint32_t id) {
    const struct msg *m = &n->msgs[id];
    n->msgs_total++;
    if (m->flow >= 0) n->flows[m->flow].msgs_left++;
    n->bytes_posted += m->size_bytes;
    net_work_add(n);
}

uint32_t net_msg_new(struct net *n, uint32_t qp, uint64_t size_bytes, sim_time_ps at_ps,
                     int32_t flow, uint32_t owner) {
    uint32_t id = net_msg_reserve(n, qp, size_bytes, flow, owner);
    n->msgs[id].post_ps = at_ps;
    net_msg_activate(n, id);
    if (at_ps != SIM_TIME_NEVER) sim_at(n->sim, at_ps, 0, NET_EV_MSG_POST, id, 0);
    return id;
}

void net_msg_number(struct net *n, uint32_t id) {
    struct msg *m = &n->msgs[id];
    struct qp *q = &n->qps[m->qp];
    m->first_psn = q->posted_pkts;
    q->posted_pkts += m->npkts;
    if (q->msg_tail != NET_NONE) n->msgs[q->msg_tail].next = id;
    q->msg_tail = id;
}

void net_msg_post_now(struct net *n, uint32_t id) {
    struct msg *m = &n->msgs[id];
    struct qp *q = &n->qps[m->qp];
    m->post_ps = n->sim->now_ps;
    if (q->error) { /* posted to a QP in error: completes with a flush error */
        if (m->flow >= 0 && n->flows[m->flow].start_ps > m->post_ps)
            n->flows[m->flow].start_ps = m->post_ps;
        nic_msg_failed(n, id);
        return;
    }
    net_msg_number(n, id);
    if (q->una_msg == NET_NONE) net_qp_set_una(n, q, id);
    if (q->cur_msg == NET_NONE) net_qp_set_cur(n, q, id);
    if (m->flow >= 0) {
        struct flow_row *f = &n->flows[m->flow];
        f->size_bytes += m->size_bytes;
        if (m->post_ps < f->start_ps) f->start_ps = m->post_ps;
    }
    nic_activate(n, m->qp);
}

void net_msg_release(struct net *n, uint32_t id) {
    if (n->msg_keep) return;
    if (n->on_msg_release) {
        n->on_msg_release(n, id);
        return;
    }
    net_msg_free(n, id);
}

void net_msg_free(struct net *n, uint32_t id) {
    struct msg *m = &n->msgs[id];
    FS_ASSERT(!m->freed, "message %u released twice", id);
    struct qp *q = &n->qps[m->qp];
    /* acknowledged in order: it was the QP's last message if it is the tail */
    if (q->msg_tail == id) q->msg_tail = NET_NONE;
    m->freed = 1;
    m->next = n->msg_free;
    n->msg_free = id;
}

void net_ctrl_release(struct net *n) {
    if (--n->ctrl_pending == 0) {
        n->ctrl_done_ps = n->sim->now_ps;
        net_check_idle(n);
    }
}

void net_work_done(struct net *n) {
    if (n->sim->now_ps > n->work_last_ps) n->work_last_ps = n->sim->now_ps;
    if (--n->work_pending == 0) {
        n->done_ps = n->work_last_ps;
        net_check_idle(n);
    }
}
