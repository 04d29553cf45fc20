build-check/src/cc/dcqcn.o: src/cc/dcqcn.c src/cc/cc.h src/core/time.h \
 src/config/scenario.h src/core/diag.h src/core/mem.h src/core/rng.h \
 src/net/net.h src/core/sim.h src/core/evq.h src/net/packet.h \
 src/net/nic.h
src/cc/cc.h:
src/core/time.h:
src/config/scenario.h:
src/core/diag.h:
src/core/mem.h:
src/core/rng.h:
src/net/net.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:
src/net/nic.h:
