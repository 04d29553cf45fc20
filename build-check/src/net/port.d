build-check/src/net/port.o: src/net/port.c src/net/port.h src/core/diag.h \
 src/flowctl/flowctl.h src/net/net.h src/core/rng.h src/core/sim.h \
 src/core/evq.h src/core/time.h src/net/packet.h src/net/nic.h \
 src/net/switch.h
src/net/port.h:
src/core/diag.h:
src/flowctl/flowctl.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
src/net/nic.h:
src/net/switch.h:
