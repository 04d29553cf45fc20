/* src/coll/a2a.c
 *
 * AllToAll in the collective engine (nccl-tests alltoall_perf, Chakra
 * ALL_TO_ALL): NCCL has no alltoall algorithm of its own; it is a group of
 * send/recv pairs, every rank sending its block of bytes/m to every other
 * rank at once over each channel's connection (NCCL docs, "Point-to-point
 * communication": all-to-all as grouped ncclSend/ncclRecv). The rank's own
 * block stays local.
 */
#include "coll/coll_int.h"
#include "core/mem.h"
#include "net/net.h"

/* Part i of k of `total`: the parts differ by at most 1 and sum to total. */
static uint64_t part(uint64_t total, uint64_t i, uint64_t k) {
    return total * (i + 1) / k - total * i / k;
}

void a2a_build(struct net *n, struct job *j, struct op *o, uint64_t bytes, const uint32_t *pre,
               uint32_t *post) {
    uint32_t m = j->nranks, nch = j->channels ? j->channels : 1;
    for (uint32_t i = 0; i < m; i++) {
        post[i] = op_xfer(o, XF_VIRTUAL, NET_NONE, 0);
        if (pre) op_dep(o, pre[i], post[i]);
    }
    for (uint32_t s = 0; s < m; s++)
        for (uint32_t d = 0; d < m; d++) {
            if (s == d) continue;
            uint64_t block = part(bytes, d, m);
            for (uint32_t ch = 0; ch < nch; ch++) {
                uint64_t b = part(block, ch, nch);
                if (!b) continue;
                uint32_t x = op_xfer(o, XF_MSG, job_qp(n, j, ch, s, d), b);
                if (pre) op_dep(o, pre[s], x);
                op_dep(o, x, post[d]);
                op_dep(o, x, post[s]); /* the send is complete too */
            }
        }
}
