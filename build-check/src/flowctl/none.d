build-check/src/flowctl/none.o: src/flowctl/none.c src/flowctl/flowctl.h \
 src/config/scenario.h src/core/diag.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/packet.h
src/flowctl/flowctl.h:
src/config/scenario.h:
src/core/diag.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
