build-check/src/route/fib.o: src/route/fib.c src/route/route.h \
 src/core/mem.h src/net/net.h src/core/rng.h src/core/sim.h \
 src/core/evq.h src/core/time.h src/net/packet.h
src/route/route.h:
src/core/mem.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
