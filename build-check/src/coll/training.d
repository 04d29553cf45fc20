build-check/src/coll/training.o: src/coll/training.c src/coll/coll.h \
 src/coll/coll_int.h src/config/scenario.h src/core/diag.h src/core/rng.h \
 src/core/mem.h src/innet/innet.h src/net/net.h src/core/sim.h \
 src/core/evq.h src/core/time.h src/net/packet.h src/stats/jw.h
src/coll/coll.h:
src/coll/coll_int.h:
src/config/scenario.h:
src/core/diag.h:
src/core/rng.h:
src/core/mem.h:
src/innet/innet.h:
src/net/net.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
src/stats/jw.h:
