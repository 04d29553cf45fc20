build-check/src/ctrl/sm_route.o: src/ctrl/sm_route.c \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/ctrl/sm.h \
 src/core/time.h src/net/net.h src/core/rng.h src/core/sim.h \
 src/core/evq.h src/net/packet.h
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/ctrl/sm.h:
src/core/time.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:
