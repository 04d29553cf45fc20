build-check/src/innet/innet.o: src/innet/innet.c src/innet/innet.h \
 src/coll/coll.h src/coll/coll_int.h src/config/scenario.h \
 src/core/diag.h src/core/rng.h src/core/mem.h src/flowctl/flowctl.h \
 src/innet/innet_int.h src/net/net.h src/core/sim.h src/core/evq.h \
 src/core/time.h src/net/packet.h src/net/port.h
src/innet/innet.h:
src/coll/coll.h:
src/coll/coll_int.h:
src/config/scenario.h:
src/core/diag.h:
src/core/rng.h:
src/core/mem.h:
src/flowctl/flowctl.h:
src/innet/innet_int.h:
src/net/net.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
src/net/port.h:
