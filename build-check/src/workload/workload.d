build-check/src/workload/workload.o: src/workload/workload.c \
 src/workload/workload.h src/coll/coll.h src/config/scenario.h \
 src/core/diag.h src/core/mem.h src/core/rng.h src/net/net.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/packet.h
src/workload/workload.h:
src/coll/coll.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/core/rng.h:
src/net/net.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
