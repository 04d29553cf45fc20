build-check/src/net/switch.o: src/net/switch.c src/net/switch.h \
 src/flowctl/flowctl.h src/innet/innet.h src/net/net.h src/core/rng.h \
 src/core/sim.h src/core/evq.h src/core/time.h src/net/packet.h \
 src/net/port.h src/route/route.h
src/net/switch.h:
src/flowctl/flowctl.h:
src/innet/innet.h:
src/net/net.h:
src/core/rng.h:
src/core/sim.h:
src/core/evq.h:
src/core/time.h:
src/net/packet.h:
src/net/port.h:
src/route/route.h:
