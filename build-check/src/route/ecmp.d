build-check/src/route/ecmp.o: src/route/ecmp.c src/route/route.h \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/core/rng.h \
 src/net/net.h src/core/sim.h src/core/evq.h src/core/time.h \
 src/net/packet.h
src/route/route.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/core/rng.h:
src/net/net.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
