/* src/innet/innet_int.h: the sessions (trees) and runs (reductions) of innet/. */
#ifndef FABSIM_INNET_INNET_INT_H
#define FABSIM_INNET_INNET_INT_H

#include <stdbool.h>
#include <stdint.h>

struct net;

struct innet_tnode {
    uint32_t sw;
    uint32_t parent_port; /* NET_NONE at the root */
    uint32_t *child;      /* ports towards children (switches or members) */
    uint32_t nchild;
};

struct innet_run { /* one reduction in progress */
    bool live;
    uint32_t op, key, left;
    uint64_t bytes;
    uint32_t nchunks;
    uint32_t *next_send, *recvd, *xfer; /* per member */
    uint16_t *cnt;                      /* per tree node x chunk: contributions so far */
};

struct innet_sess {
    uint32_t *members, m;
    uint32_t *up_port; /* member's port towards its tree switch */
    struct innet_tnode *t;
    uint32_t nt;
    uint32_t *sw2t;   /* switch index -> tree node, NET_NONE */
    uint32_t window;  /* chunks a member may have outstanding */
    uint64_t agg_ps;  /* per tree switch: aggregating a chunk takes this long */
    uint64_t red_bps; /* per tree switch: reduced bytes per second it can produce; 0 = any */
    /* NVLS (nvls.c): each member owns 1/m of the chunks; the switch sends a
     * reduced chunk to its owner only (multimem.ld_reduce), the owner stores
     * it back (multimem.st) and the switch multicasts that to every member */
    bool owners;
    double wire_scale; /* NVLS packets occupy the link this much longer (>= 1), 0 = 1 */
    struct innet_run *runs;
    uint32_t nruns;
    void (*release)(struct net *n, struct innet_sess *s);
};

struct innet_pending { /* a chunk being aggregated at tree node t */
    uint32_t sess, run, chunk, t;
};

struct innet_state {
    struct innet_pending *pend; /* slots reused through `freel` */
    uint32_t npend, cappend;
    uint32_t *freel, nfree, capfree;
    struct innet_sess *sess;
    uint32_t nsess;
    uint32_t *active;                  /* SHARP: streaming trees in use per switch index */
    uint64_t *red_busy_ps;             /* per switch index: its reduction unit is busy until then */
    uint32_t ntrees;                   /* SHARP: trees in use in the subnet */
    innet_done_fn done;                /* innet_on_done */
    const struct innet_dist_ops *dist; /* innet_set_dist; NULL on one process */
};

struct innet_state *innet_get(struct net *n);
uint32_t innet_session_new(struct net *n);
uint32_t innet_tnode(struct net *n, struct innet_sess *s, uint32_t sw);
void innet_add_child(struct innet_sess *s, uint32_t t, uint32_t port);

#endif /* FABSIM_INNET_INNET_INT_H */
