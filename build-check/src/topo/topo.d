build-check/src/topo/topo.o: src/topo/topo.c src/topo/topo.h \
 src/config/scenario.h src/core/diag.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/packet.h
src/topo/topo.h:
src/config/scenario.h:
src/core/diag.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
