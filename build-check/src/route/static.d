build-check/src/route/static.o: src/route/static.c src/config/scenario.h \
 src/core/diag.h src/core/mem.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/packet.h \
 src/route/route.h
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
src/route/route.h:
