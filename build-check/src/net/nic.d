build-check/src/net/nic.o: src/net/nic.c src/net/nic.h src/cc/cc.h \
 src/core/time.h src/core/diag.h src/core/mem.h src/flowctl/flowctl.h \
 src/innet/innet.h src/net/net.h src/core/rng.h src/core/sim.h \
 src/core/evq.h src/net/packet.h src/net/port.h
src/net/nic.h:
src/cc/cc.h:
src/core/time.h:
src/core/diag.h:
src/core/mem.h:
src/flowctl/flowctl.h:
src/innet/innet.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/net/packet.h:
src/net/port.h:
