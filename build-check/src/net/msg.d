build-check/src/net/msg.o: src/net/msg.c src/core/mem.h src/net/net.h \
 src/core/rng.h src/core/sim.h src/core/evq.h src/core/time.h \
 src/net/packet.h src/net/nic.h
src/core/mem.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
src/net/nic.h:
