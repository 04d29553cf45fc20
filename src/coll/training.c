#include "coll/coll_int.h"
#include "coll/coll.h"
#include "core/diag.h"
#include "net/net.h"
#include "stats/jw.h"

int training_add(struct net *n, struct job *j, struct diag *d) {
    (void)j;
    return diag_set(d, n->sc->file, j->w->pos, FS_ENOTSUP, "kind: training is not implemented yet");
}
void training_op_done(struct net *n, struct job *j, struct op *o) {
    (void)n, (void)j, (void)o;
}
void training_start(struct net *n, struct job *j) {
    (void)n, (void)j;
}
void coll_write_training(const struct net *n, struct jw *w) {
    (void)n, (void)w;
}
