build-check/src/ctrl/ctrl.o: src/ctrl/ctrl.c src/ctrl/ctrl.h \
 src/config/scenario.h src/core/diag.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/packet.h
src/ctrl/ctrl.h:
src/config/scenario.h:
src/core/diag.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
