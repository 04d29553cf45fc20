build-check/src/net/deadlock.o: src/net/deadlock.c src/net/deadlock.h \
 src/core/time.h src/core/mem.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/net/packet.h
src/net/deadlock.h:
src/core/time.h:
src/core/mem.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:
