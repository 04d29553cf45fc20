build-check/src/cc/none.o: src/cc/none.c src/cc/cc.h src/core/time.h \
 src/config/scenario.h src/core/diag.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/net/packet.h
src/cc/cc.h:
src/core/time.h:
src/config/scenario.h:
src/core/diag.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:
