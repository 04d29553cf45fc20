/* src/coll/chakra.c (placeholder until the reader lands) */
#include "coll/coll.h"
#include "coll/coll_int.h"
#include "core/diag.h"
#include "net/net.h"
#include "stats/jw.h"

int chakra_add(struct net *n, struct job *j, struct diag *d) {
    return diag_set(d, n->sc->file, j->w->pos, FS_ENOTSUP,
                    "kind: chakra is not yet supported by this build");
}
void chakra_start(struct net *n, struct job *j) {
    (void)n, (void)j;
}
void chakra_op_done(struct net *n, struct job *j, struct op *o) {
    (void)n, (void)j, (void)o;
}
void coll_write_chakra(const struct net *n, struct jw *w) {
    (void)n;
    jw_key(w, "chakra");
    jw_arr(w);
    jw_arr_end(w);
}
